//! The one order in which every reduction combines its elements, so that
//! its result does not depend on how the work is split.
//!
//! The elements are cut into blocks of [`BLOCK`] at fixed positions (`0`,
//! `BLOCK`, `2 BLOCK`, ...). Each block is folded in element order, the
//! first from the neutral element given to `reduce` and each later one
//! from it too; the block results are then folded in order:
//!
//! ```text
//! reduce op ne xs = ((P0 op P1) op P2) ...   Pj = fold op ne (block j)
//! ```
//!
//! With `BLOCK` or fewer elements this is the plain left fold. The blocks
//! of an outermost reduction are independent, so worker threads fold whole
//! blocks of their chunks (`chunks.rs`) and the calling thread combines
//! them in order: the same bits for any number of threads, for any chunk
//! lengths, and one element at a time as in bulk (for operators folded
//! natively; see the module documentation of `eval` for the others).

use super::error::Fail;
use super::error::R;
use super::interp::Interp;
use super::lanes::LVal;
use super::soac::{combine_native, fold_all, slice_outer};
use urchin_core::ir::Operator;
use urchin_runtime::Raise;
use urchin_runtime::value::Value;

/// Elements per block.
pub const BLOCK: usize = 1024;

/// Folds `xs` from `init` in blocks, as every reduction does.
pub fn fold_blocked<T: Copy>(xs: &[T], init: T, g: impl Fn(T, T) -> T) -> T {
    fold_blocked_by(xs.len(), init, |i| xs[i], g)
}

/// Folds the elements `x(0), ..., x(n - 1)` from `init` in blocks, as
/// every reduction does (for elements computed as they are folded).
/// Inlined: it is the inner loop of the kernels that fold rows.
#[inline(always)]
pub(crate) fn fold_blocked_by<T: Copy>(
    n: usize,
    init: T,
    x: impl Fn(usize) -> T,
    g: impl Fn(T, T) -> T,
) -> T {
    let block = |s: usize| (s..n.min(s + BLOCK)).fold(init, |a, i| g(a, x(i)));
    (BLOCK..n)
        .step_by(BLOCK)
        .fold(block(0), |acc, s| g(acc, block(s)))
}

/// A reduction in progress over consecutive elements, in blocks: where it
/// stands, the combination of the blocks already finished, and the fold
/// of the current one.
#[derive(Clone)]
pub(crate) struct Blocks {
    /// Elements consumed so far.
    pos: usize,
    done: Option<Vec<LVal>>,
    /// The fold of the current block so far (the neutral element when it
    /// has none yet).
    pub open: Vec<LVal>,
    ne: Vec<LVal>,
}

impl Blocks {
    pub fn new(ne: Vec<LVal>) -> Blocks {
        Blocks {
            pos: 0,
            done: None,
            open: ne.clone(),
            ne,
        }
    }

    pub fn neutral(&self) -> &[LVal] {
        &self.ne
    }

    /// The lengths of the pieces that the next `c` elements make when cut
    /// at block boundaries.
    pub fn pieces(&self, c: usize) -> Vec<usize> {
        pieces(self.pos, c)
    }

    /// The next `c` elements cut into runs of whole blocks and pieces of
    /// blocks (see [`runs`]).
    pub fn runs(&self, c: usize) -> Vec<Run> {
        runs(self.pos, c, None)
    }

    /// Before the element at the current position: if it starts a block
    /// (not the first), the block before it is finished and combined.
    pub fn at_element(&mut self, it: &mut Interp, op: &Operator) -> R<()> {
        if self.pos > 0 && self.pos % BLOCK == 0 {
            self.close(it, op)?;
        }
        Ok(())
    }

    /// Moves past `k` elements already folded into `open`.
    pub fn advance(&mut self, k: usize) {
        self.pos += k;
    }

