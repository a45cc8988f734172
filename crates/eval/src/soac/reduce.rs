//! `reduce`: in bulk over lanes, in a tree, in blocks or one element at a
//! time, and the pieces the chunk driver combines.

use super::fold::{fast_input, fold_all, fold_blocks, fold_lanes, gemm_lanes, summed_binop};
use super::{SeqState, TREE_LANES, along, slice_outer, strided, unlane};
use crate::blocks::{BLOCK, Blocks};
use crate::chunks::ChunkOp;
use crate::error::{Fail, R};
use crate::interp::Interp;
use crate::interp::unrep;
use crate::kernels::{self, from_vec};
use crate::lanes::{LVal, Mask, count, lane_dims, materialize, operand, operand_in_place};
use crate::ops;
use crate::threads::Par;
use ndarray::{Axis, Slice};
use std::borrow::Borrow;
use urchin_core::ir::{Lambda, Operator, Var};
use urchin_prim::{BinOp, Scalar};
use urchin_runtime::Raise;
use urchin_runtime::value::{Array, Element, Value};
use urchin_runtime::with_array;

impl Interp<'_> {
    pub(crate) fn eval_reduce(
        &mut self,
        op: &Operator,
        pre: Option<&Lambda>,
        args: &[Var],
    ) -> R<Vec<LVal>> {
        let ne = self.atoms(&op.neutral)?;
        if let Some((refs, n)) = self.straight_args(args, "reduce")?
            && let Some(r) = self.reduce_block(op, pre, &refs, &ne, n)?
        {
            return Ok(vec![r]);
        }
        let vals = self.args(args)?;
        let n = self
            .soac_len(&vals, "reduce")?
            .ok_or_else(Fail::rep_length)?;
        if n == 0 {
            return Ok(ne);
        }
        if !self.lanes().is_empty() {
            if let Some(r) = self.sum_lanes(op, pre, &vals, &ne, n)? {
                crate::FastCounts::took(&self.fast.lane_sums);
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
        vals: &[impl Borrow<LVal>],
        ne: &[LVal],
        n: usize,
    ) -> R<Option<LVal>> {
        if n >= BLOCK || op.native_binop().is_none() {
            return Ok(None);
        }
        let mapped;
        let x = match pre {
            None => match vals {
                [x] => x.borrow(),
                _ => return Ok(None),
            },
            Some(lam) => match self.map_straight(lam, vals, n)? {
                Some(xs) => {
                    mapped = xs;
                    match &mapped[..] {
                        [x] => x,
                        _ => return Ok(None),
                    }
                }
                None => return Ok(None),
            },
        };
        Ok(fast_input(op, std::slice::from_ref(x), ne)
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
            None => vals
                .iter()
                .map(|x| unrep(self.par, x, n, self.mem()))
                .collect(),
        }
    }

    /// `reduce (+) z (map2 (op) xs ys)` over lanes, for `op` one total
    /// arithmetic operation (a dot product, for `*`), or the square of a
    /// difference (a squared distance, `(x - y) * (x - y)`): the elements
    /// are summed as they are made (`kernels::sum_binop_rows`), never
    /// stored. `None` where it does not apply.
    fn sum_lanes(
        &self,
        op: &Operator,
        pre: Option<&Lambda>,
        vals: &[LVal],
        ne: &[LVal],
        n: usize,
    ) -> R<Option<LVal>> {
        fn go<T: Element>(
            par: Par<'_>,
            (op, squared): (BinOp, bool),
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
            Ok(
                kernels::sum_binop_rows(par, (op, squared), (rows, n), &a, &b, z)
                    .map(|v| from_vec(rows, v)),
            )
        }
        let (Some(pre), [_, _], [z]) = (pre, vals, ne) else {
            return Ok(None);
        };
        // Its two arguments, each read once.
        let summand = summed_binop(op, pre).filter(|&(_, i, j)| i != j);
        let (Some(((g, squared), i, j)), Some(z)) = (summand, z.scalar()) else {
            return Ok(None);
        };
        if !self.bulk() {
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
        let (Some(x), Some(y)) = (elements(&vals[i]), elements(&vals[j])) else {
            return Ok(None);
        };
        let t = x.elem();
        if y.elem() != t || z.ty() != t {
            return Ok(None);
        }
        let u = x.mask | y.mask;
        let rows = lane_dims(self.lanes(), u);
        // A sum of products from `+0` whose operands vary over different
        // lanes is a matrix product (`gemm.rs`).
        if g == BinOp::Mul && !squared {
            let r = match z {
                Scalar::F64(z) if z.to_bits() == 0 => {
                    gemm_lanes::<f64>(self.par, (&rows, n), (&x, &y, u))?
                }
                Scalar::F32(z) if z.to_bits() == 0 => {
                    gemm_lanes::<f32>(self.par, (&rows, n), (&x, &y, u))?
                }
                _ => None,
            };
            if let Some(a) = r {
                return Ok(Some(LVal::from_array(u, a)));
            }
        }
        let r =
            urchin_prim::dispatch_prim!(t, go(self.par, (g, squared), (&rows, n), (&x, &y, u), z))?;
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
            && let Some(r) = fold_lanes(self.par, f, x, init, self.lanes())
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
                .map(|r| unlane(self.par, r, b, h, self.mem()))
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
            materialize(self.par, r, u, self.lanes(), self.mem())?,
            materialize(self.par, &last, u, self.lanes(), self.mem())?,
        ];
        Ok(LVal::from_array(
            u,
            ops::concat(&arrs, count(u), self.mem())?,
        ))
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
                .then(|| fold_blocks(self.par, op, &slice(lo, run.len), b.neutral()))
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
}
