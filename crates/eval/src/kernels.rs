//! Element-wise loops over whole arrays: the inner loops of bulk
//! evaluation.
//!
//! Every operand is brought to row-major order (borrowed when it already is)
//! and described by one step per dimension of the result, 0 where it is
//! broadcast. Adjacent dimensions that every operand walks contiguously are
//! merged, so that the innermost loop is as long as possible and, when the
//! steps are 1 or 0, a plain slice loop the compiler vectorises. Each
//! element is computed by the `prim::Native` functions, the same ones the
//! scalar path uses, so bulk and scalar results agree bit for bit.

use super::analysis::FastOp;
use super::blocks::{BLOCK, fold_blocked, fold_blocked_by};
use super::threads::{CHEAP_GRAIN, COSTLY_GRAIN, Par};
use ndarray::{ArcArray, IxDyn};
use smallvec::SmallVec;
use std::borrow::Cow;
use std::sync::OnceLock;
use urchin_prim::{BinOp, Native, PrimError, PrimType, UnOp, native_convert};
use urchin_runtime::value::{Array, Element};

/// Shapes and steps, one per dimension: kept inline, since every bulk
/// operation builds several and most have a few dimensions.
pub(crate) type Dims = SmallVec<[usize; 6]>;

/// One operand of a kernel: elements in row-major order, and for each
/// dimension of the result the step between consecutive elements.
pub struct Operand<'a, T: Clone> {
    pub data: Cow<'a, [T]>,
    pub strides: Dims,
}

pub(crate) fn standard_strides(shape: &[usize]) -> Dims {
    let mut s: Dims = smallvec::smallvec![0; shape.len()];
    let mut acc = 1;
    for d in (0..shape.len()).rev() {
        s[d] = acc;
        acc *= shape[d];
    }
    s
}

/// The elements of `a` in row-major order, without copying when possible.
pub(crate) fn row_major<T: Copy>(a: &ArcArray<T, IxDyn>) -> Cow<'_, [T]> {
    if let Some(s) = a.as_slice() {
        return Cow::Borrowed(s);
    }
    let Some(&first) = a.first() else {
        return Cow::Owned(Vec::new());
    };
    // `assign` walks a permuted or strided view a row at a time, where
    // element-wise iteration over a dynamic-rank array would pay for an
    // index increment per element.
    let mut out = ndarray::Array::from_elem(a.raw_dim(), first);
    out.assign(a);
    Cow::Owned(out.into_raw_vec_and_offset().0)
}

impl<'a, T: Copy> Operand<'a, T> {
    /// A single value broadcast over a result of rank `rank`.
    pub fn scalar(x: T, rank: usize) -> Operand<'a, T> {
        Operand {
            data: Cow::Owned(vec![x]),
            strides: smallvec::smallvec![0; rank],
        }
    }

    /// A value in place broadcast over a result of rank `rank`.
    pub fn scalar_ref(x: &'a T, rank: usize) -> Operand<'a, T> {
        Operand {
            data: Cow::Borrowed(std::slice::from_ref(x)),
            strides: smallvec::smallvec![0; rank],
        }
    }

    /// `axes[d]` is the axis of `a` that runs along dimension `d` of the
    /// result, or `None` where `a` is broadcast.
    pub fn new(a: &'a ArcArray<T, IxDyn>, axes: &[Option<usize>]) -> Operand<'a, T> {
        let std = standard_strides(a.shape());
        Operand {
            data: row_major(a),
            strides: axes.iter().map(|ax| ax.map_or(0, |k| std[k])).collect(),
        }
    }

    /// As [`Operand::new`], but a view walked forwards (a transposed
    /// array, or a slice of one: the columns a chunk of `map ...
    /// (transpose a)` takes) is read where it is, with its own steps,
    /// instead of being copied to row-major order; `None` for a view with
    /// a negative step.
    pub fn in_place(a: &'a ArcArray<T, IxDyn>, axes: &[Option<usize>]) -> Option<Operand<'a, T>> {
        // The steps of axes of length 1 are never taken.
        let steps: Option<Dims> = a
            .shape()
            .iter()
            .zip(a.strides())
            .map(|(&n, &s)| {
                if n <= 1 {
                    Some(0)
                } else {
                    usize::try_from(s).ok()
                }
            })
            .collect();
        let steps = steps?;
        Some(Operand {
            data: Cow::Borrowed(spanned(a, &steps)?),
            strides: axes.iter().map(|ax| ax.map_or(0, |k| steps[k])).collect(),
        })
    }
}

/// The memory from the first element of a view to its last, given its
/// non-negative `steps`: the view's elements are at their offsets in it.
fn spanned<'a, T>(a: &'a ArcArray<T, IxDyn>, steps: &[usize]) -> Option<&'a [T]> {
    if a.is_empty() {
        return Some(&[]);
    }
    let last = a
        .shape()
        .iter()
        .zip(steps)
        .try_fold(0usize, |acc, (&n, &s)| {
            acc.checked_add((n - 1).checked_mul(s)?)
        })?;
    // SAFETY: a view's elements lie in the one buffer of its array, so the
    // `last + 1` elements from its first are in that buffer and
    // initialised; the shared borrow of `a` keeps the buffer alive and
    // unchanged (`ArcArray` copies a shared buffer before writing).
    Some(unsafe { std::slice::from_raw_parts(a.as_ptr(), last + 1) })
}

/// Whether [`fold_map2_rows`] over operands read in place (`a`, `b`) meets
/// rows next to each other in memory in one and a shared row in the other
/// along the innermost dimension of `rows` longer than 1: where it reads
/// `WIDE` of them at a time rather than copying the view.
pub(crate) fn reads_adjacent_rows<A: Copy, B: Copy>(
    rows: &[usize],
    a: &Operand<A>,
    b: &Operand<B>,
) -> bool {
    rows.iter()
        .rposition(|&n| n > 1)
        .is_some_and(|d| matches!((a.strides[d], b.strides[d]), (1, 0) | (0, 1)))
}

