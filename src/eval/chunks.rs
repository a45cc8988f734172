//! The chunk driver: how an outermost SOAC (a `map`, `reduce` or `scan`
//! evaluated where no lane is active) runs over its elements.
//!
//! The elements are cut into chunks. A chunk is evaluated in bulk, one lane
//! per element; when that meets something irregular, or fails, the same
//! chunk is evaluated again one element at a time: bodies are pure, so this
//! is safe, and it reports an error exactly as per-element evaluation does.
//! Accumulator updates made in bulk are logged and applied only once the
//! chunk has succeeded. The rows a chunk produces (of a `map` or `scan`)
//! are copied into the final arrays as they come; a `reduce` or `scan`
//! threads its accumulator (the *carry*) from one chunk to the next.
//!
//! What a parallel evaluator can rely on:
//! - **Boundaries never depend on timing.** The first chunk has the length
//!   the interpreter's last chunk left it with; every later length is
//!   computed from the sizes of the arrays the chunk before it built
//!   (`Interp::tune_chunk`). The boundaries are a function of the program
//!   and its inputs.
//! - **A chunk's work depends only on its inputs**: its slice of the SOAC's
//!   arguments and the carry. The per-chunk state of the interpreter (the
//!   size peak and the accumulator log) is reset when a chunk starts. A
//!   `map` has no carry, so its chunks are independent; for `reduce` and
//!   `scan` the carry is the one sequential dependency, which a parallel
//!   evaluator replaces by combining per-chunk results in a fixed tree.

use super::error::{Fail, R};
use super::interp::Interp;
use super::kernels::{from_vec, row_major};
use super::lanes::LVal;
use super::soac::slice_outer;
use crate::core::ir::{Lambda, Operator};
use crate::runtime::Raise;
use crate::runtime::value::{Array, Element, Value};

#[cfg(test)]
thread_local! {
    /// The failures of bulk evaluation that were retried per element, so
    /// that tests can check that they are only genuine errors.
    pub(crate) static RETRIED: std::cell::RefCell<Vec<Fail>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Records a bulk failure that is about to be retried per element (in
/// tests only).
#[cfg_attr(not(test), allow(unused_variables))]
fn retrying(e: &Fail) {
    #[cfg(test)]
    RETRIED.with(|r| r.borrow_mut().push(e.clone()));
}

/// What an outermost SOAC does with each chunk.
#[derive(Clone, Copy)]
pub(crate) enum ChunkOp<'l> {
    /// `map lam`: a row of each result per element.
    Map(&'l Lambda),
    /// `reduce op`, after an optional fused map: the carry only.
    Reduce(&'l Operator, Option<&'l Lambda>),
    /// `scan op`, after an optional fused map: a row of each result per
    /// element, and the carry.
    Scan(&'l Operator, Option<&'l Lambda>),
}

/// What one chunk produced.
struct ChunkOut {
    /// One array per result of a `map` or `scan`, a row per element.
    rows: Vec<Value>,
    /// The accumulator after the chunk (`reduce` and `scan`).
    carry: Vec<LVal>,
}

impl ChunkOp<'_> {
    /// How many results have a row per element.
    fn row_results(self, carry: usize) -> usize {
        match self {
            ChunkOp::Map(lam) => lam.body.result.len(),
            ChunkOp::Reduce(..) => 0,
            ChunkOp::Scan(..) => carry,
        }
    }

    /// The elements the operator combines, in bulk: the map's results, or
    /// the fused map's (the part of a chunk whose size tunes the next).
    fn inputs(self, it: &mut Interp, chunk: &[LVal], c: usize) -> R<Vec<LVal>> {
        match self {
            ChunkOp::Map(lam) => it.map_lanes(lam, chunk, c),
            ChunkOp::Reduce(_, pre) | ChunkOp::Scan(_, pre) => it.soac_inputs(pre, chunk, c),
        }
    }

    /// Combines the inputs of a chunk in bulk, continuing from `carry`.
    fn combine(self, it: &mut Interp, xs: Vec<LVal>, c: usize, carry: &[LVal]) -> R<ChunkOut> {
        Ok(match self {
            ChunkOp::Map(_) => ChunkOut {
                rows: xs.into_iter().map(|x| x.v).collect(),
                carry: Vec::new(),
            },
            ChunkOp::Reduce(op, _) => ChunkOut {
                rows: Vec::new(),
                carry: it.reduce_chunk(op, xs, c, carry)?,
            },
            ChunkOp::Scan(op, _) => {
                let (rows, carry) = it.scan_chunk(op, xs, c, carry)?;
                ChunkOut {
                    rows: rows.into_iter().map(|x| x.v).collect(),
                    carry,
                }
            }
        })
    }

    /// The chunk one element at a time.
    fn elements(self, it: &mut Interp, chunk: &[LVal], c: usize, carry: Vec<LVal>) -> R<ChunkOut> {
        Ok(match self {
            ChunkOp::Map(lam) => ChunkOut {
                rows: it.map_elements(lam, chunk, c)?,
                carry: Vec::new(),
            },
            ChunkOp::Reduce(op, pre) => ChunkOut {
                rows: Vec::new(),
                carry: it.reduce_elements(op, pre, chunk, c, carry)?,
            },
            ChunkOp::Scan(op, pre) => {
                let (rows, carry) = it.scan_elements(op, pre, chunk, c, carry)?;
                ChunkOut {
                    rows: rows.into_iter().map(|x| x.v).collect(),
                    carry,
                }
            }
        })
    }
}

impl Interp<'_> {
    /// Runs an outermost SOAC over its `n >= 1` elements (the arguments
    /// `vals`) chunk by chunk, starting from `carry`: the results with a
    /// row per element, and the final carry.
    pub(crate) fn run_chunked(
        &mut self,
        op: ChunkOp,
        vals: &[LVal],
        n: usize,
        carry: Vec<LVal>,
    ) -> R<(Vec<LVal>, Vec<LVal>)> {
        let mut rows: Vec<Rows> = (0..op.row_results(carry.len()))
            .map(|_| Rows::new(n))
            .collect();
        let mut carry = carry;
        // Irregular chunks are likely to be followed by more: after one,
        // the rest go element by element.
        let mut in_bulk = true;
        let mut start = 0;
        while start < n {
            self.check_interrupt()?;
            let c = self.chunk_len(n - start);
            let chunk: Vec<LVal> = vals
                .iter()
                .map(|x| slice_outer(x, start, start + c))
                .collect();
            let out = if in_bulk {
                match self.chunk_in_bulk(op, &chunk, c, &carry) {
                    Ok(out) => {
                        self.flush_acc_log(None)?;
                        out
                    }
                    Err(e) if e.is_interrupt() => return Err(e),
                    Err(e) => {
                        retrying(&e);
                        self.discard_acc_log();
                        in_bulk = !matches!(e, Fail::Irregular);
                        op.elements(self, &chunk, c, carry)?
                    }
                }
            } else {
                op.elements(self, &chunk, c, carry)?
            };
            for (r, v) in rows.iter_mut().zip(out.rows) {
                r.push(v)?;
            }
            carry = out.carry;
            start += c;
        }
        let rows = rows.into_iter().map(Rows::finish).collect::<R<_>>()?;
        Ok((rows, carry))
    }

    fn chunk_in_bulk(
        &mut self,
        op: ChunkOp,
        chunk: &[LVal],
        c: usize,
        carry: &[LVal],
    ) -> R<ChunkOut> {
        self.start_chunk()?;
        let xs = op.inputs(self, chunk, c)?;
        self.tune_chunk(c);
        op.combine(self, xs, c, carry)
    }
}

