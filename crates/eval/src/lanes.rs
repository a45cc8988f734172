//! Lifted values: one value per *lane*.
//!
//! While a `map` is evaluated in bulk, its lambda body runs once for all
//! elements: the map pushes a lane (a dimension of some length) on the
//! evaluator's lane stack, and every value records the set of lanes it
//! varies over as a bit mask. Its data is an ordinary array whose leading
//! axes are those lanes, in stack order, followed by the shape of the value
//! in one lane (its *own* shape). A value that varies over no lane is an
//! ordinary value. Because a newly pushed lane is always the last one, the
//! outer axis of a map argument *is* the new lane axis, and a map result
//! varying over it *is* the result array: neither needs copying.

use super::error::{Fail, R};
use super::kernels::{self, Dims, Operand, from_vec, row_major};
use super::ops;
use super::threads::Par;
use ndarray::{ArcArray, Axis, IxDyn};
use smallvec::SmallVec;
use std::borrow::Cow;
use std::rc::Rc;
use urchin_base::mem::Budget;
use urchin_prim::dispatch_prim;
use urchin_prim::{PrimType, Scalar};
use urchin_runtime::Raise;
use urchin_runtime::value::{Array, Element, Value};
use urchin_runtime::with_array;

pub type Mask = u64;

/// At most this many lanes can be stacked (one per bit of a mask); deeper
/// nests fall back to per-element evaluation.
pub const MAX_LANES: usize = Mask::BITS as usize;

pub(crate) fn bit(k: usize) -> Mask {
    1 << k
}

/// The lanes in a mask, in stack order (one step per set bit: this runs
/// for every operand of every bulk operation).
pub fn bits(mut m: Mask) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (m != 0).then(|| {
            let k = m.trailing_zeros() as usize;
            m &= m - 1;
            k
        })
    })
}

pub(crate) fn count(m: Mask) -> usize {
    m.count_ones() as usize
}

/// The lengths of the lanes in `m`.
pub fn lane_dims(lanes: &[usize], m: Mask) -> Dims {
    bits(m).map(|k| lanes[k]).collect()
}

/// An axis of a source per dimension of a result (see [`axes_for`]).
pub type Axes = SmallVec<[Option<usize>; 6]>;

/// For each dimension of a value over the lanes `u` followed by `own_rank`
/// own dimensions, the axis of a value over the lanes `m ⊆ u` that runs
/// along it (`None` where it is broadcast). `src_own` is the own rank of
/// the source: 0 broadcasts it over the own dimensions too.
pub fn axes_for(m: Mask, u: Mask, own_rank: usize, src_own: usize) -> Axes {
    let mut out = SmallVec::with_capacity(count(u) + own_rank);
    let mut k = 0;
    for b in bits(u) {
        if m & bit(b) != 0 {
            out.push(Some(k));
            k += 1;
        } else {
            out.push(None);
        }
    }
    for j in 0..own_rank {
        out.push((src_own == own_rank).then_some(k + j));
    }
    out
}

/// A value together with the lanes it varies over. With a non-empty mask,
/// `v` is an `Array` (lane axes first) or a `Rep` whose inner value has the
/// lane axes; accumulators never vary.
#[derive(Clone, Debug)]
pub(crate) struct LVal {
    pub mask: Mask,
    pub v: Value,
}

impl LVal {
    pub fn inv(v: Value) -> LVal {
        LVal { mask: 0, v }
    }

    /// An array over the lanes `mask`; a rank-0 array over no lane becomes
    /// a scalar.
    pub fn from_array(mask: Mask, a: Array) -> LVal {
        if mask == 0 && a.rank() == 0 {
            let s = a.get_flat(0);
            return LVal::inv(Value::Scalar(s));
        }
        LVal {
            mask,
            v: Value::Array(a),
        }
    }

    /// The value if it is an invariant scalar.
    pub fn scalar(&self) -> Option<Scalar> {
        match (&self.v, self.mask) {
            (Value::Scalar(s), 0) => Some(*s),
            _ => None,
        }
    }

    pub fn elem(&self) -> PrimType {
        value_elem(&self.v)
    }