/// Drops unit dimensions and merges neighbours that every operand walks
/// contiguously.
fn merge<const N: usize>(shape: &[usize], strides: [&[usize]; N]) -> (Dims, Steps<N>) {
    let mut dims = Dims::new();
    let mut steps = Steps::new();
    for (d, &n) in shape.iter().enumerate() {
        if n == 1 {
            continue;
        }
        let cur: [usize; N] = std::array::from_fn(|o| strides[o][d]);
        if let (Some(pn), Some(ps)) = (dims.last_mut(), steps.last_mut())
            && (0..N).all(|o| ps[o] == cur[o] * n)
        {
            *pn *= n;
            *ps = cur;
            continue;
        }
        dims.push(n);
        steps.push(cur);
    }
    (dims, steps)
}

/// The result's shape with unit dimensions dropped and contiguous
/// neighbours merged, and each operand's step per remaining dimension.
pub struct Merged<const N: usize> {
    dims: Dims,
    steps: Steps<N>,
    len: usize,
}

/// Each operand's step, per merged dimension.
type Steps<const N: usize> = SmallVec<[[usize; N]; 6]>;

impl<const N: usize> Merged<N> {
    pub fn new(shape: &[usize], strides: [&[usize]; N]) -> Merged<N> {
        let len = shape.iter().product();
        let (dims, steps) = merge(shape, strides);
        Merged { dims, steps, len }
    }

    /// Calls `inner(offsets, len, steps)` for the runs of the innermost
    /// dimension that cover the elements `lo..hi` of the result (in
    /// row-major order), in order.
    pub fn drive(
        &self,
        lo: usize,
        hi: usize,
        mut inner: impl FnMut([usize; N], usize, [usize; N]),
    ) {
        // One run (a vector, or operands whose dimensions all merged) is
        // the common case of small arrays in loops, where a call through
        // `dyn` cost up to 8% (ADBench's LSTM gradient).
        match self.dims[..] {
            [_] if lo < hi => {
                let step = self.steps[0];
                inner(std::array::from_fn(|o| lo * step[o]), hi - lo, step)
            }
            _ => self.drive_runs(lo, hi, &mut inner),
        }
    }

    /// `drive`'s walk, compiled once per operand count rather than for
    /// every kernel: it calls `inner` once per run, where a dynamic call
    /// costs little beside the run's loop (the walk was a fifth of
    /// `urchin-eval`'s code when it was compiled into each kernel).
    fn drive_runs(
        &self,
        lo: usize,
        hi: usize,
        inner: &mut dyn FnMut([usize; N], usize, [usize; N]),
    ) {
        if lo >= hi {
            return;
        }
        let Some((&len, outer)) = self.dims.split_last() else {
            inner([0; N], 1, [0; N]);
            return;
        };
        // Plain slices in the loop: indexing a `SmallVec` asks each time
        // whether it is inline.
        let steps: &[[usize; N]] = &self.steps;
        let step = steps[outer.len()];
        let mut idx_store: Dims = smallvec::smallvec![0; outer.len()];
        let idx: &mut [usize] = &mut idx_store;
        let mut base = [0usize; N];
        let mut rest = lo / len;
        for k in (0..outer.len()).rev() {
            idx[k] = rest % outer[k];
            rest /= outer[k];
            for (b, s) in base.iter_mut().zip(steps[k]) {
                *b += idx[k] * s;
            }
        }
        let (mut at, mut j) = (lo, lo % len);
        while at < hi {
            let run = (len - j).min(hi - at);
            inner(std::array::from_fn(|o| base[o] + j * step[o]), run, step);
            at += run;
            j = 0;
            for k in (0..outer.len()).rev() {
                idx[k] += 1;
                for (b, s) in base.iter_mut().zip(steps[k]) {
                    *b += s;
                }
                if idx[k] < outer[k] {
                    break;
                }
                for (b, s) in base.iter_mut().zip(steps[k]) {
                    *b -= s * outer[k];
                }
                idx[k] = 0;
            }
        }
    }
}

impl<const N: usize> Merged<N> {
    /// `drive` a block of rows at a time: `inner(offsets, len, steps,
    /// rows, row_steps)` covers `rows` consecutive runs of the innermost
    /// dimension, run `r` starting at `offsets + r * row_steps` (a run cut
    /// by `lo` or `hi` comes alone). Where the innermost dimension is
    /// short (a lane's few own elements), one call per run would cost more
    /// than the run.
    pub fn drive_rows(
        &self,
        lo: usize,
        hi: usize,
        mut inner: impl FnMut([usize; N], usize, [usize; N], usize, [usize; N]),
    ) {
        if self.dims.len() < 2 {
            return self.drive(lo, hi, |o, len, s| inner(o, len, s, 1, [0; N]));
        }
        self.drive_row_blocks(lo, hi, &mut inner)
    }

    /// `drive_rows`, compiled once per operand count (as `drive_runs`).
    fn drive_row_blocks(
        &self,
        lo: usize,
        hi: usize,
        inner: &mut dyn FnMut([usize; N], usize, [usize; N], usize, [usize; N]),
    ) {
        let [.., rows, len] = self.dims[..] else {
            return self.drive_runs(lo, hi, &mut |o, len, s| inner(o, len, s, 1, [0; N]));
        };
        let k = self.dims.len();
        let (step, row_step) = (self.steps[k - 1], self.steps[k - 2]);
        // The offsets of run `q` (in row-major order over all but the
        // innermost dimension).
        let start = |mut q: usize| {
            let mut o = [0usize; N];
            for (d, s) in self.dims[..k - 1].iter().zip(&self.steps[..k - 1]).rev() {
                let i = q % d;
                q /= d;
                for (o, s) in o.iter_mut().zip(s) {
                    *o += i * s;
                }
            }
            o
        };
        let mut at = lo;
        while at < hi {
            let (q, j) = (at / len, at % len);
            if j > 0 || hi - at < len {
                // A run cut at either end.
                let run = (len - j).min(hi - at);
                let o = start(q);
                inner(
                    std::array::from_fn(|x| o[x] + j * step[x]),
                    run,
                    step,
                    1,
                    row_step,
                );
                at += run;
                continue;
            }
            // Whole runs up to the end of this row of runs, or of the range.
            let n = (rows - q % rows).min((hi - at) / len);
            inner(start(q), len, step, n, row_step);
            at += n * len;
        }
    }
}

