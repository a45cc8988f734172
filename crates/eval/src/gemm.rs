//! Contractions as matrix multiplies.
//!
//! Inside a map nest, `f64.sum (map2 (*) r c)` whose operands vary over
//! different lanes is a matrix product:
//! `map (\r -> map (\c -> f64.sum (r * c)) (transpose b)) a` has lanes
//! `[i, j]`, `r` varying over `i` and `c` over `j`. The same shape comes from a matrix times each of many
//! vectors, from reverse mode's `Aᵀ ȳ` inside a map, and from the sums of
//! outer products `core::contract` makes. Folding each element's dot
//! product (`kernels::fold_map2_rows`) reads every operand element once
//! per element of the result; a blocked GEMM (the `matrixmultiply` crate,
//! which `ndarray` uses) keeps blocks of both in cache and uses the
//! processor's vector units, several times faster from a few thousand
//! products on.
//!
//! The bits: each element is the sum of its products in order, in blocks
//! of the crate's fixed depth (256), with fused multiply-adds where the
//! processor has them, whatever its position in the result. So results do
//! not depend on the thread count or on how the work is split (by rows of
//! the result, here), but they may differ in the last places from the
//! same sum evaluated one element at a time (a left fold of rounded
//! products, [`super::blocks`]); see `eval`'s module documentation.

use super::kernels::{Dims, Operand, standard_strides};
use super::threads::Par;
use urchin_runtime::value::Element;

/// Products below which the dot-product kernel is as fast: packing the
/// blocks costs about as much as a small product.
const MIN_PRODUCTS: usize = 1 << 12;

/// Products per piece of work given to a thread: a hand-off costs tens of
/// microseconds, a piece this large a few hundred.
const THREAD_PRODUCTS: usize = 1 << 20;

/// The element types with a GEMM.
pub trait Gemm: Element {
    /// `C ← A B` for `A: m × k`, `B: k × n`, `C: m × n`, each given by a
    /// pointer to its first element and its row and column steps.
    ///
    /// # Safety
    /// Every element the steps reach lies in live memory, `C`'s
    /// elements in memory that nothing else reads or writes meanwhile.
    #[allow(clippy::too_many_arguments)]
    unsafe fn gemm(
        dims: (usize, usize, usize),
        a: (*const Self, isize, isize),
        b: (*const Self, isize, isize),
        c: (*mut Self, isize, isize),
    );
}

impl Gemm for f64 {
    unsafe fn gemm(
        (m, k, n): (usize, usize, usize),
        a: (*const f64, isize, isize),
        b: (*const f64, isize, isize),
        c: (*mut f64, isize, isize),
    ) {
        // SAFETY: as the caller promises.
        unsafe {
            matrixmultiply::dgemm(
                m, k, n, 1.0, a.0, a.1, a.2, b.0, b.1, b.2, 0.0, c.0, c.1, c.2,
            )
        }
    }
}

impl Gemm for f32 {
    unsafe fn gemm(
        (m, k, n): (usize, usize, usize),
        a: (*const f32, isize, isize),
        b: (*const f32, isize, isize),
        c: (*mut f32, isize, isize),
    ) {
        // SAFETY: as the caller promises.
        unsafe {
            matrixmultiply::sgemm(
                m, k, n, 1.0, a.0, a.1, a.2, b.0, b.1, b.2, 0.0, c.0, c.1, c.2,
            )
        }
    }
}

/// How a sum of products over lanes is a batch of matrix products: the
/// dimension of the result `a` alone varies over (rows of `A`), the one
/// `b` alone varies over (columns of `B`), and those both vary over.
struct Plan {
    m_dim: usize,
    n_dim: usize,
    batch: Dims,
}

impl Plan {
    fn of<T: Copy>(rows: &[usize], a: &Operand<T>, b: &Operand<T>) -> Option<Plan> {
        let (mut m_dim, mut n_dim, mut batch) = (None, None, Dims::new());
        for (d, &len) in rows.iter().enumerate() {
            if len <= 1 {
                continue;
            }
            let slot = match (a.strides[d] != 0, b.strides[d] != 0) {
                (true, true) => {
                    batch.push(d);
                    continue;
                }
                (true, false) => &mut m_dim,
                (false, true) => &mut n_dim,
                (false, false) => return None,
            };
            if slot.replace(d).is_some() {
                return None;
            }
        }
        Some(Plan {
            m_dim: m_dim?,
            n_dim: n_dim?,
            batch,
        })
    }
}