    /// The shape of the value in one lane (for arrays and scalars).
    pub fn own_shape(&self) -> &[usize] {
        match &self.v {
            Value::Array(a) => &a.shape()[count(self.mask)..],
            _ => &[],
        }
    }

    /// The lane data as an array (a scalar becomes a rank-0 array).
    pub fn array(&self) -> R<Array> {
        match &self.v {
            Value::Scalar(s) => Ok(Array::filled(vec![], *s)),
            Value::Array(a) => Ok(a.clone()),
            Value::Rep(_) => Err(Fail::rep_length()),
            Value::Acc(_) => Err(Fail::internal("an accumulator used as an array")),
            Value::Device(_) => Err(Fail::on_device()),
        }
    }
}

pub(crate) fn value_elem(v: &Value) -> PrimType {
    match v {
        Value::Scalar(s) => s.ty(),
        Value::Array(a) => a.elem(),
        Value::Rep(r) => value_elem(r),
        Value::Acc(c) => c.borrow().elem(),
        Value::Device(d) => d.elem(),
    }
}

/// A kernel operand for `lv` over a result with lanes `u` and `own_rank`
/// own dimensions.
pub(crate) fn operand<T: Element>(lv: &LVal, u: Mask, own_rank: usize) -> R<Operand<'_, T>> {
    match &lv.v {
        Value::Scalar(s) => Ok(Operand::scalar_ref(
            T::unwrap_ref(s).ok_or_else(unexpected_operand)?,
            count(u) + own_rank,
        )),
        Value::Array(a) => {
            let (a, axes) = array_axes(lv, a, u, own_rank)?;
            Ok(Operand::new(a, &axes))
        }
        Value::Rep(_) => Err(Fail::rep_length()),
        Value::Acc(_) => Err(unexpected_operand()),
        Value::Device(_) => Err(Fail::on_device()),
    }
}

/// As [`operand`], with an array read where it is if its view walks
/// forwards (`Operand::in_place`); `None` if it does not.
pub(crate) fn operand_in_place<T: Element>(
    lv: &LVal,
    u: Mask,
    own_rank: usize,
) -> R<Option<Operand<'_, T>>> {
    match &lv.v {
        Value::Array(a) => {
            let (a, axes) = array_axes(lv, a, u, own_rank)?;
            Ok(Operand::in_place(a, &axes))
        }
        _ => operand(lv, u, own_rank).map(Some),
    }
}

/// The array `a` of `lv` with elements `T`, and its axis along each
/// dimension of a result with lanes `u` and `own_rank` own dimensions.
fn array_axes<'v, T: Element>(
    lv: &LVal,
    a: &'v Array,
    u: Mask,
    own_rank: usize,
) -> R<(&'v ArcArray<T, IxDyn>, Axes)> {
    let a = T::unwrap_array(a).ok_or_else(unexpected_operand)?;
    let src_own = a.ndim() - count(lv.mask);
    Ok((a, axes_for(lv.mask, u, own_rank, src_own)))
}

fn unexpected_operand() -> Fail {
    Fail::internal("operand of an unexpected type in a bulk operation")
}

/// The elements of an integer value as `i64`, as a kernel operand over the
/// lanes `u` (index operands of gathers and scatters).
pub(crate) fn index_operand(lv: &LVal, u: Mask) -> R<Operand<'_, i64>> {
    fn conv<T: Element>(a: &ArcArray<T, IxDyn>) -> Cow<'_, [i64]> {
        Cow::Owned(
            row_major(a)
                .iter()
                .map(|&x| urchin_prim::native_convert::<T, i64>(x))
                .collect(),
        )
    }
    match &lv.v {
        Value::Scalar(s) if s.ty().is_int() => Ok(Operand::scalar(s.as_i64(), count(u))),
        Value::Array(a) if a.elem().is_int() && a.rank() == count(lv.mask) => {
            let data = match i64::unwrap_array(a) {
                Some(x) => row_major(x),
                None => with_array!(a, x => conv(x)),
            };
            let std = kernels::standard_strides(a.shape());
            let strides = axes_for(lv.mask, u, 0, 0)
                .iter()
                .map(|ax| ax.map_or(0, |k| std[k]))
                .collect();
            Ok(Operand { data, strides })
        }
        _ => Err(Fail::internal("an index that is not an integer")),
    }
}