/// Where a kernel's elements go: appended to the result (one thread), or
/// written into a block of it (several).
trait Sink<C> {
    fn put(&mut self, xs: impl Iterator<Item = C>);
}

impl<C> Sink<C> for Vec<C> {
    fn put(&mut self, xs: impl Iterator<Item = C>) {
        self.extend(xs);
    }
}

impl<C> Sink<C> for std::slice::IterMut<'_, C> {
    fn put(&mut self, xs: impl Iterator<Item = C>) {
        // `xs` first: `zip` stops at its end without taking a slot.
        for (x, d) in xs.zip(self.by_ref()) {
            *d = x;
        }
    }
}

pub(crate) fn map1<A: Copy + Sync, C: Copy + Default + Send>(
    par: Par<'_>,
    shape: &[usize],
    a: &Operand<A>,
    grain: usize,
    f: impl Fn(A) -> C + Sync,
) -> Vec<C> {
    fn go<A: Copy, C>(
        m: &Merged<1>,
        (lo, hi): (usize, usize),
        da: &[A],
        f: &impl Fn(A) -> C,
        out: &mut impl Sink<C>,
    ) {
        m.drive_rows(lo, hi, |[oa], len, [sa], rows, [ra]| {
            let runs = (0..rows).map(|r| oa + r * ra);
            match sa {
                1 => runs.for_each(|oa| out.put(da[oa..oa + len].iter().map(|&x| f(x)))),
                0 => runs.for_each(|oa| {
                    let x = da[oa];
                    out.put((0..len).map(|_| f(x)));
                }),
                _ => runs.for_each(|oa| out.put((0..len).map(|i| f(da[oa + i * sa])))),
            }
        });
    }
    let m = Merged::new(shape, [&a.strides]);
    let da = &a.data[..];
    par.fill(m.len, grain, 1, |lo, dst| {
        go(&m, (lo, lo + dst.len()), da, &f, &mut dst.iter_mut())
    })
    .unwrap_or_else(|| sequential(m.len, |out| go(&m, (0, m.len), da, &f, out)))
}

pub(crate) fn map2<A: Copy + Sync, B: Copy + Sync, C: Copy + Default + Send>(
    par: Par<'_>,
    shape: &[usize],
    a: &Operand<A>,
    b: &Operand<B>,
    grain: usize,
    f: impl Fn(A, B) -> C + Sync,
) -> Vec<C> {
    fn go<A: Copy, B: Copy, C>(
        m: &Merged<2>,
        (lo, hi): (usize, usize),
        (da, db): (&[A], &[B]),
        f: &impl Fn(A, B) -> C,
        out: &mut impl Sink<C>,
    ) {
        m.drive_rows(lo, hi, |[oa, ob], len, [sa, sb], rows, [ra, rb]| {
            let runs = (0..rows).map(|r| (oa + r * ra, ob + r * rb));
            match (sa, sb) {
                (1, 1) => runs.for_each(|(oa, ob)| {
                    out.put(
                        da[oa..oa + len]
                            .iter()
                            .zip(&db[ob..ob + len])
                            .map(|(&x, &y)| f(x, y)),
                    )
                }),
                (1, 0) => runs.for_each(|(oa, ob)| {
                    let y = db[ob];
                    out.put(da[oa..oa + len].iter().map(|&x| f(x, y)));
                }),
                (0, 1) => runs.for_each(|(oa, ob)| {
                    let x = da[oa];
                    out.put(db[ob..ob + len].iter().map(|&y| f(x, y)));
                }),
                _ => runs.for_each(|(oa, ob)| {
                    out.put((0..len).map(|i| f(da[oa + i * sa], db[ob + i * sb])))
                }),
            }
        });
    }
    let m = Merged::new(shape, [&a.strides, &b.strides]);
    let d = (&a.data[..], &b.data[..]);
    par.fill(m.len, grain, 1, |lo, dst| {
        go(&m, (lo, lo + dst.len()), d, &f, &mut dst.iter_mut())
    })
    .unwrap_or_else(|| sequential(m.len, |out| go(&m, (0, m.len), d, &f, out)))
}

pub(crate) fn map3<A: Copy + Sync, B: Copy + Sync, C: Copy + Sync, D: Copy + Default + Send>(
    par: Par<'_>,
    shape: &[usize],
    a: &Operand<A>,
    b: &Operand<B>,
    c: &Operand<C>,
    grain: usize,
    f: impl Fn(A, B, C) -> D + Sync,
) -> Vec<D> {
    fn go<A: Copy, B: Copy, C: Copy, D>(
        m: &Merged<3>,
        (lo, hi): (usize, usize),
        (da, db, dc): (&[A], &[B], &[C]),
        f: &impl Fn(A, B, C) -> D,
        out: &mut impl Sink<D>,
    ) {
        m.drive(lo, hi, |[oa, ob, oc], len, [sa, sb, sc]| {
            let xs = &da[oa..oa + if sa == 1 { len } else { 1 }];
            // A select with a constant branch (reverse mode's guarded
            // gathers: `if ok then x else 0`) has one operand of stride 0.
            match (sa, sb, sc) {
                (1, 1, 1) => out.put(
                    xs.iter()
                        .zip(&db[ob..ob + len])
                        .zip(&dc[oc..oc + len])
                        .map(|((&x, &y), &z)| f(x, y, z)),
                ),
                (1, 1, 0) => {
                    let z = dc[oc];
                    out.put(xs.iter().zip(&db[ob..ob + len]).map(|(&x, &y)| f(x, y, z)));
                }
                (1, 0, 1) => {
                    let y = db[ob];
                    out.put(xs.iter().zip(&dc[oc..oc + len]).map(|(&x, &z)| f(x, y, z)));
                }
                (1, 0, 0) => {
                    let (y, z) = (db[ob], dc[oc]);
                    out.put(xs.iter().map(|&x| f(x, y, z)));
                }
                _ => {
                    out.put((0..len).map(|i| f(da[oa + i * sa], db[ob + i * sb], dc[oc + i * sc])))
                }
            }
        });
    }
    let m = Merged::new(shape, [&a.strides, &b.strides, &c.strides]);
    let d = (&a.data[..], &b.data[..], &c.data[..]);
    par.fill(m.len, grain, 1, |lo, dst| {
        go(&m, (lo, lo + dst.len()), d, &f, &mut dst.iter_mut())
    })
    .unwrap_or_else(|| sequential(m.len, |out| go(&m, (0, m.len), d, &f, out)))
}

