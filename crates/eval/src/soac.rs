//! The SOACs: `map`, `reduce`, `scan`, `hist`, `scatter`, and accumulators.
//!
//! An outermost `map` (one evaluated where no lane is active) runs its
//! lambda in bulk over chunks of its elements, one lane per element. When a
//! chunk meets something irregular, or fails, that chunk is evaluated again
//! one element at a time: bodies are pure, so this is safe, and it gives the
//! error exactly as per-element evaluation reports it. A `map` inside lifted
//! code just pushes another lane. `reduce` and `scan` do the same with their
//! fused map and then combine along the array's axis: natively for
//! recognised operators, otherwise by applying the operator in bulk to
//! whole slices (and, where there are few lanes, in a tree or in blocks).

use super::analysis::{BodyInfo, FastOp};
use super::blocks::{BLOCK, Blocks};
use super::chunks::ChunkOp;
use super::error::{Fail, R};
use super::gemm::{self, Gemm};
use super::interp::{Interp, LaneCursor};
use super::kernels::{
    self, Operand, fast_call, fast_supported, fold_into, fold_rows, from_vec, hist_into, row_major,
    scan_into, scan_rows,
};
use super::lanes::{
    LVal, Mask, bit, count, index_operand, insert_axis, lane_dims, materialize, operand,
    operand_in_place,
};
use super::ops;
use super::straight::{self, Input};
use ndarray::{ArcArray, Axis, IxDyn, Slice};
use smallvec::SmallVec;
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;
use urchin_core::ir::{Atom, Exp, Lambda, Operator, Stm, Type, Var};
use urchin_prim::{BinOp, Scalar};
use urchin_runtime::Raise;
use urchin_runtime::index::Step;
use urchin_runtime::value::{AccCell, Array, Element, Value};
use urchin_runtime::with_array;

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
fn unlane(r: LVal, b: usize, n: usize) -> R<LVal> {
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
            Ok(LVal::from_array(r.mask, insert_axis(&a, count(r.mask), n)?))
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
    if let Some(v) = super::lanes::stack(&vals, &[n]) {
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

/// A rep argument of a reduction, as an array of `n` copies.
fn unrep_arg(x: &LVal, n: usize) -> R<LVal> {
    match &x.v {
        Value::Rep(inner) => {
            let inner = LVal {
                mask: x.mask,
                v: (**inner).clone(),
            };
            let a = inner.array()?;
            Ok(LVal::from_array(x.mask, insert_axis(&a, count(x.mask), n)?))
        }
        _ => Ok(x.clone()),
    }
}

/// `x` (own shape `[n]`) folded along its axis with a recognised operator,
/// for each lane; `None` if the operator does not apply to its type.
/// The sums of products of `x`'s and `y`'s rows over lanes `u` as matrix
/// products (`gemm::sum_products`), reading both where they are; `None`
/// where the lanes are not those of a product.
fn gemm_lanes<T: Gemm>(
    (rows, n): (&[usize], usize),
    (x, y, u): (&LVal, &LVal, Mask),
) -> R<Option<Array>> {
    fn read<T: Element>(v: &LVal, u: Mask) -> R<Operand<'_, T>> {
        match operand_in_place::<T>(v, u, 1)? {
            Some(o) => Ok(o),
            None => operand::<T>(v, u, 1),
        }
    }
    let (a, b) = (read::<T>(x, u)?, read::<T>(y, u)?);
    Ok(gemm::sum_products(rows, n, &a, &b).map(|v| from_vec(rows, v)))
}

fn fold_lanes(f: FastOp, x: &LVal, init: Scalar, lanes: &[usize]) -> Option<LVal> {
    fn go<T: Element>(
        f: FastOp,
        a: &Array,
        m: Mask,
        init: Scalar,
        lanes: &[usize],
    ) -> Option<Array> {
        let x = T::unwrap_array(a)?;
        let init = T::unwrap(init)?;
        if !fast_supported::<T>(f) {
            return None;
        }
        let data = row_major(x);
        let n = *x.shape().last()?;
        let dims = lane_dims(lanes, m);
        let rows = dims.iter().product();
        let out = fast_call!(f, T, fold_rows(&data, rows, n, init));
        Some(from_vec(&dims, out))
    }
    let Value::Array(a) = &x.v else { return None };
    let r = urchin_prim::dispatch_prim!(a.elem(), go(f, a, x.mask, init, lanes))?;
    Some(LVal::from_array(x.mask, r))
}

/// Inclusive scan of `x` (own shape `[n]`) with a recognised operator.
fn scan_lanes_fast(f: FastOp, x: &LVal, init: Scalar) -> Option<LVal> {
    fn go<T: Element>(f: FastOp, a: &Array, init: Scalar) -> Option<Array> {
        let x = T::unwrap_array(a)?;
        let init = T::unwrap(init)?;
        if !fast_supported::<T>(f) {
            return None;
        }
        let data = row_major(x);
        let n = *x.shape().last()?;
        let out = fast_call!(f, T, scan_rows(&data, n, init));
        Some(from_vec(x.shape(), out))
    }
    let Value::Array(a) = &x.v else { return None };
    let r = urchin_prim::dispatch_prim!(a.elem(), go(f, a, init))?;
    Some(LVal::from_array(x.mask, r))
}

/// Folds an invariant one-dimensional array into `acc`.
pub(crate) fn fold_all(f: FastOp, x: &LVal, acc: Scalar) -> Option<Scalar> {
    fn go<T: Element>(f: FastOp, a: &Array, acc: Scalar) -> Option<Scalar> {
        let x = T::unwrap_array(a)?;
        let mut acc = T::unwrap(acc)?;
        if !fast_supported::<T>(f) {
            return None;
        }
        // Element by element, a view (a `reverse`) would cost an index
        // increment over dynamic dimensions per element: copied instead.
        let s = row_major(x);
        fast_call!(f, T, fold_into(&mut acc, s.iter()));
        Some(acc.wrap())
    }
    let Value::Array(a) = &x.v else { return None };
    urchin_prim::dispatch_prim!(a.elem(), go(f, a, acc))
}

/// The folds, each from `ne`, of the consecutive blocks of [`BLOCK`]
/// elements of the one-dimensional array `xs` (the last may be shorter),
/// natively: a one-dimensional array of them; `None` where the
/// interpreter must apply the operator. The same steps as `fold_all` on
/// each block.
pub(crate) fn fold_blocks(op: &Operator, xs: &[LVal], ne: &[LVal]) -> Option<LVal> {
    fn go<T: Element>(f: FastOp, a: &Array, init: Scalar) -> Option<Array> {
        let x = T::unwrap_array(a)?;
        let init = T::unwrap(init)?;
        if !fast_supported::<T>(f) {
            return None;
        }
        // The whole blocks are rows of `BLOCK`, folded side by side.
        let x = x.as_slice()?;
        let whole = x.len() / BLOCK;
        let (rows, last) = x.split_at(whole * BLOCK);
        let mut folds = fast_call!(f, T, fold_rows(rows, whole, BLOCK, init));
        if !last.is_empty() {
            let mut acc = init;
            fast_call!(f, T, fold_into(&mut acc, last.iter()));
            folds.push(acc);
        }
        Some(from_vec(&[folds.len()], folds))
    }
    let (f, x, init) = fast_input(op, xs, ne)?;
    let Value::Array(a) = &x.v else { return None };
    let folds = urchin_prim::dispatch_prim!(a.elem(), go(f, a, init))?;
    Some(LVal::inv(Value::Array(folds)))
}

/// Of a sum of one binary operation's results, `reduce (+) z (map (\x y
/// -> x op y) xs ys)` (a dot product, a sum of squares), over a run of
/// elements starting at a block boundary: the folds of its blocks, made
/// from the arguments `xs` (the run's slices) without storing the mapped
/// elements. The same steps as `fold_blocks` on the mapped elements, so
/// the same bits. `None` where it does not apply.
pub(crate) fn fused_sum_blocks(
    op: &Operator,
    pre: &Lambda,
    xs: &[LVal],
    ne: &[LVal],
) -> Option<LVal> {
    fn go<T: Element>(g: BinOp, x: &Array, y: &Array, z: Scalar) -> Option<Array> {
        let (x, y) = (
            T::unwrap_array(x)?.as_slice()?,
            T::unwrap_array(y)?.as_slice()?,
        );
        let z = T::unwrap(z)?;
        let n = x.len();
        if y.len() != n || n == 0 {
            return None;
        }
        // The run as rows of a block, and the shorter last block.
        fn rows<T: Clone>(from: usize, v: &[T]) -> Operand<'_, T> {
            Operand {
                data: std::borrow::Cow::Borrowed(&v[from..]),
                strides: smallvec::smallvec![BLOCK, 1],
            }
        }
        let whole = n / BLOCK;
        let mut folds = if whole > 0 {
            kernels::sum_binop_rows(g, (&[whole], BLOCK), &rows(0, x), &rows(0, y), z)?
        } else {
            Vec::new()
        };
        let last = whole * BLOCK;
        if last < n {
            let (a, b) = (rows(last, x), rows(last, y));
            folds.extend(kernels::sum_binop_rows(g, (&[1], n - last), &a, &b, z)?);
        }
        Some(from_vec(&[folds.len()], folds))
    }
    let (g, i, j) = summed_binop(op, pre)?;
    let [z] = ne else { return None };
    // Invariant one-dimensional arrays of the reduction's type.
    let array = |k: usize| match xs.get(k) {
        Some(LVal {
            mask: 0,
            v: Value::Array(a),
        }) if a.rank() == 1 => Some(a),
        _ => None,
    };
    let (x, y, z) = (array(i)?, array(j)?, z.scalar()?);
    if x.elem() != z.ty() || y.elem() != z.ty() {
        return None;
    }
    let folds = urchin_prim::dispatch_prim!(z.ty(), go(g, x, y, z))?;
    Some(LVal::inv(Value::Array(folds)))
}

