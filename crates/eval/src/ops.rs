//! Array primitives on values that vary over the same lanes as their
//! operands: each takes the number `nl` of leading lane axes and works on
//! the dimensions after them (with `nl = 0` they are the ordinary
//! operations). Indexing, slicing, transposing and reversing are views of
//! the same data; nothing is copied unless the result needs new elements.

use super::error::{Fail, R};
use super::kernels::from_vec;
use super::threads::Par;
use ndarray::{ArcArray, ArrayBase, Axis, Dimension, Ix3, Ix4, IxDyn, RawData, Slice};
use smallvec::SmallVec;
use urchin_base::mem::Budget;
use urchin_prim::{Native, PrimType, Scalar};
use urchin_runtime::Raise;
use urchin_runtime::index::{Ix, Step};
use urchin_runtime::value::{Array, Element, Value};
use urchin_runtime::with_array;

/// Checks an access against the own shape of an array.
pub(crate) fn check_index(own: &[usize], ix: &[Ix]) -> R<SmallVec<[Step; 4]>> {
    if ix.len() > own.len() {
        return Err(Fail::internal(format!(
            "{} indices for an array of rank {}",
            ix.len(),
            own.len()
        )));
    }
    ix.iter()
        .zip(own)
        .map(|(i, &n)| {
            i.resolve(n)
                .ok_or_else(|| Fail::index_out_of_bounds(ix, own))
        })
        .collect()
}

fn nd_slice(start: usize, count: usize, step: i64) -> Slice {
    let (start, count, step) = (start as isize, count as isize, step as isize);
    if count == 0 {
        Slice::new(0, Some(0), 1)
    } else if step > 0 {
        Slice::new(start, Some(start + (count - 1) * step + 1), step)
    } else {
        // ndarray walks a negative step backwards from the end of the range.
        Slice::new(start + (count - 1) * step, Some(start + 1), step)
    }
}

/// Applies checked indices to the axes after the first `nl`.
pub(crate) fn apply_steps<S: RawData>(
    mut a: ArrayBase<S, IxDyn>,
    nl: usize,
    steps: &[Step],
) -> ArrayBase<S, IxDyn> {
    let mut ax = nl;
    for st in steps {
        match *st {
            Step::Fix(i) => a = a.index_axis_move(Axis(ax), i),
            Step::Slice { start, count, step } => {
                a.slice_axis_inplace(Axis(ax), nd_slice(start, count, step));
                ax += 1;
            }
        }
    }
    a
}

/// `a[steps]` on the own axes: a view of the same data.
pub(crate) fn index(a: &Array, nl: usize, steps: &[Step]) -> Array {
    with_array!(a, x => Element::wrap_array(apply_steps(x.clone(), nl, steps)))
}

/// `a[at]` for indices of the leading axes of an array without lanes
/// (each `None` where it is no integer, a slice): the element, or a view
/// of the same data; `None` where an index is no integer or out of bounds
/// (the checked path takes those).
pub(crate) fn index_fixed(
    a: &Array,
    at: impl ExactSizeIterator<Item = Option<i64>>,
) -> Option<Value> {
    let shape = a.shape();
    if at.len() > shape.len() {
        return None;
    }
    let at: SmallVec<[usize; 4]> = at
        .zip(shape)
        .map(|(k, &n)| usize::try_from(k?).ok().filter(|&k| k < n))
        .collect::<Option<_>>()?;
    if at.len() == shape.len() {
        return element(a, &at).map(Value::Scalar);
    }
    Some(with_array!(a, x => Value::Array(Element::wrap_array(leading_rows(x, &at)))))
}