/// For every row of a result of shape `rows ++ [n]` (`n >= 1`), the
/// elements `g(a, b)` of the row folded by `f` from `init`: a map fused
/// into the reduction that consumes it, so that the mapped elements are
/// never stored. The same steps in the same order as `map2` followed by
/// `fold_rows`, so the bits are those of the unfused evaluation.
pub(crate) fn fold_map2_rows<A: Copy + Sync, B: Copy + Sync, T: Copy + Default + Send + Sync>(
    par: Par<'_>,
    (rows, n): (&[usize], usize),
    a: &Operand<A>,
    b: &Operand<B>,
    init: T,
    g: impl Fn(A, B) -> T + Sync,
    f: impl Fn(T, T) -> T + Sync,
) -> Vec<T> {
    /// Rows folded side by side where a row is one block: each row's fold
    /// is a chain of dependent operations, and interleaving independent
    /// chains keeps the arithmetic units busy (the order within each row is
    /// unchanged): eight take a sum of squares about a fifth less time
    /// than four.
    const SIDE: usize = 8;
    /// Rows folded side by side where one operand's row is the same for all
    /// of them (a matrix times a vector): it is read once per element for
    /// all.
    const WIDE: usize = 8;
    struct Side<S, WA, WB> {
        side: S,
        wide_a: WA,
        wide_b: WB,
    }
    fn go<T>(
        m: &Merged<2>,
        (lo, hi): (usize, usize),
        row: &impl Fn(usize, usize) -> T,
        adjacent: &(
            impl Fn(usize, usize) -> [T; WIDE],
            impl Fn(usize, usize) -> [T; WIDE],
        ),
        side: Option<
            &Side<
                impl Fn([usize; SIDE], [usize; SIDE]) -> [T; SIDE],
                impl Fn(usize, [usize; WIDE]) -> [T; WIDE],
                impl Fn([usize; WIDE], usize) -> [T; WIDE],
            >,
        >,
        out: &mut impl Sink<T>,
    ) {
        m.drive(lo, hi, |[oa, ob], len, [sa, sb]| {
            let mut i = 0;
            // Rows next to each other in memory (a transposed view), the
            // other operand's row shared: a step over the elements reads
            // one element of each row at once.
            if (sa, sb) == (1, 0) {
                while i + WIDE <= len {
                    out.put((adjacent.0)(oa + i, ob).into_iter());
                    i += WIDE;
                }
            } else if (sa, sb) == (0, 1) {
                while i + WIDE <= len {
                    out.put((adjacent.1)(oa, ob + i).into_iter());
                    i += WIDE;
                }
            }
            if let Some(s) = side {
                fn at<const W: usize>(o: usize, s: usize, i: usize) -> [usize; W] {
                    std::array::from_fn(|k| o + (i + k) * s)
                }
                if sa == 0 {
                    while i + WIDE <= len {
                        out.put((s.wide_a)(oa, at(ob, sb, i)).into_iter());
                        i += WIDE;
                    }
                } else if sb == 0 {
                    while i + WIDE <= len {
                        out.put((s.wide_b)(at(oa, sa, i), ob).into_iter());
                        i += WIDE;
                    }
                }
                while i + SIDE <= len {
                    out.put((s.side)(at(oa, sa, i), at(ob, sb, i)).into_iter());
                    i += SIDE;
                }
            }
            out.put((i..len).map(|i| row(oa + i * sa, ob + i * sb)))
        })
    }
    let r = rows.len();
    let (ta, tb) = (a.strides[r], b.strides[r]);
    let (da, db) = (&a.data[..], &b.data[..]);
    let row = |oa: usize, ob: usize| {
        if (ta, tb) == (1, 1) {
            let (xs, ys) = (&da[oa..oa + n], &db[ob..ob + n]);
            fold_blocked_by(n, init, |j| g(xs[j], ys[j]), &f)
        } else {
            fold_blocked_by(n, init, |j| g(da[oa + j * ta], db[ob + j * tb]), &f)
        }
    };
    // The element `j` of rows at `oa` and `ob`.
    let get = |oa: usize, ob: usize, j: usize| {
        if (ta, tb) == (1, 1) {
            g(da[oa + j], db[ob + j])
        } else {
            g(da[oa + j * ta], db[ob + j * tb])
        }
    };
    // Rows that are consecutive blocks of a reduction (`BLOCK` elements
    // each, one after the other: a sum's chunk) are addressed from one
    // base at constant distances: a register per row spilled the loop.
    let blocks = |o: [usize; SIDE]| n == BLOCK && (0..SIDE).all(|k| o[k] == o[0] + k * BLOCK);
    let side = |oa: [usize; SIDE], ob: [usize; SIDE]| {
        let mut acc = [init; SIDE];
        if (ta, tb) == (1, 1) && blocks(oa) && blocks(ob) {
            let (xs, ys) = (&da[oa[0]..][..SIDE * BLOCK], &db[ob[0]..][..SIDE * BLOCK]);
            acc = fold_blocks_side(xs, ys, init, &g, &f);
        } else if (ta, tb) == (1, 1) {
            let xs: [&[A]; SIDE] = std::array::from_fn(|k| &da[oa[k]..oa[k] + n]);
            let ys: [&[B]; SIDE] = std::array::from_fn(|k| &db[ob[k]..ob[k] + n]);
            for j in 0..n {
                acc = std::array::from_fn(|k| f(acc[k], g(xs[k][j], ys[k][j])));
            }
        } else {
            for j in 0..n {
                acc = std::array::from_fn(|k| f(acc[k], get(oa[k], ob[k], j)));
            }
        }
        acc
    };
    let wide_a = |oa: usize, ob: [usize; WIDE]| {
        let mut acc = [init; WIDE];
        if (ta, tb) == (1, 1) {
            let ys: [&[B]; WIDE] = std::array::from_fn(|k| &db[ob[k]..ob[k] + n]);
            for (j, &x) in da[oa..oa + n].iter().enumerate() {
                acc = std::array::from_fn(|k| f(acc[k], g(x, ys[k][j])));
            }
        } else {
            for j in 0..n {
                acc = std::array::from_fn(|k| f(acc[k], get(oa, ob[k], j)));
            }
        }
        acc
    };
    let wide_b = |oa: [usize; WIDE], ob: usize| {
        let mut acc = [init; WIDE];
        if (ta, tb) == (1, 1) {
            let xs: [&[A]; WIDE] = std::array::from_fn(|k| &da[oa[k]..oa[k] + n]);
            for (j, &y) in db[ob..ob + n].iter().enumerate() {
                acc = std::array::from_fn(|k| f(acc[k], g(xs[k][j], y)));
            }
        } else {
            for j in 0..n {
                acc = std::array::from_fn(|k| f(acc[k], get(oa[k], ob, j)));
            }
        }
        acc
    };
    let side = Side {
        side,
        wide_a,
        wide_b,
    };
    let adjacent = (
        |oa: usize, ob: usize| {
            fold_blocked_wide(n, init, &f, |j, acc: &mut [T; WIDE]| {
                let (xs, y) = (&da[oa + j * ta..][..WIDE], db[ob + j * tb]);
                *acc = std::array::from_fn(|k| f(acc[k], g(xs[k], y)));
            })
        },
        |oa: usize, ob: usize| {
            fold_blocked_wide(n, init, &f, |j, acc: &mut [T; WIDE]| {
                let (x, ys) = (da[oa + j * ta], &db[ob + j * tb..][..WIDE]);
                *acc = std::array::from_fn(|k| f(acc[k], g(x, ys[k])));
            })
        },
    );
    // A longer row is folded in blocks (`blocks.rs`), one row at a time.
    let side = (n <= BLOCK).then_some(&side);
    let m = Merged::new(rows, [&a.strides[..r], &b.strides[..r]]);
    par.fill(m.len, (CHEAP_GRAIN / n).max(1), WIDE, |lo, dst| {
        go(
            &m,
            (lo, lo + dst.len()),
            &row,
            &adjacent,
            side,
            &mut dst.iter_mut(),
        )
    })
    .unwrap_or_else(|| sequential(m.len, |out| go(&m, (0, m.len), &row, &adjacent, side, out)))
}