/// For `reduce (+) z (map pre ...)` with `pre` one binary operation on
/// its parameters: that operation and its operands' positions (what
/// `fused_sum_blocks` folds from the arguments).
pub(crate) fn summed_binop(op: &Operator, pre: &Lambda) -> Option<(BinOp, usize, usize)> {
    let f = op.native_binop()?;
    (f.op == BinOp::Add && !f.swapped)
        .then(|| pre.as_binop_of_params())
        .flatten()
}

/// `a op x` for a recognised operator on scalars, natively (the same
/// function as `fold_all` applies at each step); `None` where the
/// interpreter must apply the operator.
pub(crate) fn combine_native(op: &Operator, a: &[LVal], x: &[LVal]) -> Option<LVal> {
    fn go<T: Element>(f: FastOp, a: Scalar, x: Scalar) -> Option<Scalar> {
        let mut acc = T::unwrap(a)?;
        let x = T::unwrap(x)?;
        if !fast_supported::<T>(f) {
            return None;
        }
        fast_call!(f, T, fold_into(&mut acc, std::iter::once(&x)));
        Some(acc.wrap())
    }
    let f = op.native_binop()?;
    let ([a], [x]) = (a, x) else { return None };
    let (a, x) = (a.scalar()?, x.scalar()?);
    let r = urchin_prim::dispatch_prim!(a.ty(), go(f, a, x))?;
    Some(LVal::inv(Value::Scalar(r)))
}

/// Scans an invariant one-dimensional array continuing from `acc`.
fn scan_all(f: FastOp, x: &LVal, acc: Scalar) -> Option<(Array, Scalar)> {
    fn go<T: Element>(f: FastOp, a: &Array, acc: Scalar) -> Option<(Array, Scalar)> {
        let x = T::unwrap_array(a)?;
        let mut acc = T::unwrap(acc)?;
        if !fast_supported::<T>(f) {
            return None;
        }
        let mut out = Vec::with_capacity(x.len());
        // As `fold_all` reads a view.
        let s = row_major(x);
        fast_call!(f, T, scan_into(&mut acc, s.iter(), &mut out));
        Some((from_vec(&[out.len()], out), acc.wrap()))
    }
    let Value::Array(a) = &x.v else { return None };
    urchin_prim::dispatch_prim!(a.elem(), go(f, a, acc))
}

