//! The SOACs: `map`, `reduce`, `scan`, `hist`, `scatter`, and accumulators.
//!
//! An outermost `map` (one evaluated where no lane is active) runs its
//! lambda in bulk over chunks of its elements, one lane per element. When a
//! chunk meets something irregular, or fails, that chunk is evaluated again
//! one element at a time: bodies are pure, so this is safe, and it gives the
//! error exactly as per-element evaluation reports it. A `map` inside lifted
//! code just pushes another lane. `reduce` and `scan` do the same with their
//! fused map and then combine along the array's axis: natively for
//! recognised operators (`fold`), otherwise by applying the operator in
//! bulk to whole slices (and, where there are few lanes, in a tree or in
//! blocks). This file holds what every SOAC shares and `map`; `reduce`,
//! `scan` and `scatter` (with `hist` and accumulators) the others.

mod fold;
mod reduce;
mod scan;
mod scatter;

pub(crate) use fold::{combine_native, fold_all, fold_blocks, fused_sum_blocks, summed_binop};
pub(crate) use scatter::{AccUpdate, SentUpdate};

use crate::FastCounts;
use crate::analysis::BodyInfo;
use crate::chunks::ChunkOp;
use crate::error::{Fail, R};
use crate::interp::Interp;
use crate::lanes::{LVal, bit, count, insert_axis};
use crate::ops;
use crate::straight::{self, Input};
use crate::threads::Par;
use ndarray::{Axis, Slice};
use smallvec::SmallVec;
use std::borrow::Borrow;
use std::rc::Rc;
use std::sync::Arc;
use urchin_base::mem::Budget;
use urchin_core::ir::{Atom, Exp, Lambda, Operator, Stm, Type, Var};
use urchin_runtime::Raise;
use urchin_runtime::value::{Element, Value};
use urchin_runtime::with_array;

/// A SOAC's arguments as they are in the environment.
type ArgRefs<'a> = SmallVec<[&'a LVal; 16]>;

/// Below this many lanes, a reduction along an axis longer than this is
/// done as a tree of bulk operator applications rather than one
/// application per element.
const TREE_LANES: usize = 64;

/// The part `[s, e)` of an invariant array argument.
pub(crate) fn slice_outer(x: &LVal, s: usize, e: usize) -> LVal {
    match &x.v {
        Value::Array(a) => LVal::inv(Value::Array(with_array!(a, y => {
            let mut z = y.clone();
            z.slice_axis_inplace(Axis(0), Slice::from(s..e));
            Element::wrap_array(z)
        }))),
        _ => x.clone(),
    }
}

/// Element `i < len` of an invariant argument (a rep's element is its
/// value; an accumulator is passed whole).
fn element_of(x: &LVal, i: usize) -> LVal {
    match &x.v {
        Value::Array(a) => match ops::element(a, &[i]) {
            Some(s) => LVal::inv(Value::Scalar(s)),
            // Not one-dimensional: a row.
            None => LVal::inv(Value::Array(
                with_array!(a, y => Element::wrap_array(y.clone().index_axis_move(Axis(0), i))),
            )),
        },
        Value::Rep(inner) => LVal::inv((**inner).clone()),
        _ => x.clone(),
    }
}

/// Element `i` along the first own axis of a lifted array.
fn along(x: &LVal, i: usize) -> LVal {
    match &x.v {
        Value::Array(a) => {
            let ax = Axis(count(x.mask));
            LVal::from_array(
                x.mask,
                with_array!(a, y => Element::wrap_array(y.clone().index_axis_move(ax, i))),
            )
        }
        Value::Rep(inner) => LVal {
            mask: x.mask,
            v: (**inner).clone(),
        },
        _ => x.clone(),
    }
}

/// The elements `off, off + 2, ...` (`h` of them) along the first own axis,
/// as a value over the new lane `b`.
fn strided(x: &LVal, off: usize, h: usize, b: usize) -> LVal {
    match &x.v {
        Value::Array(a) => {
            let ax = Axis(count(x.mask));
            let s = Slice::new(off as isize, Some((off + 2 * h - 1) as isize), 2);
            LVal {
                mask: x.mask | bit(b),
                v: Value::Array(with_array!(a, y => {
                    let mut z = y.clone();
                    z.slice_axis_inplace(ax, s);
                    Element::wrap_array(z)
                })),
            }
        }
        _ => x.clone(),
    }
}

/// A map argument as the lambda's parameter over the new lane `b`: the
/// array's outer axis becomes the lane (no copy); a rep is its value.
fn lane_param(x: &LVal, b: usize) -> LVal {
    match &x.v {
        Value::Array(_) => LVal {
            mask: x.mask | bit(b),
            v: x.v.clone(),
        },
        Value::Rep(inner) => LVal {
            mask: x.mask,
            v: (**inner).clone(),
        },
        _ => x.clone(),
    }
}