/// For every row of a result of shape `rows ++ [k]`, the sum of the
/// products of `a`'s and `b`'s elements along the row, as matrix
/// products; `None` where the lanes are not those of a matrix product
/// (one dimension varying in `a` alone, one in `b` alone, the rest in
/// both) or it is too small to gain.
pub fn sum_products<T: Gemm>(
    par: Par<'_>,
    rows: &[usize],
    k: usize,
    a: &Operand<T>,
    b: &Operand<T>,
) -> Option<Vec<T>> {
    let plan = Plan::of(rows, a, b)?;
    let (m, n) = (rows[plan.m_dim], rows[plan.n_dim]);
    let products = m.checked_mul(n)?.checked_mul(k)?;
    if k == 0 || products < MIN_PRODUCTS {
        return None;
    }
    let len: usize = rows.iter().product();
    // Not zeroed: with β = 0 the crate writes every element of `C`
    // without reading it, and the pieces below cover every element (every
    // matrix of the batch, every row); zeroing 64,000 elements first was
    // a pass over the result as long as copying it.
    let mut out: Vec<T> = Vec::with_capacity(len);
    let c_steps = standard_strides(rows);
    let step = |s: usize| isize::try_from(s).ok();
    let r = rows.len();
    let (ta, tb) = (step(a.strides[r])?, step(b.strides[r])?);
    let (rsa, csb) = (step(a.strides[plan.m_dim])?, step(b.strides[plan.n_dim])?);
    let (rsc, csc) = (step(c_steps[plan.m_dim])?, step(c_steps[plan.n_dim])?);
    // The offsets of each matrix of the batch in `a`, `b` and the result.
    let batches: usize = plan.batch.iter().map(|&d| rows[d]).product();
    let offsets = |mut i: usize| {
        let (mut oa, mut ob, mut oc) = (0, 0, 0);
        for &d in plan.batch.iter().rev() {
            let x = i % rows[d];
            i /= rows[d];
            oa += x * a.strides[d];
            ob += x * b.strides[d];
            oc += x * c_steps[d];
        }
        (oa, ob, oc)
    };
    // Pieces of rows of `A`, a whole number of the crate's row blocks (64).
    let rows_per_piece = (THREAD_PRODUCTS / (n * k).max(1))
        .next_multiple_of(64)
        .max(64);
    let pieces_per_batch = m.div_ceil(rows_per_piece);
    let c = SendPtr(out.as_mut_ptr());
    let piece = |p: usize| {
        let (da, db) = (a.data.as_ptr(), b.data.as_ptr());
        let (oa, ob, oc) = offsets(p / pieces_per_batch);
        let lo = (p % pieces_per_batch) * rows_per_piece;
        let hi = m.min(lo + rows_per_piece);
        let c = c.get();
        // SAFETY: the operands' strides and offsets reach only elements of
        // their data (they describe the result's shape over it), and each
        // piece writes the elements of its own rows of its own matrix of
        // the batch, which no other piece touches; `out` outlives the
        // pieces, which `each` joins before returning.
        unsafe {
            T::gemm(
                (hi - lo, k, n),
                (da.add(oa + lo * a.strides[plan.m_dim]), rsa, ta),
                (db.add(ob), tb, csb),
                (c.add(oc + lo * c_steps[plan.m_dim]), rsc, csc),
            )
        }
    };
    par.each(
        batches * pieces_per_batch,
        products * batches,
        THREAD_PRODUCTS,
        piece,
    );
    // SAFETY: the pieces, all joined by `each`, wrote each of the `len`
    // elements (`k > 0`: every element is a sum of products).
    unsafe { out.set_len(len) };
    Some(out)
}

/// The result's memory, written by pieces on several threads.
#[derive(Clone, Copy)]
struct SendPtr<T>(*mut T);

// SAFETY: the pieces that share the pointer write disjoint elements.
unsafe impl<T: Send> Send for SendPtr<T> {}
unsafe impl<T: Send> Sync for SendPtr<T> {}

impl<T> SendPtr<T> {
    fn get(self) -> *mut T {
        self.0
    }
}