/// `x[at]` for in-bounds indices of fewer than all of its axes: a view.
/// Through the fixed-rank types where the rank allows, since on `IxDyn`
/// each axis removed rebuilds the shape and the strides (`params[i, 0]`
/// of a rank-4 array: about 780 instructions, against 450 this way). A
/// matrix's row is cheaper on `IxDyn`, which has a shortcut for two axes.
fn leading_rows<T: Clone>(x: &ArcArray<T, IxDyn>, at: &[usize]) -> ArcArray<T, IxDyn> {
    fn fixed<T: Clone, D: Dimension>(x: &ArcArray<T, IxDyn>) -> Option<ArcArray<T, D>> {
        x.clone().into_dimensionality::<D>().ok()
    }
    let row = Axis(0);
    match (x.ndim(), at) {
        (3, &[i]) => fixed::<T, Ix3>(x).map(|y| y.index_axis_move(row, i).into_dyn()),
        (3, &[i, j]) => fixed::<T, Ix3>(x).map(|y| {
            let y = y.index_axis_move(row, i);
            y.index_axis_move(row, j).into_dyn()
        }),
        (4, &[i]) => fixed::<T, Ix4>(x).map(|y| y.index_axis_move(row, i).into_dyn()),
        (4, &[i, j]) => fixed::<T, Ix4>(x).map(|y| {
            let y = y.index_axis_move(row, i);
            y.index_axis_move(row, j).into_dyn()
        }),
        (4, &[i, j, k]) => fixed::<T, Ix4>(x).map(|y| {
            let y = y.index_axis_move(row, i).index_axis_move(row, j);
            y.index_axis_move(row, k).into_dyn()
        }),
        _ => None,
    }
    .unwrap_or_else(|| at.iter().fold(x.clone(), |y, &k| y.index_axis_move(row, k)))
}

/// The element at a full index of an array without lanes.
pub(crate) fn element(a: &Array, idx: &[usize]) -> Option<Scalar> {
    with_array!(a, x => x.get(idx).map(|v| v.wrap()))
}

/// `dst[steps] = src` on the own axes; `src` has the lanes of `dst`. The
/// destination is copied first if it is shared.
pub(crate) fn update(dst: &mut Array, nl: usize, steps: &[Step], src: &Array) -> R<()> {
    fn go<T: Element>(d: &mut ArcArray<T, IxDyn>, nl: usize, steps: &[Step], src: &Array) -> R<()> {
        let s = T::unwrap_array(src)
            .ok_or_else(|| Fail::internal("update with a value of another type"))?;
        let mut view = apply_steps(d.view_mut(), nl, steps);
        if view.shape() != s.shape() {
            return Err(Fail::cannot_write(
                &s.shape()[nl.min(s.ndim())..],
                &view.shape()[nl.min(view.ndim())..],
            ));
        }
        view.assign(s);
        Ok(())
    }
    with_array!(dst, d => go(d, nl, steps, src))
}

/// `dst[idx] = x` at a full index of an array without lanes.
pub(crate) fn set_element(dst: &mut Array, idx: &[usize], x: Scalar) -> R<()> {
    fn go<T: Element>(d: &mut ArcArray<T, IxDyn>, idx: &[usize], x: Scalar) -> R<()> {
        let v =
            T::unwrap(x).ok_or_else(|| Fail::internal("update with a value of another type"))?;
        match d.get_mut(idx) {
            Some(e) => *e = v,
            None => return Err(Fail::internal("unchecked index in an update")),
        }
        Ok(())
    }
    with_array!(dst, d => go(d, idx, x))
}

pub(crate) fn size(n: i64, what: &str) -> R<usize> {
    usize::try_from(n).map_err(|_| Fail::negative_size(n, what))
}

/// Fails unless an array of this shape and element type may be allocated
/// within `mem` (before anything tries to): the evaluator's gate into
/// `urchin_base::mem`.
pub(crate) fn check_size(mem: Budget, shape: &[usize], elem: PrimType) -> R<()> {
    mem.check(shape, elem.bytes())
        .map(drop)
        .map_err(Fail::too_large)
}

pub(crate) fn iota(n: i64, mem: Budget) -> R<Array> {
    let n = usize::try_from(n).map_err(|_| Fail::iota_negative(n))?;
    let mut v = mem.vec_with_capacity::<i64>(n).map_err(Fail::too_large)?;
    v.extend(0..n as i64);
    Ok(from_vec(&[n], v))
}

