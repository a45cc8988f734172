//! Reductions and scans with a recognised operator, natively: along
//! lanes, in blocks, and the matrix products among sums of products.

use crate::analysis::FastOp;
use crate::blocks::BLOCK;
use crate::error::R;
use crate::gemm::{self, Gemm};
use crate::kernels::{
    self, Operand, fast_call, fast_supported, fold_into, fold_rows, from_vec, row_major, scan_into,
    scan_rows,
};
use crate::lanes::{LVal, Mask, lane_dims, operand, operand_in_place};
use crate::threads::Par;
use ndarray::{ArcArray, Ix1, IxDyn};
use urchin_core::ir::{Lambda, Operator};
use urchin_prim::{BinOp, Scalar};
use urchin_runtime::value::{Array, Element, Value};

/// The sums of products of `x`'s and `y`'s rows over lanes `u` as matrix
/// products (`gemm::sum_products`), reading both where they are; `None`
/// where the lanes are not those of a product.
pub(super) fn gemm_lanes<T: Gemm>(
    par: Par<'_>,
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
    Ok(gemm::sum_products(par, rows, n, &a, &b).map(|v| from_vec(rows, v)))
}

/// `a`'s elements and `init` as `T`s, where `f` runs natively on `T`.
fn native<T: Element>(f: FastOp, a: &Array, init: Scalar) -> Option<(&ArcArray<T, IxDyn>, T)> {
    if !fast_supported::<T>(f) {
        return None;
    }
    Some((T::unwrap_array(a)?, T::unwrap(init)?))
}

/// `x` (own shape `[n]`) folded along its axis with a recognised operator,
/// for each lane; `None` if the operator does not apply to its type.
pub(super) fn fold_lanes(
    par: Par<'_>,
    f: FastOp,
    x: &LVal,
    init: Scalar,
    lanes: &[usize],
) -> Option<LVal> {
    fn go<T: Element>(
        par: Par<'_>,
        f: FastOp,
        a: &Array,
        m: Mask,
        init: Scalar,
        lanes: &[usize],
    ) -> Option<Array> {
        let (x, init) = native::<T>(f, a, init)?;
        let data = row_major(x);
        let n = *x.shape().last()?;
        let dims = lane_dims(lanes, m);
        let rows = dims.iter().product();
        let out = fast_call!(f, T, fold_rows(par, &data, rows, n, init));
        Some(from_vec(&dims, out))
    }
    let Value::Array(a) = &x.v else { return None };
    let r = urchin_prim::dispatch_prim!(a.elem(), go(par, f, a, x.mask, init, lanes))?;
    Some(LVal::from_array(x.mask, r))
}

/// Inclusive scan of `x` (own shape `[n]`) with a recognised operator.
pub(super) fn scan_lanes_fast(f: FastOp, x: &LVal, init: Scalar) -> Option<LVal> {
    fn go<T: Element>(f: FastOp, a: &Array, init: Scalar) -> Option<Array> {
        let (x, init) = native::<T>(f, a, init)?;
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
        let (x, mut acc) = native::<T>(f, a, acc)?;
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
pub(crate) fn fold_blocks(par: Par<'_>, op: &Operator, xs: &[LVal], ne: &[LVal]) -> Option<LVal> {
    fn go<T: Element>(par: Par<'_>, f: FastOp, a: &Array, init: Scalar) -> Option<Array> {
        let (x, init) = native::<T>(f, a, init)?;
        // The whole blocks are rows of `BLOCK`, folded side by side.
        let x = x.as_slice()?;
        let whole = x.len() / BLOCK;
        let (rows, last) = x.split_at(whole * BLOCK);
        let mut folds = fast_call!(f, T, fold_rows(par, rows, whole, BLOCK, init));
        if !last.is_empty() {
            let mut acc = init;
            fast_call!(f, T, fold_into(&mut acc, last.iter()));
            folds.push(acc);
        }
        Some(from_vec(&[folds.len()], folds))
    }
    let (f, x, init) = fast_input(op, xs, ne)?;
    let Value::Array(a) = &x.v else { return None };
    let folds = urchin_prim::dispatch_prim!(a.elem(), go(par, f, a, init))?;
    Some(LVal::inv(Value::Array(folds)))
}

/// Of a sum of one binary operation's results, `reduce (+) z (map (\x y
/// -> x op y) xs ys)` (a dot product, a sum of squares), over a run of
/// elements starting at a block boundary: the folds of its blocks, made
/// from the arguments `xs` (the run's slices) without storing the mapped
/// elements. The same steps as `fold_blocks` on the mapped elements, so
/// the same bits. `None` where it does not apply.
pub(crate) fn fused_sum_blocks(
    par: Par<'_>,
    op: &Operator,
    pre: &Lambda,
    xs: &[LVal],
    ne: &[LVal],
) -> Option<LVal> {
    fn go<T: Element>(
        par: Par<'_>,
        g: (BinOp, bool),
        x: &Array,
        y: &Array,
        z: Scalar,
    ) -> Option<Array> {
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
            kernels::sum_binop_rows(par, g, (&[whole], BLOCK), &rows(0, x), &rows(0, y), z)?
        } else {
            Vec::new()
        };
        let last = whole * BLOCK;
        if last < n {
            let (a, b) = (rows(last, x), rows(last, y));
            folds.extend(kernels::sum_binop_rows(
                par,
                g,
                (&[1], n - last),
                &a,
                &b,
                z,
            )?);
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
    let folds = urchin_prim::dispatch_prim!(z.ty(), go(par, g, x, y, z))?;
    Some(LVal::inv(Value::Array(folds)))
}

/// For `reduce (+) z (map pre ...)` with `pre` one binary operation on
/// its parameters, or the square of a difference of two (`(x - y) * (x -
/// y)`, whether `squared`): that operation and its operands' positions
/// (what `fused_sum_blocks` folds from the arguments).
pub(crate) fn summed_binop(op: &Operator, pre: &Lambda) -> Option<((BinOp, bool), usize, usize)> {
    let f = op.native_binop()?;
    if f.op != BinOp::Add || f.swapped {
        return None;
    }
    if let Some((g, i, j)) = pre.as_binop_of_params() {
        return Some(((g, false), i, j));
    }
    let g = pre.as_squared_binop().filter(|g| g.op == BinOp::Sub)?;
    let (i, j) = if g.swapped { (1, 0) } else { (0, 1) };
    Some(((g.op, true), i, j))
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
pub(super) fn scan_all(f: FastOp, x: &LVal, acc: Scalar) -> Option<(Array, Scalar)> {
    fn go<T: Element>(f: FastOp, a: &Array, acc: Scalar) -> Option<(Array, Scalar)> {
        let (x, mut acc) = native::<T>(f, a, acc)?;
        // In place, in order, however strided (a reversed array: the
        // adjoint of a scan scans its cotangent backwards), where a copy
        // in row-major order took as long as the scan.
        let x = x.view().into_dimensionality::<Ix1>().ok()?;
        let mut out = Vec::with_capacity(x.len());
        fast_call!(f, T, scan_into(&mut acc, x, &mut out));
        Some((from_vec(&[out.len()], out), acc.wrap()))
    }
    let Value::Array(a) = &x.v else { return None };
    urchin_prim::dispatch_prim!(a.elem(), go(f, a, acc))
}

/// The one recognised-operator input of a reduction, if it qualifies.
pub(super) fn fast_input<'a>(
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