/// A lambda result over the popped lane `b` (of length `n`) as an array
/// with that lane as its outer axis.
fn unlane(par: Par<'_>, r: LVal, b: usize, n: usize, mem: Budget) -> R<LVal> {
    match &r.v {
        Value::Acc(_) => Ok(r),
        // An array of reps would need the reps' lengths.
        Value::Rep(_) => Err(Fail::rep_length()),
        _ if r.mask & bit(b) != 0 => Ok(LVal {
            mask: r.mask & !bit(b),
            v: r.v,
        }),
        _ => {
            let a = r.array()?;
            Ok(LVal::from_array(
                r.mask,
                insert_axis(par, &a, count(r.mask), n, mem)?,
            ))
        }
    }
}

/// Stacks the per-element results of a map.
fn stack_elements(vals: Vec<Value>, n: usize) -> R<Value> {
    match vals.first() {
        Some(Value::Acc(c)) => return Ok(Value::Acc(c.clone())),
        Some(Value::Rep(_)) => return Err(Fail::rep_length()),
        _ => {}
    }
    if let Some(v) = crate::lanes::stack(&vals, &[n]) {
        return Ok(v);
    }
    let shape = |v: &Value| match v {
        Value::Array(a) => a.shape().to_vec(),
        _ => vec![],
    };
    let first = vals.first().map(shape).unwrap_or_default();
    let other = vals
        .iter()
        .map(shape)
        .find(|s| *s != first)
        .unwrap_or_default();
    Err(Fail::irregular_map(&first, &other))
}

/// A reduction or scan applied one element at a time: the lambdas'
/// analyses, looked up once, and scratch vectors reused at every step.
struct SeqState<'l> {
    op: &'l Lambda,
    op_info: Arc<BodyInfo>,
    pre: Option<(&'l Lambda, Arc<BodyInfo>)>,
    x: Vec<LVal>,
    args: Vec<LVal>,
}

impl<'l> SeqState<'l> {
    fn new(it: &Interp, op: &'l Operator, pre: Option<&'l Lambda>) -> R<SeqState<'l>> {
        Ok(SeqState {
            op: &op.lam,
            op_info: it.body_info(&op.lam.body)?,
            pre: pre
                .map(|l| Ok::<_, Fail>((l, it.body_info(&l.body)?)))
                .transpose()?,
            x: Vec::new(),
            args: Vec::new(),
        })
    }

    /// `acc = op(acc, xs)`.
    fn combine(
        &mut self,
        it: &mut Interp,
        xs: impl Iterator<Item = LVal>,
        acc: &mut Vec<LVal>,
    ) -> R<()> {
        self.args.clear();
        self.args.append(acc);
        self.args.extend(xs);
        it.apply_into(self.op, &self.op_info, self.args.drain(..), acc)
    }

    /// Combines element `i` of the arguments (mapped by the fused map) into
    /// `acc`.
    fn step(&mut self, it: &mut Interp, vals: &[LVal], i: usize, acc: &mut Vec<LVal>) -> R<()> {
        let elems = vals.iter().map(|v| element_of(v, i));
        let mut x = std::mem::take(&mut self.x);
        x.clear();
        match &self.pre {
            Some((l, info)) => it.apply_into(l, info, elems, &mut x)?,
            None => x.extend(elems),
        }
        let r = self.combine(it, x.drain(..), acc);
        self.x = x;
        r
    }
}