/// `n` copies of an invariant value.
pub(crate) fn replicate(par: Par<'_>, n: usize, v: &Value, mem: Budget) -> R<Array> {
    let mut shape = vec![n];
    if let Value::Array(a) = v {
        shape.extend_from_slice(a.shape());
    }
    check_size(mem, &shape, super::lanes::value_elem(v))?;
    match v {
        Value::Scalar(s) => Ok(Array::filled(vec![n], *s)),
        Value::Array(a) => super::lanes::insert_axis(par, a, 0, n, mem),
        Value::Rep(_) => Err(Fail::rep_length()),
        Value::Acc(_) => Err(Fail::internal("replicate of an accumulator")),
        Value::Device(_) => Err(Fail::on_device()),
    }
}

/// The array in row-major layout (a copy only when it is not already).
pub(crate) fn standard(a: &Array) -> Array {
    fn go<T: Element>(x: &ArcArray<T, IxDyn>) -> Array {
        if x.is_standard_layout() {
            T::wrap_array(x.clone())
        } else {
            T::wrap_array(x.as_standard_layout().into_owned().into_shared())
        }
    }
    with_array!(a, x => go(x))
}

/// Gives a row-major array a new shape with the same number of elements.
pub(crate) fn with_shape(a: &Array, shape: &[usize]) -> Array {
    fn go<T: Element>(x: &ArcArray<T, IxDyn>, shape: &[usize]) -> Array {
        let x = if x.is_standard_layout() {
            x.clone()
        } else {
            x.as_standard_layout().into_owned().into_shared()
        };
        T::wrap_array(
            x.into_shape_with_order(IxDyn(shape))
                .expect("a row-major array can take any shape with as many elements"),
        )
    }
    with_array!(a, x => go(x, shape))
}

pub(crate) fn reshape(a: &Array, nl: usize, dims: &[i64], mem: Budget) -> R<Array> {
    let dims: Vec<usize> = dims.iter().map(|&d| size(d, "reshape")).collect::<R<_>>()?;
    check_size(mem, &dims, a.elem())?;
    let own = &a.shape()[nl..];
    if dims.iter().product::<usize>() != own.iter().product::<usize>() {
        return Err(Fail::cannot_reshape(own, &dims));
    }
    let mut shape = a.shape()[..nl].to_vec();
    shape.extend(dims);
    Ok(with_shape(a, &shape))
}

pub(crate) fn rearrange(a: &Array, nl: usize, perm: &[u32]) -> R<Array> {
    let own = a.rank() - nl;
    let mut seen = vec![false; own];
    for &p in perm {
        match seen.get_mut(p as usize) {
            Some(s) if !*s => *s = true,
            _ => return Err(Fail::internal("rearrange with an invalid permutation")),
        }
    }
    if perm.len() != own {
        return Err(Fail::internal("rearrange with an invalid permutation"));
    }
    let axes: Vec<usize> = (0..nl)
        .chain(perm.iter().map(|&p| p as usize + nl))
        .collect();
    Ok(with_array!(a, x => Element::wrap_array(x.clone().permuted_axes(IxDyn(&axes)))))
}

fn outer_axis(a: &Array, nl: usize) -> R<usize> {
    if a.rank() > nl {
        Ok(nl)
    } else {
        Err(Fail::internal("an array operation on a scalar"))
    }
}

pub(crate) fn reverse(a: &Array, nl: usize) -> R<Array> {
    let ax = Axis(outer_axis(a, nl)?);
    Ok(with_array!(a, x => {
        let mut y = x.clone();
        y.invert_axis(ax);
        Element::wrap_array(y)
    }))
}