/// `W` consecutive blocks of `xs` and `ys` (`W * BLOCK` elements each),
/// block `k` of the result the fold of `g` of block `k` of both from
/// `init`. A function of its own, not inlined: inside the kernel's closure
/// the accumulators were stored to memory at every step.
#[inline(never)]
fn fold_blocks_side<A: Copy, B: Copy, T: Copy, const W: usize>(
    xs: &[A],
    ys: &[B],
    init: T,
    g: &impl Fn(A, B) -> T,
    f: &impl Fn(T, T) -> T,
) -> [T; W] {
    let (xs, ys) = (&xs[..W * BLOCK], &ys[..W * BLOCK]);
    let mut acc = [init; W];
    for j in 0..BLOCK {
        for k in 0..W {
            acc[k] = f(acc[k], g(xs[k * BLOCK + j], ys[k * BLOCK + j]));
        }
    }
    acc
}

/// `W` rows of `n` elements folded by `f` from `init` side by side, in
/// blocks as `fold_blocked_by` folds each: `step(j, acc)` folds the
/// element `j` of every row into its accumulator.
#[inline(always)]
fn fold_blocked_wide<T: Copy, const W: usize>(
    n: usize,
    init: T,
    f: &impl Fn(T, T) -> T,
    step: impl Fn(usize, &mut [T; W]),
) -> [T; W] {
    let block = |s: usize| {
        let mut acc = [init; W];
        for j in s..n.min(s + BLOCK) {
            step(j, &mut acc);
        }
        acc
    };
    (BLOCK..n).step_by(BLOCK).fold(block(0), |acc, s| {
        let p = block(s);
        std::array::from_fn(|k| f(acc[k], p[k]))
    })
}

/// The sums of `a op b` along the last axis of a result of shape
/// `rows ++ [n]` (a dot product, for `*`), or with `squared` of the
/// squared differences `(a - b) * (a - b)` (a squared distance), fused
/// (`fold_map2_rows`): the same operations in the same order as the
/// unfused statements, so the same bits. Each row's fold starts from
/// `init` (the reduction's neutral element); `None` for an operation that
/// is not one of these total ones, or a type it is not defined on.
pub(crate) fn sum_binop_rows<T: Element>(
    par: Par<'_>,
    (op, squared): (BinOp, bool),
    shape: (&[usize], usize),
    a: &Operand<T>,
    b: &Operand<T>,
    init: T,
) -> Option<Vec<T>> {
    if !T::TY.is_numeric() {
        return None;
    }
    let sum = |x: T, y: T| x.add(y);
    if squared {
        return (op == BinOp::Sub).then(|| {
            let square = |x: T, y: T| {
                let t = x.sub(y);
                t.mul(t)
            };
            fold_map2_rows(par, shape, a, b, init, square, sum)
        });
    }
    Some(match op {
        BinOp::Mul => fold_map2_rows(par, shape, a, b, init, |x: T, y| x.mul(y), sum),
        BinOp::Add => fold_map2_rows(par, shape, a, b, init, |x: T, y| x.add(y), sum),
        BinOp::Sub => fold_map2_rows(par, shape, a, b, init, |x: T, y| x.sub(y), sum),
        BinOp::Min => fold_map2_rows(par, shape, a, b, init, |x: T, y| Native::min(x, y), sum),
        BinOp::Max => fold_map2_rows(par, shape, a, b, init, |x: T, y| Native::max(x, y), sum),
        _ => return None,
    })
}