/// `lv` as an array over exactly the lanes `u ⊇ lv.mask` (copied when it
/// must be broadcast).
pub(crate) fn materialize(
    par: Par<'_>,
    lv: &LVal,
    u: Mask,
    lanes: &[usize],
    mem: Budget,
) -> R<Array> {
    match &lv.v {
        Value::Array(a) if lv.mask == u => Ok(a.clone()),
        Value::Scalar(s) => {
            let shape = lane_dims(lanes, u);
            ops::check_size(mem, &shape, s.ty())?;
            Ok(Array::filled(shape.to_vec(), *s))
        }
        Value::Array(a) => {
            let own = lv.own_shape();
            let mut shape = lane_dims(lanes, u);
            shape.extend_from_slice(own);
            ops::check_size(mem, &shape, a.elem())?;
            let axes = axes_for(lv.mask, u, own.len(), own.len());
            Ok(with_array!(a, x => kernels::copy(par, &shape, &Operand::new(x, &axes))))
        }
        Value::Rep(_) => Err(Fail::rep_length()),
        Value::Acc(_) => Err(Fail::internal("an accumulator used as an array")),
        Value::Device(_) => Err(Fail::on_device()),
    }
}

/// Inserts a new axis of length `n` at `axis` (broadcasting, so copied;
/// the size is checked first).
pub(crate) fn insert_axis(par: Par<'_>, a: &Array, axis: usize, n: usize, mem: Budget) -> R<Array> {
    let mut shape = a.shape().to_vec();
    shape.insert(axis, n);
    ops::check_size(mem, &shape, a.elem())?;
    let axes: Vec<Option<usize>> = (0..shape.len())
        .map(|d| match d.cmp(&axis) {
            std::cmp::Ordering::Less => Some(d),
            std::cmp::Ordering::Equal => None,
            std::cmp::Ordering::Greater => Some(d - 1),
        })
        .collect();
    Ok(with_array!(a, x => kernels::copy(par, &shape, &Operand::new(x, &axes))))
}

/// The row-major offset contribution of lane position `p` (a flat index
/// over `dims`) for an operand with the given per-dimension steps.
pub(crate) fn lane_offset(mut p: usize, dims: &[usize], strides: &[usize]) -> usize {
    let mut off = 0;
    for k in (0..dims.len()).rev() {
        off += (p % dims[k]) * strides[k];
        p /= dims[k];
    }
    off
}

/// The multi-index over `dims` of the flat row-major position `p`.
pub(crate) fn unflatten(mut p: usize, dims: &[usize]) -> Vec<usize> {
    let mut idx = vec![0; dims.len()];
    for k in (0..dims.len()).rev() {
        idx[k] = p % dims[k];
        p /= dims[k];
    }
    idx
}

/// The value of `lv` in one lane: `ubits` are the lanes of a mask that
/// contains `lv.mask`, `multi` the position in each of them.
pub(crate) fn lane_value(lv: &LVal, ubits: &[usize], multi: &[usize]) -> Value {
    fn pick<T: Element>(a: &ArcArray<T, IxDyn>, picks: &[usize]) -> Value {
        let mut y = a.clone();
        for &i in picks {
            y = y.index_axis_move(Axis(0), i);
        }
        if y.ndim() == 0 {
            Value::Scalar(y.iter().next().map_or(Scalar::zero(T::TY), |x| x.wrap()))
        } else {
            Value::Array(T::wrap_array(y))
        }
    }
    if lv.mask == 0 {
        return lv.v.clone();
    }
    let picks: Vec<usize> = bits(lv.mask)
        .map(|b| {
            ubits
                .iter()
                .position(|&u| u == b)
                .map_or(0, |pos| multi[pos])
        })
        .collect();
    match &lv.v {
        Value::Array(a) => with_array!(a, x => pick(x, &picks)),
        Value::Rep(inner) => Value::Rep(Rc::new(lane_value(
            &LVal {
                mask: lv.mask,
                v: (**inner).clone(),
            },
            ubits,
            multi,
        ))),
        other => other.clone(),
    }
}