/// Collects the rows of one result over the chunks of a SOAC of `n`
/// elements into one array, copying each chunk as it comes so that only
/// the final array is ever allocated at full size.
enum Rows {
    Empty(usize),
    /// An accumulator passed through a `map`.
    Acc(Value),
    Sink(Box<dyn RowSink>),
}

trait RowSink {
    fn push(&mut self, a: &Array) -> R<()>;
    fn finish(self: Box<Self>) -> Array;
}

struct TypedRows<T> {
    own: Vec<usize>,
    data: Vec<T>,
    rows: usize,
}

impl<T: Element> RowSink for TypedRows<T> {
    fn push(&mut self, a: &Array) -> R<()> {
        let x =
            T::unwrap_array(a).ok_or_else(|| Fail::internal("map chunks of different types"))?;
        if x.shape()[1..] != self.own[..] {
            return Err(Fail::irregular_map(&self.own, &x.shape()[1..]));
        }
        self.data.extend_from_slice(&row_major(x));
        self.rows += x.shape()[0];
        Ok(())
    }

    fn finish(self: Box<Self>) -> Array {
        let mut shape = vec![self.rows];
        shape.extend(self.own);
        from_vec(&shape, self.data)
    }
}

impl Rows {
    fn new(n: usize) -> Rows {
        Rows::Empty(n)
    }

    fn push(&mut self, v: Value) -> R<()> {
        match (&mut *self, v) {
            (Rows::Empty(_), v @ Value::Acc(_)) => *self = Rows::Acc(v),
            (Rows::Acc(_), _) => {}
            (Rows::Empty(n), Value::Array(a)) => {
                fn sink<T: Element>(n: usize, own: &[usize]) -> Box<dyn RowSink> {
                    Box::new(TypedRows::<T> {
                        own: own.to_vec(),
                        data: Vec::with_capacity(n * own.iter().product::<usize>()),
                        rows: 0,
                    })
                }
                let mut s = crate::dispatch_prim!(a.elem(), sink(*n, &a.shape()[1..]));
                s.push(&a)?;
                *self = Rows::Sink(s);
            }
            (Rows::Sink(s), Value::Array(a)) => s.push(&a)?,
            _ => return Err(Fail::internal("a map chunk that is not an array")),
        }
        Ok(())
    }

    fn finish(self) -> R<LVal> {
        match self {
            Rows::Empty(_) => Err(Fail::internal("a map without chunks")),
            Rows::Acc(v) => Ok(LVal::inv(v)),
            Rows::Sink(s) => Ok(LVal::inv(Value::Array(s.finish()))),
        }
    }
}