/// A kernel's result produced on this thread.
fn sequential<C>(len: usize, go: impl FnOnce(&mut Vec<C>)) -> Vec<C> {
    let mut out = Vec::with_capacity(len);
    go(&mut out);
    out
}

/// The array of `shape` whose elements in row-major order are `v`. A
/// vector or a matrix is built through ndarray's fixed-rank types: on
/// `IxDyn`, the checks and strides cost twice as much as a row of a
/// dozen elements does (the small arrays of a recurrent cell's steps).
pub(crate) fn from_vec<T: Element>(shape: &[usize], v: Vec<T>) -> Array {
    let a = match *shape {
        [n] if n == v.len() => Ok(ndarray::Array1::from_vec(v).into_shared().into_dyn()),
        [m, n] => ArcArray::from_shape_vec((m, n), v).map(ArcArray::into_dyn),
        _ => ArcArray::from_shape_vec(IxDyn(shape), v),
    };
    T::wrap_array(a.expect("kernels produce one element per index of the shape"))
}

/// A fallible element function: the error is remembered and the element
/// replaced by a default, so that the loop itself stays branch-light. (An
/// operation has one kind of error, division by zero or a negative
/// exponent, so which element's is kept does not matter when blocks run
/// on several threads.)
fn checked<T: Default, A, B>(
    err: &OnceLock<PrimError>,
    f: impl Fn(A, B) -> Result<T, PrimError> + Sync,
) -> impl Fn(A, B) -> T + Sync {
    move |x, y| match f(x, y) {
        Ok(r) => r,
        Err(e) => {
            let _ = err.set(e);
            T::default()
        }
    }
}

/// `op` element-wise over two operands of element type `T`.
pub(crate) fn binop<T: Element>(
    par: Par<'_>,
    op: BinOp,
    shape: &[usize],
    a: &Operand<T>,
    b: &Operand<T>,
) -> Result<Array, PrimError> {
    let same = |v: Vec<T>| Ok(from_vec(shape, v));
    let cmp = |v: Vec<bool>| Ok(from_vec(shape, v));
    let err = OnceLock::new();
    let (cheap, costly) = (CHEAP_GRAIN, COSTLY_GRAIN);
    let r = match op {
        BinOp::Add => same(map2(par, shape, a, b, cheap, |x: T, y| x.add(y))),
        BinOp::Sub => same(map2(par, shape, a, b, cheap, |x: T, y| x.sub(y))),
        BinOp::Mul => same(map2(par, shape, a, b, cheap, |x: T, y| x.mul(y))),
        BinOp::Pow => same(map2(
            par,
            shape,
            a,
            b,
            costly,
            checked(&err, |x: T, y| x.pow(y)),
        )),
        BinOp::Min => same(map2(par, shape, a, b, cheap, |x: T, y| Native::min(x, y))),
        BinOp::Max => same(map2(par, shape, a, b, cheap, |x: T, y| Native::max(x, y))),
        BinOp::Div => same(map2(
            par,
            shape,
            a,
            b,
            costly,
            checked(&err, |x: T, y| x.div(y)),
        )),
        BinOp::Mod => same(map2(
            par,
            shape,
            a,
            b,
            costly,
            checked(&err, |x: T, y| x.modulo(y)),
        )),
        BinOp::Quot => same(map2(
            par,
            shape,
            a,
            b,
            costly,
            checked(&err, |x: T, y| x.quot(y)),
        )),
        BinOp::Rem => same(map2(
            par,
            shape,
            a,
            b,
            costly,
            checked(&err, |x: T, y| x.rem(y)),
        )),
        BinOp::Eq => cmp(map2(par, shape, a, b, cheap, |x: T, y| x.eq(y))),
        BinOp::Neq => cmp(map2(par, shape, a, b, cheap, |x: T, y| !x.eq(y))),
        BinOp::Lt => cmp(map2(par, shape, a, b, cheap, |x: T, y| x.lt(y))),
        BinOp::Le => cmp(map2(par, shape, a, b, cheap, |x: T, y| x.le(y))),
        BinOp::Gt => cmp(map2(par, shape, a, b, cheap, |x: T, y: T| y.lt(x))),
        BinOp::Ge => cmp(map2(par, shape, a, b, cheap, |x: T, y: T| y.le(x))),
        BinOp::Atan2 | BinOp::Hypot | BinOp::NextAfter | BinOp::CopySign => {
            if !T::TY.is_float() {
                return Err(PrimError::TypeMismatch);
            }
            same(map2(par, shape, a, b, costly, |x: T, y| {
                T::float_bin(op, x, y).unwrap_or_default()
            }))
        }
        BinOp::MulHi
        | BinOp::LogAnd
        | BinOp::LogOr
        | BinOp::BitAnd
        | BinOp::BitOr
        | BinOp::BitXor
        | BinOp::Shl
        | BinOp::Shr
        | BinOp::UShr => {
            if T::bits(op, T::default(), T::default()).is_none() {
                return Err(PrimError::TypeMismatch);
            }
            same(map2(par, shape, a, b, cheap, |x: T, y| {
                T::bits(op, x, y).unwrap_or_default()
            }))
        }
    };
    match err.into_inner() {
        Some(e) => Err(e),
        None => r,
    }
}