/// Stacks per-lane values into one value with leading axes `outer`; `None`
/// when they do not all have the same type and shape.
pub(crate) fn stack(vals: &[Value], outer: &[usize]) -> Option<Value> {
    fn scalars<T: Element>(vals: &[Value], outer: &[usize]) -> Option<Value> {
        let v: Vec<T> = vals
            .iter()
            .map(|x| match x {
                Value::Scalar(s) => T::unwrap(*s),
                _ => None,
            })
            .collect::<Option<_>>()?;
        Some(Value::Array(from_vec(outer, v)))
    }
    fn arrays<T: Element>(
        first: &ArcArray<T, IxDyn>,
        vals: &[Value],
        outer: &[usize],
    ) -> Option<Value> {
        let inner = first.shape().to_vec();
        let mut data = Vec::with_capacity(vals.len() * first.len());
        for x in vals {
            let Value::Array(a) = x else { return None };
            let a = T::unwrap_array(a)?;
            if a.shape() != inner.as_slice() {
                return None;
            }
            data.extend(a.iter().copied());
        }
        let mut shape = outer.to_vec();
        shape.extend(inner);
        Some(Value::Array(from_vec(&shape, data)))
    }
    match vals.first()? {
        Value::Scalar(s) => dispatch_prim!(s.ty(), scalars(vals, outer)),
        Value::Array(a) => with_array!(a, x => arrays(x, vals, outer)),
        Value::Rep(_) => {
            let inners: Vec<Value> = vals
                .iter()
                .map(|x| match x {
                    Value::Rep(i) => Some((**i).clone()),
                    _ => None,
                })
                .collect::<Option<_>>()?;
            stack(&inners, outer).map(|v| Value::Rep(Rc::new(v)))
        }
        Value::Acc(c) => vals
            .iter()
            .all(|x| matches!(x, Value::Acc(d) if Rc::ptr_eq(c, d)))
            .then(|| Value::Acc(c.clone())),
        Value::Device(_) => None,
    }
}

/// The rows at flat lane positions `idx` of `lv` viewed over the lanes `r`:
/// an array with one leading axis of length `idx.len()`.
pub(crate) fn gather_rows(lv: &LVal, r: Mask, idx: &[usize], lanes: &[usize]) -> R<Value> {
    fn go<T: Element>(
        a: &ArcArray<T, IxDyn>,
        m: Mask,
        r: Mask,
        idx: &[usize],
        rdims: &[usize],
    ) -> Array {
        let own = &a.shape()[count(m)..];
        let os: usize = own.iter().product();
        let op = Operand::new(a, &axes_for(m, r, own.len(), own.len()));
        let lane_strides = &op.strides[..rdims.len()];
        let mut out = Vec::with_capacity(idx.len() * os);
        for &p in idx {
            let off = lane_offset(p, rdims, lane_strides);
            out.extend_from_slice(&op.data[off..off + os]);
        }
        let mut shape = vec![idx.len()];
        shape.extend_from_slice(own);
        from_vec(&shape, out)
    }
    let rdims = lane_dims(lanes, r);
    match &lv.v {
        _ if lv.mask == 0 => Ok(lv.v.clone()),
        Value::Array(a) => Ok(Value::Array(
            with_array!(a, x => go(x, lv.mask, r, idx, &rdims)),
        )),
        Value::Rep(inner) => {
            let inner = LVal {
                mask: lv.mask,
                v: (**inner).clone(),
            };
            Ok(Value::Rep(Rc::new(gather_rows(&inner, r, idx, lanes)?)))
        }
        other => Ok(other.clone()),
    }
}

/// The result of one side of a partitioned evaluation: either one row per
/// lane of the side, or one value for all of them.
pub(crate) enum Part {
    Rows(Value),
    Same(Value),
}

impl Part {
    fn is_rep(&self) -> bool {
        matches!(self, Part::Rows(Value::Rep(_)) | Part::Same(Value::Rep(_)))
    }

    fn rep_inner(self) -> Part {
        match self {
            Part::Rows(Value::Rep(i)) => Part::Rows((*i).clone()),
            Part::Same(Value::Rep(i)) => Part::Same((*i).clone()),
            other => other,
        }
    }

