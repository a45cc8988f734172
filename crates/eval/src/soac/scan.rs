//! `scan`: over lanes, in blocks (locally and across threads) or one
//! element at a time.

use super::fold::{fast_input, scan_all, scan_lanes_fast};
use super::{SeqState, along, element_of, slice_outer, stack_elements};
use crate::FastCounts;
use crate::chunks::ChunkOp;
use crate::error::{Fail, R};
use crate::interp::Interp;
use crate::lanes::{LVal, bit, count, materialize};
use crate::ops;
use urchin_core::ir::{Lambda, Operator, Stm, Var};
use urchin_prim::Scalar;
use urchin_runtime::Raise;
use urchin_runtime::value::{Array, Value};

impl Interp<'_> {
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
                    ops::check_size(self.mem(), &shape, elem)?;
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
        // An array scanned by a recognised operator, with no map for
        // workers to run: one native pass into one array (only this
        // thread scans either way; in chunks, each chunk's result was
        // copied into the whole, most of the time of the running sum's
        // gradient).
        if pre.is_none()
            && let Some((f, x, init)) = fast_input(op, &vals, &ne)
            && let Value::Array(a) = &x.v
        {
            ops::check_size(self.mem(), &[n], a.elem())?;
            if let Some((out, _)) = scan_all(f, x, init) {
                return Ok(vec![LVal::inv(Value::Array(out))]);
            }
        }
        Ok(self.run_chunked(ChunkOp::Scan(op, pre), &vals, n, ne)?.0)
    }

    /// Stacks the successive accumulators of a scan along a new first own
    /// axis.
    fn stack_steps(&self, steps: &[LVal]) -> R<LVal> {
        let u = steps.iter().fold(0, |m, x| m | x.mask);
        let arrs: Vec<Array> = steps
            .iter()
            .map(|x| materialize(self.par, x, u, self.lanes(), self.mem()))
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
            FastCounts::took(&self.fast.lane_scans);
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
                        .map(|x| {
                            materialize(self.par, x, bit(b1) | bit(b2), self.lanes(), self.mem())
                        })
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
                *o = ops::concat(&[o.clone(), t], 0, self.mem())?;
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
                    .map(|x| materialize(self.par, x, bit(b), self.lanes(), self.mem()))
                    .collect::<R<_>>()?;
                ops::stack_at(&arrs, 1)
            })
            .collect()
    }
}