pub(crate) fn unop<T: Element>(
    par: Par<'_>,
    op: UnOp,
    shape: &[usize],
    a: &Operand<T>,
) -> Result<Array, PrimError> {
    let same = |v: Vec<T>| Ok(from_vec(shape, v));
    match op {
        UnOp::Neg => same(map1(par, shape, a, CHEAP_GRAIN, |x: T| x.neg())),
        UnOp::Abs => same(map1(par, shape, a, CHEAP_GRAIN, |x: T| x.abs())),
        UnOp::Sgn => same(map1(par, shape, a, CHEAP_GRAIN, |x: T| x.sgn())),
        UnOp::Not => {
            if T::default().not().is_none() {
                return Err(PrimError::TypeMismatch);
            }
            same(map1(par, shape, a, CHEAP_GRAIN, |x: T| {
                x.not().unwrap_or_default()
            }))
        }
        UnOp::IsNan => Ok(from_vec(
            shape,
            map1(par, shape, a, CHEAP_GRAIN, |x: T| x.is_nan()),
        )),
        UnOp::IsInf => Ok(from_vec(
            shape,
            map1(par, shape, a, CHEAP_GRAIN, |x: T| x.is_inf()),
        )),
        _ if op.changes_type() => {
            let rt = op.result_type(T::TY);
            if T::other_unop(op, T::default()).is_none() {
                return Err(PrimError::TypeMismatch);
            }
            // `Some` only to have a default for the blocks of the result.
            let v: Vec<_> = map1(par, shape, a, COSTLY_GRAIN, |x: T| {
                Some(T::other_unop(op, x).unwrap_or_else(|| urchin_prim::Scalar::zero(rt)))
            })
            .into_iter()
            .flatten()
            .collect();
            Ok(Array::from_scalars(rt, shape.to_vec(), &v))
        }
        _ => {
            let f = T::float_fn(op).ok_or(PrimError::TypeMismatch)?;
            same(map1(par, shape, a, COSTLY_GRAIN, f))
        }
    }
}

pub(crate) fn convert<A: Element, B: Element>(
    par: Par<'_>,
    shape: &[usize],
    a: &Operand<A>,
) -> Array {
    from_vec(
        shape,
        map1(par, shape, a, CHEAP_GRAIN, native_convert::<A, B>),
    )
}

pub(crate) fn select<T: Element>(
    par: Par<'_>,
    shape: &[usize],
    c: &Operand<bool>,
    a: &Operand<T>,
    b: &Operand<T>,
) -> Array {
    from_vec(
        shape,
        map3(
            par,
            shape,
            c,
            a,
            b,
            CHEAP_GRAIN,
            |c, x, y| if c { x } else { y },
        ),
    )
}

pub(crate) fn copy<T: Element>(par: Par<'_>, shape: &[usize], a: &Operand<T>) -> Array {
    from_vec(shape, map1(par, shape, a, CHEAP_GRAIN, |x| x))
}

/// Calls `$f(args..., g)` where `g(acc, x)` applies the recognised
/// reduction operator `$op` to elements of type `$t`, in the argument order
/// of the operator's lambda. The operator is matched once, outside the
/// kernel's loop.
macro_rules! fast_call {
    ($op:expr, $t:ty, $f:ident ( $($arg:expr),* )) => {{
        use urchin_prim::{BinOp, Native};
        let op: $crate::analysis::FastOp = $op;
        match (op.op, op.swapped) {
            (BinOp::Add, false) => $f($($arg,)* |a: $t, x: $t| a.add(x)),
            (BinOp::Add, true) => $f($($arg,)* |a: $t, x: $t| x.add(a)),
            (BinOp::Mul, false) => $f($($arg,)* |a: $t, x: $t| a.mul(x)),
            (BinOp::Mul, true) => $f($($arg,)* |a: $t, x: $t| x.mul(a)),
            (BinOp::Min, false) => $f($($arg,)* |a: $t, x: $t| Native::min(a, x)),
            (BinOp::Min, true) => $f($($arg,)* |a: $t, x: $t| Native::min(x, a)),
            (BinOp::Max, false) => $f($($arg,)* |a: $t, x: $t| Native::max(a, x)),
            (BinOp::Max, true) => $f($($arg,)* |a: $t, x: $t| Native::max(x, a)),
            (b, false) => $f($($arg,)* move |a: $t, x: $t| <$t as Native>::bits(b, a, x).unwrap_or(a)),
            (b, true) => $f($($arg,)* move |a: $t, x: $t| <$t as Native>::bits(b, x, a).unwrap_or(a)),
        }
    }};
}
pub(crate) use fast_call;

/// Whether the recognised operator is defined on elements of type `T`
/// (the type checker guarantees it; an ill-typed program gets the general
/// path and its error).
pub(crate) fn fast_supported<T: Native>(f: FastOp) -> bool {
    match f.op {
        BinOp::Add | BinOp::Mul | BinOp::Min | BinOp::Max => T::TY.is_numeric(),
        op => T::bits(op, T::from_i64(0), T::from_i64(0)).is_some(),
    }
}

/// Folds every row of `n` consecutive elements, starting from `init`
/// (rows may be folded on several threads; each in blocks, as every
/// reduction is: `blocks.rs`).
pub(crate) fn fold_rows<T: Copy + Default + Send + Sync>(
    par: Par<'_>,
    data: &[T],
    rows: usize,
    n: usize,
    init: T,
    g: impl Fn(T, T) -> T + Sync,
) -> Vec<T> {
    /// Rows folded side by side: each row's fold is a chain of dependent
    /// operations, and interleaving independent chains keeps the
    /// arithmetic units busy (the order within each row is unchanged).
    const WIDE: usize = 8;
    if n == 0 {
        return vec![init; rows];
    }
    let go = |lo: usize, dst: &mut [T]| {
        let mut groups = dst.chunks_exact_mut(WIDE);
        let mut r = lo;
        for out in &mut groups {
            let rows: [&[T]; WIDE] = std::array::from_fn(|k| &data[(r + k) * n..][..n]);
            let acc = fold_blocked_wide(n, init, &g, |j, acc: &mut [T; WIDE]| {
                *acc = std::array::from_fn(|k| g(acc[k], rows[k][j]));
            });
            out.copy_from_slice(&acc);
            r += WIDE;
        }
        for out in groups.into_remainder() {
            *out = fold_blocked(&data[r * n..][..n], init, &g);
            r += 1;
        }
    };
    par.fill(rows, (CHEAP_GRAIN / n).max(1), WIDE, go)
        .unwrap_or_else(|| {
            let mut out = vec![init; rows];
            go(0, &mut out);
            out
        })
}