/// Element `i` of the result is element `(i + r) mod n` of `a`.
pub(crate) fn rotate(a: &Array, nl: usize, r: i64) -> R<Array> {
    fn go<T: Element>(x: &ArcArray<T, IxDyn>, ax: Axis, k: usize) -> Array {
        let v = x.view();
        let (lo, hi) = (
            v.slice_axis(ax, Slice::from(k..)),
            v.slice_axis(ax, Slice::from(..k)),
        );
        T::wrap_array(
            ndarray::concatenate(ax, &[lo, hi])
                .expect("the two parts of a rotation have the same other dimensions")
                .into_shared(),
        )
    }
    let ax = outer_axis(a, nl)?;
    let n = a.shape()[ax] as i64;
    if n == 0 {
        return Ok(a.clone());
    }
    let k = r.rem_euclid(n) as usize;
    if k == 0 {
        return Ok(a.clone());
    }
    Ok(with_array!(a, x => go(x, Axis(ax), k)))
}

/// Concatenation along the first own axis; all arrays have the same lanes.
pub(crate) fn concat(arrs: &[Array], nl: usize, mem: Budget) -> R<Array> {
    fn go<T: Element>(arrs: &[Array], ax: Axis) -> R<Array> {
        let views: Vec<_> = arrs
            .iter()
            .map(|a| T::unwrap_array(a).map(|x| x.view()))
            .collect::<Option<_>>()
            .ok_or_else(|| Fail::internal("concatenation of arrays of different types"))?;
        Ok(T::wrap_array(
            ndarray::concatenate(ax, &views)
                .map_err(|_| Fail::internal("concatenation of unchecked shapes"))?
                .into_shared(),
        ))
    }
    let first = arrs
        .first()
        .ok_or_else(|| Fail::internal("concatenation of nothing"))?;
    let ax = outer_axis(first, nl)?;
    for a in arrs {
        if a.rank() != first.rank() || a.shape()[ax + 1..] != first.shape()[ax + 1..] {
            return Err(Fail::cannot_concat(
                &first.shape()[nl..],
                &a.shape()[nl.min(a.rank())..],
            ));
        }
    }
    let mut shape = first.shape().to_vec();
    shape[ax] = arrs
        .iter()
        .try_fold(0usize, |n, a| n.checked_add(a.shape()[ax]))
        .unwrap_or(usize::MAX);
    check_size(mem, &shape, first.elem())?;
    urchin_prim::dispatch_prim!(first.elem(), go(arrs, Axis(ax)))
}

/// The elements of an array literal stacked along a new axis after the
/// lanes; all have the same lanes.
pub(crate) fn stack_at(arrs: &[Array], nl: usize) -> R<Array> {
    fn go<T: Element>(arrs: &[Array], ax: Axis) -> R<Array> {
        let views: Vec<_> = arrs
            .iter()
            .map(|a| T::unwrap_array(a).map(|x| x.view()))
            .collect::<Option<_>>()
            .ok_or_else(|| Fail::internal("array literal of elements of different types"))?;
        // Elements each in one piece of memory, stacked along the first
        // axis, are their elements one after the other: one copy each
        // (`ndarray::stack` took 5,000 instructions for an LSTM's `[h, c']`
        // of 14 elements each).
        if ax.index() == 0
            && let Some(rows) = views
                .iter()
                .map(|v| v.as_slice())
                .collect::<Option<Vec<_>>>()
        {
            let mut shape = vec![views.len()];
            shape.extend_from_slice(views.first().map_or(&[][..], |v| v.shape()));
            return ArcArray::from_shape_vec(IxDyn(&shape), rows.concat())
                .map(T::wrap_array)
                .map_err(|_| Fail::internal("array literal of unchecked shapes"));
        }
        Ok(T::wrap_array(
            ndarray::stack(ax, &views)
                .map_err(|_| Fail::internal("array literal of unchecked shapes"))?
                .into_shared(),
        ))
    }
    let first = arrs
        .first()
        .ok_or_else(|| Fail::internal("empty array literal"))?;
    for a in arrs {
        if a.shape() != first.shape() {
            return Err(Fail::irregular_literal(
                &first.shape()[nl..],
                &a.shape()[nl.min(a.rank())..],
            ));
        }
    }
    urchin_prim::dispatch_prim!(first.elem(), go(arrs, Axis(nl)))
}