/// The one recognised-operator input of a reduction, if it qualifies.
fn fast_input<'a>(
    op: &Operator,
    xs: &'a [LVal],
    ne: &[LVal],
) -> Option<(FastOp, &'a LVal, Scalar)> {
    let f = op.native_binop()?;
    match (xs, ne) {
        ([x], [n]) if x.own_shape().len() == 1 && matches!(x.v, Value::Array(_)) => {
            Some((f, x, n.scalar()?))
        }
        _ => None,
    }
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
    fn soac_len(&self, vals: &[LVal], what: &str) -> R<Option<usize>> {
        let mut n: Option<usize> = None;
        for x in vals {
            let len = match &x.v {
                Value::Array(_) => *x
                    .own_shape()
                    .first()
                    .ok_or_else(|| Fail::internal(format!("{what} over a scalar")))?,
                Value::Rep(_) | Value::Acc(_) => continue,
                Value::Scalar(_) => return Err(Fail::internal(format!("{what} over a scalar"))),
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

    fn atoms(&self, xs: &[Atom]) -> R<Vec<LVal>> {
        xs.iter().map(|a| self.atom(a)).collect()
    }

    // ----- map -----

    pub(crate) fn eval_map(&mut self, stm: &Stm, lam: &Lambda, args: &[Var]) -> R<Vec<LVal>> {
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
        // Register code needs no chunks: it builds no intermediate arrays.
        if let Some(r) = self.map_straight(lam, &vals, n)? {
            return Ok(r);
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
        res?.into_iter().map(|r| unlane(r, b, n)).collect()
    }

    /// An outermost map of a lambda compiled to register code
    /// (`straight.rs`), over arrays and values that vary over no lane;
    /// `None` where it does not apply.
    fn map_straight(&self, lam: &Lambda, vals: &[LVal], n: usize) -> R<Option<Vec<LVal>>> {
        if n > straight::MAX_LANES {
            return Ok(None);
        }
        let info = self.body_info(&lam.body)?;
        let Some(code) = &info.straight else {
            return self.map_rows_straight(lam, vals, n);
        };
        let mut inputs: SmallVec<[Input; 16]> = SmallVec::with_capacity(code.inputs().len());
        for v in code.inputs() {
            let x = match lam.params.iter().position(|p| p == v) {
                Some(k) => &vals[k],
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
        match code.run(&inputs, n, stop) {
            Some(r) => Ok(Some(r)),
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
    fn map_rows_straight(&self, lam: &Lambda, vals: &[LVal], n: usize) -> R<Option<Vec<LVal>>> {
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
            let (Value::Array(x), 0) = (&vals[k].v, vals[k].mask) else {
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
            .map(|x| Ok(LVal::inv(Value::Array(ops::reshape(x, 0, &[len as i64])?))))
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

    // ----- reduce -----

    pub(crate) fn eval_reduce(
        &mut self,
        op: &Operator,
        pre: Option<&Lambda>,
        args: &[Var],
    ) -> R<Vec<LVal>> {
        let vals = self.args(args)?;
        let ne = self.atoms(&op.neutral)?;
        let n = self
            .soac_len(&vals, "reduce")?
            .ok_or_else(Fail::rep_length)?;
        if n == 0 {
            return Ok(ne);
        }
        if !self.lanes().is_empty() {
            if let Some(r) = self.sum_lanes(op, pre, &vals, &ne, n)? {
                return Ok(vec![r]);
            }
            let xs = self.soac_inputs(pre, &vals, n)?;
            return self.reduce_lanes(op, ne, xs, n);
        }
        if !self.bulk() {
            let mut b = Blocks::new(ne);
            self.reduce_elements(op, pre, &vals, n, &mut b)?;
            return b.finish(self, op);
        }
        if let Some(r) = self.reduce_block(op, pre, &vals, &ne, n)? {
            return Ok(vec![r]);
        }
        Ok(self.run_chunked(ChunkOp::Reduce(op, pre), &vals, n, ne)?.1)
    }

    /// An outermost reduction of less than a block (`blocks::BLOCK`) of
    /// numbers with a native operator, of an array or of a map run as
    /// register code (`map_straight`): its left fold from the neutral
    /// element, the order `blocks.rs` gives one block, without the chunk
    /// driver (a `logsumexp` over 14 features spent 9,000 instructions in
    /// it per reduction). `None` where it does not apply.
    fn reduce_block(
        &self,
        op: &Operator,
        pre: Option<&Lambda>,
        vals: &[LVal],
        ne: &[LVal],
        n: usize,
    ) -> R<Option<LVal>> {
        if n >= BLOCK || op.native_binop().is_none() {
            return Ok(None);
        }
        let mapped;
        let xs = match pre {
            None => vals,
            Some(lam) => match self.map_straight(lam, vals, n)? {
                Some(xs) => {
                    mapped = xs;
                    &mapped[..]
                }
                None => return Ok(None),
            },
        };
        Ok(fast_input(op, xs, ne)
            .and_then(|(f, x, init)| fold_all(f, x, init))
            .map(|r| LVal::inv(Value::Scalar(r))))
    }

    /// The elements a reduction combines: the fused map's results, or the
    /// arguments.
    pub(crate) fn soac_inputs(
        &mut self,
        pre: Option<&Lambda>,
        vals: &[LVal],
        n: usize,
    ) -> R<Vec<LVal>> {
        match pre {
            Some(l) => self.map_lanes(l, vals, n),
            None => vals.iter().map(|x| unrep_arg(x, n)).collect(),
        }
    }

    /// `reduce (+) z (map2 (op) xs ys)` over lanes, for `op` one total
    /// arithmetic operation (a dot product, for `*`): the elements are
    /// summed as they are made (`kernels::sum_binop_rows`), never stored.
    /// `None` where it does not apply.
    fn sum_lanes(
        &self,
        op: &Operator,
        pre: Option<&Lambda>,
        vals: &[LVal],
        ne: &[LVal],
        n: usize,
    ) -> R<Option<LVal>> {
        fn go<T: Element>(
            op: BinOp,
            (rows, n): (&[usize], usize),
            (x, y, u): (&LVal, &LVal, Mask),
            z: Scalar,
        ) -> R<Option<Array>> {
            // A transposed operand is read in place where the kernel then
            // reads its rows side by side; otherwise it is copied, so that
            // each row is contiguous.
            let (a, b) = match (
                operand_in_place::<T>(x, u, 1)?,
                operand_in_place::<T>(y, u, 1)?,
            ) {
                (Some(a), Some(b)) if kernels::reads_adjacent_rows(rows, &a, &b) => (a, b),
                _ => (operand::<T>(x, u, 1)?, operand::<T>(y, u, 1)?),
            };
            let Some(z) = T::unwrap(z) else {
                return Ok(None);
            };
            Ok(kernels::sum_binop_rows(op, (rows, n), &a, &b, z).map(|v| from_vec(rows, v)))
        }
        let (Some(pre), [x, y], [z]) = (pre, vals, ne) else {
            return Ok(None);
        };
        let (Some(f), Some(g), Some(z)) = (op.native_binop(), pre.as_binop(), z.scalar()) else {
            return Ok(None);
        };
        if !self.bulk() || f.op != BinOp::Add || f.swapped {
            return Ok(None);
        }
        // Each argument's elements: an array's rows, or a rep's value.
        let elements = |x: &LVal| match &x.v {
            Value::Array(_) if x.own_shape() == [n] => Some(x.clone()),
            Value::Rep(inner) if matches!(**inner, Value::Scalar(_) | Value::Array(_)) => {
                let v = LVal {
                    mask: x.mask,
                    v: (**inner).clone(),
                };
                v.own_shape().is_empty().then_some(v)
            }
            _ => None,
        };
        let (Some(x), Some(y)) = (elements(x), elements(y)) else {
            return Ok(None);
        };
        let (x, y) = if g.swapped { (y, x) } else { (x, y) };
        let t = x.elem();
        if y.elem() != t || z.ty() != t {
            return Ok(None);
        }
        let u = x.mask | y.mask;
        let rows = lane_dims(self.lanes(), u);
        // A sum of products from `+0` whose operands vary over different
        // lanes is a matrix product (`gemm.rs`).
        if g.op == BinOp::Mul {
            let r = match z {
                Scalar::F64(z) if z.to_bits() == 0 => gemm_lanes::<f64>((&rows, n), (&x, &y, u))?,
                Scalar::F32(z) if z.to_bits() == 0 => gemm_lanes::<f32>((&rows, n), (&x, &y, u))?,
                _ => None,
            };
            if let Some(a) = r {
                return Ok(Some(LVal::from_array(u, a)));
            }
        }
        let r = urchin_prim::dispatch_prim!(t, go(g.op, (&rows, n), (&x, &y, u), z))?;
        Ok(r.map(|a| LVal::from_array(u, a)))
    }

    /// Reduces lifted arrays along their first own axis.
    fn reduce_lanes(
        &mut self,
        op: &Operator,
        ne: Vec<LVal>,
        xs: Vec<LVal>,
        n: usize,
    ) -> R<Vec<LVal>> {
        if self.bulk()
            && let Some((f, x, init)) = fast_input(op, &xs, &ne)
            && let Some(r) = fold_lanes(f, x, init, self.lanes())
        {
            return Ok(vec![r]);
        }
        let u = xs.iter().fold(0, |m, x| m | x.mask);
        let p: usize = lane_dims(self.lanes(), u).iter().product();
        if self.bulk() && p < TREE_LANES && n > TREE_LANES {
            let mut args = ne;
            args.extend(self.reduce_tree(op, xs, n)?);
            return self.apply(&op.lam, args);
        }
        let mut b = Blocks::new(ne);
        let mut st = SeqState::new(self, op, None)?;
        for i in 0..n {
            self.check_interrupt()?;
            b.at_element(self, op)?;
            st.combine(self, xs.iter().map(|x| along(x, i)), &mut b.open)?;
            b.advance(1);
        }
        b.finish(self, op)
    }

    /// Combines `n >= 1` elements pairwise, level by level, each level one
    /// bulk application of the operator (in order, so only associativity
    /// is assumed).
    fn reduce_tree(&mut self, op: &Operator, xs: Vec<LVal>, n: usize) -> R<Vec<LVal>> {
        let mut cur = xs;
        let mut len = n;
        while len > 1 {
            self.check_interrupt()?;
            let h = len / 2;
            let b = self.push_lane(h)?;
            let mut args: Vec<LVal> = cur.iter().map(|x| strided(x, 0, h, b)).collect();
            args.extend(cur.iter().map(|x| strided(x, 1, h, b)));
            let res = self.apply(&op.lam, args);
            self.pop_lane();
            let res: Vec<LVal> = res?
                .into_iter()
                .map(|r| unlane(r, b, h))
                .collect::<R<_>>()?;
            cur = if len % 2 == 1 {
                res.iter()
                    .zip(&cur)
                    .map(|(r, x)| self.append_last(r, x, len))
                    .collect::<R<_>>()?
            } else {
                res
            };
            len = h + len % 2;
        }
        Ok(cur.iter().map(|x| along(x, 0)).collect())
    }

    /// `r` followed by the last element of `x` (of length `len`).
    fn append_last(&self, r: &LVal, x: &LVal, len: usize) -> R<LVal> {
        let last = match &x.v {
            Value::Array(a) => {
                let ax = Axis(count(x.mask));
                LVal {
                    mask: x.mask,
                    v: Value::Array(with_array!(a, y => {
                        let mut z = y.clone();
                        z.slice_axis_inplace(ax, Slice::from(len - 1..len));
                        Element::wrap_array(z)
                    })),
                }
            }
            _ => return Err(Fail::internal("a reduction over a non-array")),
        };
        let u = r.mask | last.mask;
        let arrs = [
            materialize(r, u, self.lanes())?,
            materialize(&last, u, self.lanes())?,
        ];
        Ok(LVal::from_array(u, ops::concat(&arrs, count(u))?))
    }

    /// Folds the `n` elements of `vals` (mapped by `pre`) into `b`, one at
    /// a time.
    pub(crate) fn reduce_elements(
        &mut self,
        op: &Operator,
        pre: Option<&Lambda>,
        vals: &[LVal],
        n: usize,
        b: &mut Blocks,
    ) -> R<()> {
        let mut st = SeqState::new(self, op, pre)?;
        for i in 0..n {
            if i % 1024 == 0 {
                self.check_interrupt()?;
            }
            b.at_element(self, op)?;
            st.step(self, vals, i, &mut b.open)?;
            b.advance(1);
        }
        Ok(())
    }

    /// Folds the `c` invariant elements `xs` of a chunk into `b` in bulk,
    /// a piece between block boundaries at a time.
    pub(crate) fn reduce_pieces(
        &mut self,
        op: &Operator,
        xs: Vec<LVal>,
        c: usize,
        b: &mut Blocks,
    ) -> R<()> {
        let slice = |lo: usize, k: usize| -> Vec<LVal> {
            if k == c {
                xs.clone()
            } else {
                xs.iter().map(|x| slice_outer(x, lo, lo + k)).collect()
            }
        };
        let mut lo = 0;
        for run in b.runs(c) {
            let folds = run
                .whole
                .then(|| fold_blocks(op, &slice(lo, run.len), b.neutral()))
                .flatten();
            if let Some(folds) = folds {
                b.put_folds(self, op, &folds, run.len)?;
                lo += run.len;
                continue;
            }
            // One block (or piece of one) at a time: a run of whole blocks
            // is folded block by block, as every reduction is.
            for k in b.pieces(run.len) {
                b.at_element(self, op)?;
                b.open = self.reduce_chunk(op, slice(lo, k), k, &b.open)?;
                b.advance(k);
                lo += k;
            }
        }
        Ok(())
    }

    /// Reduces the `c` invariant elements `xs` of a chunk in bulk,
    /// continuing from `acc` (within one block).
    pub(crate) fn reduce_chunk(
        &mut self,
        op: &Operator,
        xs: Vec<LVal>,
        c: usize,
        acc: &[LVal],
    ) -> R<Vec<LVal>> {
        if let Some((f, x, init)) = fast_input(op, &xs, acc)
            && let Some(r) = fold_all(f, x, init)
        {
            return Ok(vec![LVal::inv(Value::Scalar(r))]);
        }
        let mut args = acc.to_vec();
        args.extend(self.reduce_tree(op, xs, c)?);
        self.apply(&op.lam, args)
    }

    // ----- scan -----

    pub(crate) fn eval_scan(
        &mut self,
        stm: &Stm,
        op: &Operator,
        pre: Option<&Lambda>,
        args: &[Var],
    ) -> R<Vec<LVal>> {
        let vals = self.args(args)?;
        let ne = self.atoms(&op.neutral)?;
        let n = self.soac_len(&vals, "scan")?.ok_or_else(Fail::rep_length)?;
        if n == 0 {
            // No rows, each of the neutral element's shape (`scan (map2
            // (+)) (replicate 3 0) xss` of no rows is `empty([0][3]f64)`).
            return stm
                .pat
                .iter()
                .zip(&ne)
                .map(|(p, z)| {
                    let elem = self.prog().vars.ty(*p).elem();
                    let mut shape = vec![0];
                    shape.extend_from_slice(z.own_shape());
                    ops::check_size(&shape, elem)?;
                    Ok(LVal::inv(Value::Array(Array::filled(
                        shape,
                        Scalar::zero(elem),
                    ))))
                })
                .collect();
        }
        if !self.lanes().is_empty() {
            let xs = self.soac_inputs(pre, &vals, n)?;
            return self.scan_lanes(op, ne, xs, n);
        }
        if !self.bulk() {
            return Ok(self.scan_elements(op, pre, &vals, n, ne)?.0);
        }
        Ok(self.run_chunked(ChunkOp::Scan(op, pre), &vals, n, ne)?.0)
    }

    /// Stacks the successive accumulators of a scan along a new first own
    /// axis.
    fn stack_steps(&self, steps: &[LVal]) -> R<LVal> {
        let u = steps.iter().fold(0, |m, x| m | x.mask);
        let arrs: Vec<Array> = steps
            .iter()
            .map(|x| materialize(x, u, self.lanes()))
            .collect::<R<_>>()?;
        Ok(LVal::from_array(u, ops::stack_at(&arrs, count(u))?))
    }

    fn scan_lanes(
        &mut self,
        op: &Operator,
        ne: Vec<LVal>,
        xs: Vec<LVal>,
        n: usize,
    ) -> R<Vec<LVal>> {
        if self.bulk()
            && let Some((f, x, init)) = fast_input(op, &xs, &ne)
            && let Some(r) = scan_lanes_fast(f, x, init)
        {
            return Ok(vec![r]);
        }
        let k = ne.len();
        let mut steps: Vec<Vec<LVal>> = vec![Vec::with_capacity(n); k];
        let mut acc = ne;
        let mut st = SeqState::new(self, op, None)?;
        for i in 0..n {
            self.check_interrupt()?;
            st.combine(self, xs.iter().map(|x| along(x, i)), &mut acc)?;
            for (s, a) in steps.iter_mut().zip(&acc) {
                s.push(a.clone());
            }
        }
        steps.iter().map(|s| self.stack_steps(s)).collect()
    }

    /// A scan one element at a time: the results and the final accumulator.
    pub(crate) fn scan_elements(
        &mut self,
        op: &Operator,
        pre: Option<&Lambda>,
        vals: &[LVal],
        n: usize,
        mut acc: Vec<LVal>,
    ) -> R<(Vec<LVal>, Vec<LVal>)> {
        let mut outs: Vec<Vec<Value>> = (0..acc.len()).map(|_| Vec::with_capacity(n)).collect();
        let mut st = SeqState::new(self, op, pre)?;
        for i in 0..n {
            if i % 1024 == 0 {
                self.check_interrupt()?;
            }
            st.step(self, vals, i, &mut acc)?;
            for (o, a) in outs.iter_mut().zip(&acc) {
                o.push(a.v.clone());
            }
        }
        let outs = outs
            .into_iter()
            .map(|vs| stack_elements(vs, n).map(LVal::inv))
            .collect::<R<_>>()?;
        Ok((outs, acc))
    }

    /// Scans the `c` invariant elements `xs` of a chunk in bulk, continuing
    /// from `acc`: the rows, and the accumulator after the last.
    pub(crate) fn scan_chunk(
        &mut self,
        op: &Operator,
        xs: Vec<LVal>,
        c: usize,
        acc: &[LVal],
    ) -> R<(Vec<LVal>, Vec<LVal>)> {
        if let Some((f, x, init)) = fast_input(op, &xs, acc)
            && let Some((out, last)) = scan_all(f, x, init)
        {
            return Ok((
                vec![LVal::inv(Value::Array(out))],
                vec![LVal::inv(Value::Scalar(last))],
            ));
        }
        self.scan_blocked(op, xs, c, acc.to_vec())
    }

    /// A scan of `c` invariant elements with a general operator, continuing
    /// from `acc`: the elements are cut into blocks that are scanned side
    /// by side (one bulk application per position in a block), the block
    /// totals are scanned, and one more bulk application adds each block's
    /// prefix. The leftover elements are scanned one by one.
    fn scan_blocked(
        &mut self,
        op: &Operator,
        xs: Vec<LVal>,
        c: usize,
        acc: Vec<LVal>,
    ) -> R<(Vec<LVal>, Vec<LVal>)> {
        let s = (c as f64).sqrt().ceil() as usize;
        let nb = c / s.max(1);
        if nb < 2 {
            return self.scan_elements(op, None, &xs, c, acc);
        }
        let body = nb * s;
        // Local scans of the blocks, side by side over a lane of blocks.
        let b = self.push_lane(nb)?;
        let local = self.scan_blocks_locally(op, &xs, b, nb, s);
        self.pop_lane();
        let local = local?;
        // The prefix of each block: the scan of the block totals.
        let mut prefix: Vec<Vec<Value>> = vec![Vec::with_capacity(nb); acc.len()];
        let mut carry = acc;
        for q in 0..nb {
            for (p, a) in prefix.iter_mut().zip(&carry) {
                p.push(a.v.clone());
            }
            carry.extend(local.iter().map(|l| {
                let row = element_of(&LVal::inv(Value::Array(l.clone())), q);
                element_of(&row, s - 1)
            }));
            carry = self.apply(&op.lam, carry)?;
        }
        let prefix: Vec<Value> = prefix
            .into_iter()
            .map(|p| stack_elements(p, nb))
            .collect::<R<_>>()?;
        // Each block's prefix combined with its local scan.
        let b1 = self.push_lane(nb)?;
        let combined = match self.push_lane(s) {
            Ok(b2) => {
                let mut args: Vec<LVal> = prefix
                    .into_iter()
                    .map(|p| LVal {
                        mask: bit(b1),
                        v: p,
                    })
                    .collect();
                args.extend(local.into_iter().map(|l| LVal {
                    mask: bit(b1) | bit(b2),
                    v: Value::Array(l),
                }));
                let r = self.apply(&op.lam, args).and_then(|r| {
                    r.iter()
                        .map(|x| materialize(x, bit(b1) | bit(b2), self.lanes()))
                        .collect::<R<Vec<Array>>>()
                });
                self.pop_lane();
                r
            }
            Err(e) => Err(e),
        };
        self.pop_lane();
        let combined = combined?;
        let mut outs: Vec<Array> = combined
            .iter()
            .map(|a| {
                let mut shape = vec![body];
                shape.extend_from_slice(&a.shape()[2..]);
                ops::with_shape(a, &shape)
            })
            .collect();
        if body < c {
            let tail: Vec<LVal> = xs.iter().map(|x| slice_outer(x, body, c)).collect();
            let (touts, last) = self.scan_elements(op, None, &tail, c - body, carry)?;
            for (o, t) in outs.iter_mut().zip(touts) {
                let t = t.array()?;
                *o = ops::concat(&[o.clone(), t], 0)?;
            }
            carry = last;
        }
        Ok((
            outs.into_iter()
                .map(|a| LVal::inv(Value::Array(a)))
                .collect(),
            carry,
        ))
    }

    /// The inclusive scans of `nb` blocks of `s` elements each, as arrays of
    /// shape `[nb, s, ...]`; `b` is the lane of blocks.
    fn scan_blocks_locally(
        &mut self,
        op: &Operator,
        xs: &[LVal],
        b: usize,
        nb: usize,
        s: usize,
    ) -> R<Vec<Array>> {
        let blocks: Vec<LVal> = xs
            .iter()
            .map(|x| {
                let part = slice_outer(x, 0, nb * s).array()?;
                let mut shape = vec![nb, s];
                shape.extend_from_slice(&part.shape()[1..]);
                Ok(LVal {
                    mask: bit(b),
                    v: Value::Array(ops::with_shape(&part, &shape)),
                })
            })
            .collect::<R<_>>()?;
        let mut steps: Vec<Vec<LVal>> = vec![Vec::with_capacity(s); xs.len()];
        let mut loc: Option<Vec<LVal>> = None;
        for j in 0..s {
            self.check_interrupt()?;
            let xj: Vec<LVal> = blocks.iter().map(|x| along(x, j)).collect();
            let next = match loc.take() {
                None => xj,
                Some(mut l) => {
                    l.extend(xj);
                    self.apply(&op.lam, l)?
                }
            };
            for (st, a) in steps.iter_mut().zip(&next) {
                st.push(a.clone());
            }
            loc = Some(next);
        }
        steps
            .iter()
            .map(|st| {
                let arrs: Vec<Array> = st
                    .iter()
                    .map(|x| materialize(x, bit(b), self.lanes()))
                    .collect::<R<_>>()?;
                ops::stack_at(&arrs, 1)
            })
            .collect()
    }

    // ----- hist and scatter -----

    fn take_dests(&mut self, dest: &[Var], moves: &[Var]) -> R<Vec<Array>> {
        dest.iter()
            .map(|v| match self.take_var(*v, moves)?.v {
                Value::Array(a) => Ok(a),
                Value::Rep(_) => Err(Fail::rep_length()),
                _ => Err(Fail::internal("a destination that is not an array")),
            })
            .collect()
    }

    pub(crate) fn eval_hist(
        &mut self,
        stm: &Stm,
        si: &super::analysis::StmInfo,
        op: &Operator,
        dest: &[Var],
        indices: Var,
        values: &[Var],
    ) -> R<Vec<LVal>> {
        if self.varies(&si.uses) {
            return self.per_lane(stm, si);
        }
        let is = self.get(indices)?.clone();
        let vs = self.args(values)?;
        let mut all = vec![is.clone()];
        all.extend(vs.iter().cloned());
        let n = self
            .soac_len(&all, "reduce_by_index")?
            .ok_or_else(Fail::rep_length)?;
        let mut dests = self.take_dests(dest, &si.moves)?;
        if self.bulk()
            && let Some(f) = op.native_binop()
            && let ([d], [v]) = (&mut dests[..], &vs[..])
            && d.rank() == 1
            && let (Value::Array(ia), Value::Array(va)) = (&is.v, &v.v)
            && va.rank() == 1
            && hist_fast(f, d, ia, va)
        {
            return Ok(dests
                .into_iter()
                .map(|d| LVal::inv(Value::Array(d)))
                .collect());
        }
        for i in 0..n {
            if i % 1024 == 0 {
                self.check_interrupt()?;
            }
            let Some(b) = element_of(&is, i).scalar() else {
                return Err(Fail::internal("a histogram index that is not a scalar"));
            };
            let Some(b) = usize::try_from(b.as_i64())
                .ok()
                .filter(|&b| dests.iter().all(|d| b < d.len()))
            else {
                continue;
            };
            let mut args: Vec<LVal> = dests
                .iter()
                .map(|d| element_of(&LVal::inv(Value::Array(d.clone())), b))
                .collect();
            args.extend(vs.iter().map(|v| element_of(v, i)));
            let r = self.apply(&op.lam, args)?;
            self.clear_params(&op.lam);
            for (d, x) in dests.iter_mut().zip(r) {
                write(d, &[b], &x)?;
            }
        }
        Ok(dests
            .into_iter()
            .map(|d| LVal::inv(Value::Array(d)))
            .collect())
    }

    pub(crate) fn eval_scatter(
        &mut self,
        stm: &Stm,
        si: &super::analysis::StmInfo,
        dest: &[Var],
        indices: &[Var],
        values: &[Var],
    ) -> R<Vec<LVal>> {
        if self.varies(&si.uses) {
            return self.per_lane(stm, si);
        }
        let is = self.args(indices)?;
        let vs = self.args(values)?;
        if vs.len() != dest.len() {
            return Err(Fail::internal(
                "scatter with as many value arrays as destinations",
            ));
        }
        let mut all = is.clone();
        all.extend(vs.iter().cloned());
        let n = self
            .soac_len(&all, "scatter")?
            .ok_or_else(Fail::rep_length)?;
        let mut dests = self.take_dests(dest, &si.moves)?;
        let idx: Vec<Vec<i64>> = is
            .iter()
            .map(|x| {
                if let Value::Array(Array::I64(a)) = &x.v
                    && a.ndim() == 1
                {
                    return Ok(row_major(a).into_owned());
                }
                (0..n)
                    .map(|i| {
                        element_of(x, i)
                            .scalar()
                            .map(|s| s.as_i64())
                            .ok_or_else(|| Fail::internal("a scatter index that is not a scalar"))
                    })
                    .collect()
            })
            .collect::<R<_>>()?;
        for (d, v) in dests.iter_mut().zip(&vs) {
            if idx.len() > d.rank() {
                return Err(Fail::internal("scatter with more indices than dimensions"));
            }
            if let ([is], Value::Array(va)) = (&idx[..], &v.v)
                && scatter_fast(d, is, va)
            {
                continue;
            }
            for i in 0..n {
                if i % 4096 == 0 {
                    self.check_interrupt()?;
                }
                let shape = d.shape();
                let Some(at) = idx
                    .iter()
                    .zip(shape)
                    .map(|(is, &m)| usize::try_from(is[i]).ok().filter(|&k| k < m))
                    .collect::<Option<Vec<usize>>>()
                else {
                    continue;
                };
                write(d, &at, &element_of(v, i))?;
            }
        }
        Ok(dests
            .into_iter()
            .map(|d| LVal::inv(Value::Array(d)))
            .collect())
    }

    // ----- accumulators -----

    pub(crate) fn eval_with_acc(
        &mut self,
        stm: &Stm,
        si: &super::analysis::StmInfo,
        arrays: &[Var],
        lam: &Lambda,
    ) -> R<Vec<LVal>> {
        let outer_accs = si
            .uses
            .iter()
            .any(|v| self.get(*v).is_ok_and(|x| matches!(x.v, Value::Acc(_))));
        if outer_accs && self.active() != 0 {
            // Updates of outer accumulators happen once in every lane.
            return self.per_lane_over(stm, si, self.active());
        }
        if self.varies(&si.uses) {
            return self.per_lane(stm, si);
        }
        let k = arrays.len();
        if lam.params.len() != k {
            return Err(Fail::internal(
                "with_acc whose lambda does not take one accumulator per array",
            ));
        }
        let cells: Vec<AccCell> = self
            .take_dests(arrays, &si.moves)?
            .iter()
            .map(|a| Rc::new(RefCell::new(ops::standard(a))))
            .collect();
        let args = cells
            .iter()
            .map(|c| LVal::inv(Value::Acc(c.clone())))
            .collect();
        // The lambda runs once for all lanes, so its own accumulators are
        // updated once.
        let res = self.with_active(0, |me| me.apply(lam, args))?;
        self.clear_params(lam);
        self.flush_acc_log(Some(&cells))?;
        let others: Vec<LVal> = res.into_iter().skip(k).collect();
        let mut out: Vec<LVal> = cells
            .into_iter()
            .map(|c| {
                let a = match Rc::try_unwrap(c) {
                    Ok(cell) => cell.into_inner(),
                    Err(shared) => shared.borrow().clone(),
                };
                LVal::inv(Value::Array(a))
            })
            .collect();
        out.extend(others);
        Ok(out)
    }

    /// `upd acc indices value` in every active lane: applied at once where
    /// no lane is active, logged otherwise (see `Interp::acc_log`).
    pub(crate) fn eval_upd_acc(&mut self, acc: Var, indices: &[Atom], value: &Atom) -> R<LVal> {
        let a = self.get(acc)?.clone();
        let Value::Acc(cell) = &a.v else {
            return Err(Fail::internal(
                "upd on something that is not an accumulator",
            ));
        };
        let idx = self.atoms(indices)?;
        let x = self.atom(value)?;
        let u = idx.iter().fold(self.active() | x.mask, |m, i| m | i.mask);
        let udims = lane_dims(self.lanes(), u);
        let n: usize = udims.iter().product();
        let flat_idx = idx
            .iter()
            .map(|i| {
                let op = index_operand(i, u)?;
                let mut cur = LaneCursor::new(&udims, vec![op.strides.to_vec()]);
                Ok((0..n)
                    .map(|_| {
                        let k = op.data[cur.offs[0]];
                        cur.advance();
                        k
                    })
                    .collect())
            })
            .collect::<R<Vec<Vec<i64>>>>()?;
        let v = materialize(&x, u, self.lanes())?;
        let mut shape = vec![n];
        shape.extend_from_slice(&v.shape()[udims.len()..]);
        let up = AccUpdate {
            cell: cell.clone(),
            indices: flat_idx,
            values: ops::with_shape(&v, &shape),
        };
        if self.lanes().is_empty() {
            up.apply()?;
        } else {
            self.log_acc_update(up);
        }
        Ok(a)
    }
}

/// Additions to an accumulator: row `q` of `values` is added at the index
/// made of element `q` of each of `indices` (ignored when out of range).
pub(crate) struct AccUpdate {
    cell: AccCell,
    indices: Vec<Vec<i64>>,
    values: Array,
}

/// An [`AccUpdate`] that crosses threads: the position of its accumulator
/// in a list both threads know, instead of the cell.
pub(crate) struct SentUpdate {
    acc: usize,
    indices: Vec<Vec<i64>>,
    values: Array,
}

impl SentUpdate {
    /// The update of `cells[acc]`.
    pub(crate) fn attach(self, cells: &[AccCell]) -> R<AccUpdate> {
        Ok(AccUpdate {
            cell: cells
                .get(self.acc)
                .ok_or_else(|| Fail::internal("an update of an unknown accumulator"))?
                .clone(),
            indices: self.indices,
            values: self.values,
        })
    }
}

impl AccUpdate {
    /// The update as one of `cells` (by position), if it updates one.
    pub(crate) fn detach(self, cells: &[AccCell]) -> Option<SentUpdate> {
        Some(SentUpdate {
            acc: cells.iter().position(|c| Rc::ptr_eq(c, &self.cell))?,
            indices: self.indices,
            values: self.values,
        })
    }

    /// Whether this updates one of `cells`.
    pub(crate) fn updates_any(&self, cells: &[AccCell]) -> bool {
        cells.iter().any(|c| Rc::ptr_eq(c, &self.cell))
    }

    pub(crate) fn apply(&self) -> R<()> {
        let mut arr = self.cell.borrow_mut();
        with_array!(&mut *arr, d => add_rows(d, &self.indices, &self.values))
    }
}

/// `d[at] = x` (an element or a row).
fn write(d: &mut Array, at: &[usize], x: &LVal) -> R<()> {
    if let Some(s) = x.scalar()
        && at.len() == d.rank()
    {
        return ops::set_element(d, at, s);
    }
    let steps: Vec<Step> = at.iter().map(|&i| Step::Fix(i)).collect();
    ops::update(d, 0, &steps, &x.array()?)
}

/// A histogram with a recognised operator; `false` if it does not apply.
fn hist_fast(f: FastOp, d: &mut Array, is: &Array, vs: &Array) -> bool {
    fn go<T: Element>(f: FastOp, d: &mut Array, is: &[i64], vs: &Array) -> bool {
        let (Some(vs), true) = (T::unwrap_array(vs), fast_supported::<T>(f)) else {
            return false;
        };
        let Some(dst) = d_slice::<T>(d) else {
            return false;
        };
        let vs = row_major(vs);
        fast_call!(f, T, hist_into(dst, is, &vs));
        true
    }
    let is: Vec<i64> = match is {
        Array::I64(a) => row_major(a).into_owned(),
        a if a.elem().is_int() => a.to_scalars().iter().map(|s| s.as_i64()).collect(),
        _ => return false,
    };
    urchin_prim::dispatch_prim!(d.elem(), go(f, d, &is, vs))
}

/// A scatter of the elements of a one-dimensional array into a
/// one-dimensional destination of their type, in a native loop (in order,
/// as the general path writes); `false` if it does not apply. The general
/// path costs a boxed value per element: the radix sort of the general
/// `hist` rule's gradient scatters once per bit.
fn scatter_fast(d: &mut Array, is: &[i64], vs: &Array) -> bool {
    fn go<T: Element>(d: &mut Array, is: &[i64], vs: &Array) -> bool {
        let Some(vs) = T::unwrap_array(vs).filter(|v| v.ndim() == 1) else {
            return false;
        };
        let Some(dst) = d_slice::<T>(d) else {
            return false;
        };
        for (&i, &x) in is.iter().zip(row_major(vs).iter()) {
            if let Some(slot) = usize::try_from(i).ok().and_then(|i| dst.get_mut(i)) {
                *slot = x;
            }
        }
        true
    }
    d.rank() == 1 && urchin_prim::dispatch_prim!(d.elem(), go(d, is, vs))
}

/// The elements of an array of type `T`, row-major and unshared, for
/// writing in place.
fn d_slice<T: Element>(d: &mut Array) -> Option<&mut [T]> {
    let x = T::unwrap_array_mut(d)?;
    if !x.is_standard_layout() {
        *x = x.as_standard_layout().into_owned().into_shared();
    }
    x.as_slice_mut()
}

/// `d[indices[.][q]] += values[q]` for every row `q` whose index is in
/// range.
fn add_rows<T: Element>(d: &mut ArcArray<T, IxDyn>, indices: &[Vec<i64>], values: &Array) -> R<()> {
    if !d.is_standard_layout() {
        *d = d.as_standard_layout().into_owned().into_shared();
    }
    let own = d.shape().to_vec();
    let j = indices.len();
    if j > own.len() {
        return Err(Fail::internal("too many indices for an accumulator"));
    }
    let rest = &own[j..];
    if values.shape()[1..] != *rest {
        return Err(Fail::cannot_accumulate(&values.shape()[1..], rest));
    }
    let vals = row_major(
        T::unwrap_array(values)
            .ok_or_else(|| Fail::internal("upd with a value of another type"))?,
    );
    let own_strides = kernels::standard_strides(&own);
    let rs: usize = rest.iter().product();
    let n = values.len();
    let data = d
        .as_slice_mut()
        .ok_or_else(|| Fail::internal("an accumulator that is not row-major"))?;
    'rows: for q in 0..n {
        let mut off = 0;
        for (k, is) in indices.iter().enumerate() {
            match usize::try_from(is[q]) {
                Ok(i) if i < own[k] => off += i * own_strides[k],
                _ => continue 'rows,
            }
        }
        for e in 0..rs {
            data[off + e] = data[off + e].add(vals[q * rs + e]);
        }
    }
    Ok(())
}