    /// Takes a whole block (or the last, shorter one) folded from the
    /// neutral element elsewhere: `p` is its fold, `k` its length.
    pub fn put_block(&mut self, it: &mut Interp, op: &Operator, p: Vec<LVal>, k: usize) -> R<()> {
        self.at_element(it, op)?;
        self.open = p;
        self.pos += k;
        Ok(())
    }

    /// Takes consecutive whole blocks folded elsewhere, as `put_block`
    /// takes each in turn: `folds` is the one-dimensional array of their
    /// folds, `k` their total length. Natively where the operator is
    /// recognised (the same steps as `close`).
    pub fn put_folds(&mut self, it: &mut Interp, op: &Operator, folds: &LVal, k: usize) -> R<()> {
        let Value::Array(a) = &folds.v else {
            return Err(Fail::internal("block folds that are not an array"));
        };
        let fold = |j: usize| vec![LVal::inv(Value::Scalar(a.get_flat(j)))];
        let m = a.shape().first().copied().unwrap_or(0);
        if m == 0 {
            return Err(Fail::internal("a run of no blocks"));
        }
        self.at_element(it, op)?;
        if m > 1 {
            let done = match self.done.take() {
                None => fold(0),
                Some(d) => combine(it, op, d, fold(0))?,
            };
            // The blocks between the first and the last in one native
            // loop where it can be; one at a time otherwise.
            let middle = slice_outer(folds, 1, m - 1);
            let native = match (&done[..], op.native_binop()) {
                ([d], Some(f)) => d.scalar().and_then(|d| fold_all(f, &middle, d)),
                _ => None,
            };
            self.done = Some(match native {
                Some(r) => vec![LVal::inv(Value::Scalar(r))],
                None => (1..m - 1).try_fold(done, |d, j| combine(it, op, d, fold(j)))?,
            });
        }
        self.open = fold(m - 1);
        self.pos += k;
        Ok(())
    }

    fn close(&mut self, it: &mut Interp, op: &Operator) -> R<()> {
        let open = std::mem::replace(&mut self.open, self.ne.clone());
        self.done = Some(match self.done.take() {
            None => open,
            Some(d) => combine(it, op, d, open)?,
        });
        Ok(())
    }

    /// The result, once every element is consumed (at least one).
    pub fn finish(mut self, it: &mut Interp, op: &Operator) -> R<Vec<LVal>> {
        self.close(it, op)?;
        Ok(self.done.unwrap_or(self.ne))
    }
}

/// `d op x`, natively where it can be: the calling thread combines every
/// block of a parallel reduction.
fn combine(it: &mut Interp, op: &Operator, mut d: Vec<LVal>, x: Vec<LVal>) -> R<Vec<LVal>> {
    match combine_native(op, &d, &x) {
        Some(r) => Ok(vec![r]),
        None => {
            d.extend(x);
            it.apply(&op.lam, d)
        }
    }
}

/// A stretch of consecutive elements of a reduction: `whole` blocks
/// only (each folded from the neutral element), or a piece of one block.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Run {
    pub len: usize,
    pub whole: bool,
}

/// The `c` elements from position `pos` cut at block boundaries, with
/// consecutive whole blocks merged into one run. A block is whole when
/// all its `BLOCK` elements are among them, or it is the last block of a
/// reduction of `end` elements.
pub fn runs(pos: usize, c: usize, end: Option<usize>) -> Vec<Run> {
    let mut out: Vec<Run> = Vec::new();
    let mut at = pos;
    for k in pieces(pos, c) {
        let whole = at % BLOCK == 0 && (k == BLOCK || Some(at + k) == end);
        match out.last_mut() {
            Some(last) if whole && last.whole => last.len += k,
            _ => out.push(Run { len: k, whole }),
        }
        at += k;
    }
    out
}

/// The lengths of the pieces that the `c` elements from position `pos`
/// make when cut at block boundaries.
pub fn pieces(pos: usize, c: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let (mut at, end) = (pos, pos + c);
    while at < end {
        let next = ((at / BLOCK + 1) * BLOCK).min(end);
        out.push(next - at);
        at = next;
    }
    out
}