/// Folds a sequence of elements into `acc`.
pub(crate) fn fold_into<'a, T: Copy + 'a>(
    acc: &mut T,
    xs: impl Iterator<Item = &'a T>,
    g: impl Fn(T, T) -> T,
) {
    *acc = xs.fold(*acc, |a, &x| g(a, x));
}

/// Inclusive scan of every row of `n` consecutive elements, starting each
/// from `init`.
pub(crate) fn scan_rows<T: Copy>(data: &[T], n: usize, init: T, g: impl Fn(T, T) -> T) -> Vec<T> {
    let mut out = Vec::with_capacity(data.len());
    if n == 0 {
        return out;
    }
    for row in data.chunks_exact(n) {
        let mut acc = init;
        out.extend(row.iter().map(|&x| {
            acc = g(acc, x);
            acc
        }));
    }
    out
}

/// Inclusive scan of `xs` in order continuing from `acc`, appending to
/// `out`. A contiguous array, forwards or backwards (the adjoint of a
/// scan scans a reversed one), is read as a slice: the loop then writes
/// `out` with no check per element (about a quarter of the instructions
/// of an element-by-element iterator over a view).
pub(crate) fn scan_into<T: Copy>(
    acc: &mut T,
    xs: ndarray::ArrayView1<'_, T>,
    out: &mut Vec<T>,
    g: impl Fn(T, T) -> T,
) {
    let mut a = *acc;
    let step = |&x: &T| {
        a = g(a, x);
        a
    };
    let mut backwards = xs;
    backwards.invert_axis(ndarray::Axis(0));
    match (xs.as_slice(), backwards.as_slice()) {
        (Some(s), _) => out.extend(s.iter().map(step)),
        (None, Some(s)) => out.extend(s.iter().rev().map(step)),
        (None, None) => out.extend(xs.iter().map(step)),
    }
    *acc = a;
}

/// Whether a fold with a recognised operator may be regrouped (a
/// histogram in blocks: [`hist_into`]) without changing a bit.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Regroup {
    /// Float `+` and `*` round; `f16`'s `min` and `max` go through `f32`.
    Never,
    /// Integer (wrapping) and boolean operators are associative.
    Always,
    /// Float `min` and `max` return the smaller (larger) operand where the
    /// two differ and neither is a NaN; which of `-0.0` and `0.0`, or of a
    /// number and a NaN (a signalling one on some processors), or of two
    /// NaNs, is the machine's choice, which LLVM lets differ between one
    /// compiled loop and another. Over values that are neither zero nor
    /// NaN, into bins that hold no NaN, every grouping returns the bin's
    /// extreme value, whose bits are unique.
    Ordered,
}

impl Regroup {
    pub fn of<T: Native>(f: FastOp) -> Regroup {
        match T::TY {
            PrimType::F32 | PrimType::F64 if matches!(f.op, BinOp::Min | BinOp::Max) => {
                Regroup::Ordered
            }
            PrimType::F16 | PrimType::F32 | PrimType::F64 => Regroup::Never,
            _ => Regroup::Always,
        }
    }

    /// Whether a value may be folded out of order.
    fn value<T: Native>(self, x: T) -> bool {
        self == Regroup::Always || (x.eq(x) && !x.eq(T::from_i64(0)))
    }

    /// Whether a bin may receive a fold made out of order.
    fn bin<T: Native>(self, x: T) -> bool {
        self == Regroup::Always || x.eq(x)
    }
}

/// `dest[is[i]] = g(dest[is[i]], vs[i])` for the indices in range, in
/// order. Where `g` regroups exactly (`regroup`) and the bins are few
/// against the values, on several threads: each block of the values is
/// folded into a partial histogram of its own (per bin, the fold of the
/// block's values from its first, so no neutral element is assumed), and
/// the partials are folded into `dest` in block order. Bin `b` then holds
/// `g(..g(g(d, p0), p1).., pk)`, which is the sequential fold, bit for
/// bit, on any thread count.
pub(crate) fn hist_into<T: Native + Send + Sync>(
    par: Par<'_>,
    regroup: Regroup,
    dest: &mut [T],
    is: &[i64],
    vs: &[T],
    g: impl Fn(T, T) -> T + Sync,
) {
    let m = dest.len();
    let n = is.len().min(vs.len());
    // A partial costs a pass over the bins per block. A histogram update
    // is a dependent load and store per value: a costly grain.
    if regroup != Regroup::Never
        && m.saturating_mul(16) <= n
        && dest.iter().all(|&d| regroup.bin(d))
        && let Some(parts) = par.blocks(n, COSTLY_GRAIN, |lo, hi| {
            partial_hist(regroup, m, &is[lo..hi], &vs[lo..hi], &g)
        })
        && let Some(parts) = parts.into_iter().collect::<Option<Vec<_>>>()
    {
        for part in parts {
            for (d, p) in dest.iter_mut().zip(part) {
                if let Some(p) = p {
                    *d = g(*d, p);
                }
            }
        }
        return;
    }
    for (&i, &v) in is.iter().zip(vs) {
        if let Ok(i) = usize::try_from(i)
            && i < m
        {
            dest[i] = g(dest[i], v);
        }
    }
}

/// Each of `m` bins' fold of its values among `vs` in order, from the
/// first (`None`: no value); `None` at a value that may not be regrouped.
fn partial_hist<T: Native>(
    regroup: Regroup,
    m: usize,
    is: &[i64],
    vs: &[T],
    g: impl Fn(T, T) -> T,
) -> Option<Vec<Option<T>>> {
    let mut out = vec![None; m];
    for (&i, &v) in is.iter().zip(vs) {
        if let Some(slot) = usize::try_from(i).ok().and_then(|i| out.get_mut(i)) {
            if !regroup.value(v) {
                return None;
            }
            *slot = Some(slot.map_or(v, |a| g(a, v)));
        }
    }
    Some(out)
}