    /// The own shape of the value (without the row axis).
    fn own_shape(&self) -> Vec<usize> {
        match self {
            Part::Rows(Value::Array(a)) => a.shape()[1..].to_vec(),
            Part::Same(Value::Array(a)) => a.shape().to_vec(),
            _ => vec![],
        }
    }

    /// Replaces a rep by an array of `n` copies of its value.
    fn unrep(self, par: Par<'_>, n: usize, mem: Budget) -> R<Part> {
        Ok(match self {
            Part::Rows(Value::Rep(i)) => match &*i {
                Value::Array(a) => Part::Rows(Value::Array(insert_axis(par, a, 1, n, mem)?)),
                _ => return Err(Fail::internal("rows of scalars in a rep")),
            },
            Part::Same(Value::Rep(i)) => Part::Same(Value::Array(match &*i {
                Value::Scalar(s) => {
                    ops::check_size(mem, &[n], s.ty())?;
                    Array::filled(vec![n], *s)
                }
                Value::Array(a) => insert_axis(par, a, 0, n, mem)?,
                _ => return Err(Fail::rep_length()),
            })),
            other => other,
        })
    }
}

/// Combines the results of the two sides of a partition (lanes `idx` of a
/// flat space of `p` lanes each) into one value of `p` rows. Fails with
/// `Irregular` when the two sides produced values of different shapes.
pub(crate) fn merge_parts(
    par: Par<'_>,
    sides: Vec<(Part, &[usize])>,
    p: usize,
    mem: Budget,
) -> R<Value> {
    if let Some((Part::Same(Value::Acc(c)), _)) = sides.first() {
        return Ok(Value::Acc(c.clone()));
    }
    if sides.iter().all(|(s, _)| s.is_rep()) {
        let inner = sides.into_iter().map(|(s, i)| (s.rep_inner(), i)).collect();
        return Ok(Value::Rep(Rc::new(merge_parts(par, inner, p, mem)?)));
    }
    let len = sides
        .iter()
        .find(|(s, _)| !s.is_rep())
        .and_then(|(s, _)| s.own_shape().first().copied())
        .unwrap_or(0);
    let sides: Vec<(Part, &[usize])> = sides
        .into_iter()
        .map(|(s, i)| Ok((s.unrep(par, len, mem)?, i)))
        .collect::<R<_>>()?;
    let own = sides
        .first()
        .map(|(s, _)| s.own_shape())
        .unwrap_or_default();
    if sides.iter().any(|(s, _)| s.own_shape() != own) {
        return Err(Fail::Irregular);
    }
    let elem = sides.first().map(|(s, _)| match s {
        Part::Rows(v) | Part::Same(v) => value_elem(v),
    });
    let Some(elem) = elem else {
        return Err(Fail::internal("a partition without sides"));
    };
    fn go<T: Element>(sides: &[(Part, &[usize])], p: usize, own: &[usize]) -> R<Array> {
        let os: usize = own.iter().product();
        let mut out = vec![T::default(); p * os];
        let bad = || Fail::internal("branches of different types");
        for (part, idx) in sides {
            match part {
                Part::Rows(Value::Array(a)) => {
                    let data = row_major(T::unwrap_array(a).ok_or_else(bad)?);
                    for (i, &q) in idx.iter().enumerate() {
                        out[q * os..(q + 1) * os].copy_from_slice(&data[i * os..(i + 1) * os]);
                    }
                }
                Part::Same(Value::Scalar(s)) => {
                    let x = T::unwrap(*s).ok_or_else(bad)?;
                    for &q in idx.iter() {
                        out[q] = x;
                    }
                }
                Part::Same(Value::Array(a)) => {
                    let data = row_major(T::unwrap_array(a).ok_or_else(bad)?);
                    for &q in idx.iter() {
                        out[q * os..(q + 1) * os].copy_from_slice(&data);
                    }
                }
                _ => return Err(bad()),
            }
        }
        let mut shape = vec![p];
        shape.extend_from_slice(own);
        Ok(from_vec(&shape, out))
    }
    Ok(Value::Array(dispatch_prim!(elem, go(&sides, p, &own))?))
}