impl Interp<'_> {
    /// The common outer length of SOAC arguments (`None` when all are reps
    /// or accumulators).
    fn soac_len(&self, vals: &[impl Borrow<LVal>], what: &str) -> R<Option<usize>> {
        let mut n: Option<usize> = None;
        for x in vals {
            let x = x.borrow();
            let len = match &x.v {
                Value::Array(_) => *x
                    .own_shape()
                    .first()
                    .ok_or_else(|| Fail::internal(format!("{what} over a scalar")))?,
                Value::Rep(_) | Value::Acc(_) => continue,
                Value::Scalar(_) => return Err(Fail::internal(format!("{what} over a scalar"))),
                Value::Device(_) => return Err(Fail::on_device()),
            };
            match n {
                Some(m) if m != len => {
                    return Err(Fail::lengths_differ(what, m, len));
                }
                _ => n = Some(len),
            }
        }
        Ok(n)
    }

    /// Forgets a lambda's parameters (which its body may not have used), so
    /// that they do not keep arrays shared.
    fn clear_params(&mut self, lam: &Lambda) {
        for p in &lam.params {
            self.unbind(*p);
        }
    }

    fn args(&self, vs: &[Var]) -> R<Vec<LVal>> {
        vs.iter().map(|v| self.get(*v).cloned()).collect()
    }

    /// The arguments of an outermost SOAC that register code could run
    /// without copying them out of the environment, with their length:
    /// `None` where it could not (over lanes, per element, reps only, or
    /// empty), and the SOAC takes its general path.
    fn straight_args(&self, vs: &[Var], what: &str) -> R<Option<(ArgRefs<'_>, usize)>> {
        if !self.lanes().is_empty() || !self.bulk() {
            return Ok(None);
        }
        let refs = vs
            .iter()
            .map(|v| self.get(*v))
            .collect::<R<ArgRefs<'_>>>()?;
        Ok(self
            .soac_len(&refs, what)?
            .filter(|&n| n > 0)
            .map(|n| (refs, n)))
    }

    fn atoms(&self, xs: &[Atom]) -> R<Vec<LVal>> {
        xs.iter().map(|a| self.atom(a)).collect()
    }

    // `map`

    pub(crate) fn eval_map(&mut self, stm: &Stm, lam: &Lambda, args: &[Var]) -> R<Vec<LVal>> {
        // Register code needs no chunks: it builds no intermediate arrays.
        if let Some((refs, n)) = self.straight_args(args, "map")?
            && let Some(r) = self.map_straight(lam, &refs, n)?
        {
            return Ok(r);
        }
        let vals = self.args(args)?;
        let Some(n) = self.soac_len(&vals, "map")? else {
            // All arguments are reps: one evaluation gives the value at
            // every index.
            let inner = vals
                .iter()
                .map(|x| match &x.v {
                    Value::Rep(i) => LVal {
                        mask: x.mask,
                        v: (**i).clone(),
                    },
                    _ => x.clone(),
                })
                .collect();
            return self
                .apply(lam, inner)?
                .into_iter()
                .map(|r| match r.v {
                    Value::Acc(_) => Ok(r),
                    v => Ok(LVal {
                        mask: r.mask,
                        v: Value::Rep(Rc::new(v)),
                    }),
                })
                .collect();
        };
        if n == 0 {
            // The body over an empty lane gives the results' inner shapes
            // (`map (scan (+) 0)` of a [0][3] array is [0][3]); where it
            // cannot, the results are empty in every dimension.
            if let Ok(r) = self.map_lanes(lam, &vals, 0) {
                return Ok(r);
            }
            return self.empty_map(stm, lam, &vals);
        }
        if !self.lanes().is_empty() {
            return self.map_lanes(lam, &vals, n);
        }
        if !self.bulk() {
            return Ok(self
                .map_elements(lam, &vals, n)?
                .into_iter()
                .map(LVal::inv)
                .collect());
        }
        Ok(self.run_chunked(ChunkOp::Map(lam), &vals, n, Vec::new())?.0)
    }

    /// A map over no elements: empty arrays, or the accumulators passed
    /// through.
    fn empty_map(&mut self, stm: &Stm, lam: &Lambda, vals: &[LVal]) -> R<Vec<LVal>> {
        stm.pat
            .iter()
            .zip(&lam.body.result)
            .map(|(p, res)| {
                if let Type::Acc(..) = self.prog().vars.ty(*p) {
                    let Atom::Var(v) = res else {
                        return Err(Fail::internal("an accumulator result that is a constant"));
                    };
                    return match lam.params.iter().position(|q| q == v) {
                        Some(k) => Ok(vals[k].clone()),
                        None => self.get(*v).cloned(),
                    };
                }
                Ok(LVal::inv(self.empty_of(*p, &[])?))
            })
            .collect()
    }

    /// The map in bulk over a new lane of length `n`.
    pub(crate) fn map_lanes(&mut self, lam: &Lambda, vals: &[LVal], n: usize) -> R<Vec<LVal>> {
        if self.lanes().is_empty()
            && n > 0
            && let Some(r) = self.map_straight(lam, vals, n)?
        {
            return Ok(r);
        }
        let b = self.push_lane(n)?;
        let args = vals.iter().map(|x| lane_param(x, b)).collect();
        let res = self.apply(lam, args);
        self.pop_lane();
        res?.into_iter()
            .map(|r| unlane(self.par, r, b, n, self.mem()))
            .collect()
    }

    /// An outermost map of a lambda compiled to register code
    /// (`straight.rs`), over arrays and values that vary over no lane;
    /// `None` where it does not apply.
    fn map_straight(
        &self,
        lam: &Lambda,
        vals: &[impl Borrow<LVal>],
        n: usize,
    ) -> R<Option<Vec<LVal>>> {
        if n > straight::MAX_LANES {
            return Ok(None);
        }
        let info = self.body_info(&lam.body)?;
        let Some(code) = &info.straight else {
            let r = self.map_rows_straight(lam, vals, n)?;
            if r.is_some() {
                FastCounts::took(&self.fast.straight_row_maps);
            }
            return Ok(r);
        };
        let mut inputs: SmallVec<[Input; 16]> = SmallVec::with_capacity(code.inputs().len());
        for v in code.inputs() {
            let x = match lam.params.iter().position(|p| p == v) {
                Some(k) => vals[k].borrow(),
                None => self.get(*v)?,
            };
            let input = match (&x.v, x.mask) {
                (Value::Array(a), 0) => Input::Column(a),
                (Value::Scalar(s), 0) => Input::Splat(*s),
                (Value::Rep(r), 0) => match **r {
                    Value::Scalar(s) => Input::Splat(s),
                    _ => return Ok(None),
                },
                _ => return Ok(None),
            };
            inputs.push(input);
        }
        self.check_interrupt()?;
        let stop = self.options().interrupt.as_deref();
        match code.run(self.par, &inputs, n, stop) {
            Some(r) => {
                FastCounts::took(&self.fast.straight_maps);
                Ok(Some(r))
            }
            // Stopped by an interrupt, or an operation failed: the
            // general path reports either.
            None => {
                self.check_interrupt()?;
                Ok(None)
            }
        }
    }

    /// `map (\xs ys -> map f xs ys) xss yss`, whose body maps register
    /// code over its parameters' rows, as that register code over the
    /// rows' elements one after the other (reverse mode adds a weight
    /// matrix's adjoint to another this way, `map2 (map2 (+))`); the
    /// results' rows are the map's. `None` where it does not apply: an
    /// argument that is not an `n`-by-`m` array, or the inner map reading
    /// a parameter other than through its arguments (it varies by row).
    fn map_rows_straight(
        &self,
        lam: &Lambda,
        vals: &[impl Borrow<LVal>],
        n: usize,
    ) -> R<Option<Vec<LVal>>> {
        let [stm] = &lam.body.stms[..] else {
            return Ok(None);
        };
        let Exp::Map { lam: inner, args } = &stm.exp else {
            return Ok(None);
        };
        let results = lam.body.result.iter().map(|a| a.var());
        if lam.body.result.len() != stm.pat.len() || !results.eq(stm.pat.iter().map(|p| Some(*p))) {
            return Ok(None);
        }
        let mut m = None;
        let mut rows = Vec::with_capacity(args.len());
        for a in args {
            let Some(k) = lam.params.iter().position(|p| p == a) else {
                return Ok(None);
            };
            let x = vals[k].borrow();
            let (Value::Array(x), 0) = (&x.v, x.mask) else {
                return Ok(None);
            };
            let &[xn, xm] = x.shape() else {
                return Ok(None);
            };
            if xn != n || xm == 0 || m.is_some_and(|m| m != xm) {
                return Ok(None);
            }
            m = Some(xm);
            rows.push(x);
        }
        let Some(m) = m else { return Ok(None) };
        let info = self.body_info(&inner.body)?;
        let Some(code) = &info.straight else {
            return Ok(None);
        };
        if code.inputs().iter().any(|v| lam.params.contains(v)) {
            return Ok(None);
        }
        let Some(len) = n.checked_mul(m).filter(|&l| l <= straight::MAX_LANES) else {
            return Ok(None);
        };
        let flat = rows
            .into_iter()
            .map(|x| {
                Ok(LVal::inv(Value::Array(ops::reshape(
                    x,
                    0,
                    &[len as i64],
                    self.mem(),
                )?)))
            })
            .collect::<R<Vec<_>>>()?;
        let Some(out) = self.map_straight(inner, &flat, len)? else {
            return Ok(None);
        };
        out.into_iter()
            .map(|r| match r.v {
                Value::Array(a) => Ok(LVal::inv(Value::Array(ops::reshape(
                    &a,
                    0,
                    &[n as i64, m as i64],
                    self.mem(),
                )?))),
                _ => Err(Fail::internal("register code gave a scalar")),
            })
            .collect::<R<_>>()
            .map(Some)
    }

    /// The map one element at a time (where no lane is active).
    pub(crate) fn map_elements(&mut self, lam: &Lambda, vals: &[LVal], n: usize) -> R<Vec<Value>> {
        let info = self.body_info(&lam.body)?;
        let mut res = Vec::with_capacity(lam.body.result.len());
        let mut outs: Vec<Vec<Value>> = (0..lam.body.result.len())
            .map(|_| Vec::with_capacity(n))
            .collect();
        for i in 0..n {
            if i % 1024 == 0 {
                self.check_interrupt()?;
            }
            res.clear();
            self.apply_into(lam, &info, vals.iter().map(|x| element_of(x, i)), &mut res)?;
            for (o, r) in outs.iter_mut().zip(res.drain(..)) {
                o.push(r.v);
            }
        }
        outs.into_iter().map(|vs| stack_elements(vs, n)).collect()
    }
}
