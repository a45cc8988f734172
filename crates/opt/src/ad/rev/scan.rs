//! `scan` (thesis 3.4.3). With `ys = scan ⊙ ne xs` over k-tuples, the
//! adjoint `cᵢ` of `ysᵢ` (including what flows back from later elements)
//! satisfies the linear recurrence `cᵢ = ȳᵢ + Bᵢ·cᵢ₊₁`, where `Bᵢ` is the
//! transposed Jacobian `(∂(ysᵢ ⊙ xsᵢ₊₁)/∂ysᵢ)ᵀ`, a k×k matrix. A linear
//! recurrence is itself a scan, over (vector, matrix) pairs composed as
//! affine maps. Then each step `ysᵢ₋₁ ⊙ xsᵢ` is reversed like the body of
//! a `map` seeded with `cᵢ`, which gives `x̄sᵢ` and the contributions to
//! differentiated variables the operator reads.
//!
//! For `+` on scalars the matrices are 1 and the adjoint is a reversed
//! suffix sum. Inactive components (an index carried along, the flags of a
//! segmented scan) are constants: they take part in the primal steps but
//! have no rows in the matrices. Scans whose operator works on arrays
//! element-wise were interchanged into maps of scalar scans before AD.

use super::{RResult, Rev, activity};
use crate::ad::deriv::{add_op, mul_op};
use crate::ad::util::{add, zero, zeros_like};
use urchin_base::source::Span;
use urchin_core::build::Builder;
use urchin_core::ir::*;
use urchin_core::visit::{free_in_lambda, freshen_lambda};
use urchin_prim::{BinOp, PrimType, Scalar};

impl Rev {
    pub(super) fn rev_scan(
        &mut self,
        b: &mut Builder,
        s: &Stm,
        op: &Operator,
        args: &[Var],
    ) -> RResult<()> {
        if !args.iter().any(|a| self.active.contains(a)) && !self.reads_active(op) {
            return Ok(());
        }
        self.scan_adjoint(b, s.span, op, args, &s.pat)
    }

    /// Whether the operator reads a differentiated variable.
    pub(super) fn reads_active(&self, op: &Operator) -> bool {
        free_in_lambda(&op.lam)
            .iter()
            .any(|v| self.active.contains(v))
    }

    /// Adds the adjoint contributions of `ys = scan op ne xs` (whose
    /// adjoints are already recorded) to `xs` and to the operator's free
    /// variables.
    pub(super) fn scan_adjoint(
        &mut self,
        b: &mut Builder,
        span: Span,
        op: &Operator,
        xs: &[Var],
        ys: &[Var],
    ) -> RResult<()> {
        // The active components: those with an active input, neutral
        // element or operator result, and those whose adjoint is wanted.
        let comps: Vec<usize> = (0..xs.len())
            .filter(|j| {
                self.active.contains(&xs[*j])
                    || self.active.contains(&op.lam.params[*j])
                    || self.is_active(op.neutral[*j])
                    || self.adjoint(ys[*j]).is_some()
            })
            .collect();
        let Some(&first) = comps.first() else {
            return Ok(());
        };
        let p = b.vars.ty(xs[first]).elem();
        let scalars = xs.iter().all(|x| b.vars.ty(*x).rank() == 1);
        if scalars
            && xs.len() == 1
            && op.lam.section() == Some(BinOp::Add)
            && !self.reads_active(op)
        {
            let ybar = self.adjoint_var(b, ys[0]);
            let rev = b.reverse(ybar);
            let add = b.binop_operator(add_op(p), p, zero(p));
            let suffix = b.scan(add, None, &[rev])[0];
            let c = b.reverse(suffix);
            self.add_adj(b, Atom::Var(xs[0]), c.into());
            return Ok(());
        }
        let n = b.size(xs[0], 0);
        let is = b.iota(n);
        let prevs = left_operands(b, op, ys, is);
        let steps = Steps {
            op,
            xs,
            ys,
            prevs: &prevs,
            comps: &comps,
            n,
        };
        let cs = if scalars && comps.iter().all(|j| b.vars.ty(xs[*j]).elem() == p) {
            self.recurrence_by_scan(b, &steps, is, p)?
        } else {
            self.recurrence_by_loop(b, &steps)?
                .into_iter()
                .map(Some)
                .collect()
        };
        // Each step, reversed as a map seeded with cᵢ; its left operands
        // are not active, their adjoint being the recurrence above.
        let tmps: Vec<Var> = ys.iter().map(|y| b.vars.copy_of(*y)).collect();
        for (j, c) in comps.iter().zip(&cs) {
            if let Some(c) = c {
                self.adj.insert(tmps[*j], Atom::Var(*c));
            }
        }
        // A neutral element computed from differentiated values cancels
        // the operator's own dependence on them at the first step
        // (ne ⊙ x = x for every value): its adjoint is that of the first
        // left operand.
        let ne_active: Vec<(Atom, Var)> = op
            .neutral
            .iter()
            .zip(&prevs)
            .filter(|(ne, _)| self.is_active(**ne))
            .map(|(ne, pv)| (*ne, *pv))
            .collect();
        for (_, pv) in &ne_active {
            self.active.insert(*pv);
        }
        let mut margs = prevs;
        margs.extend(xs);
        let step = Stm {
            pat: tmps.clone(),
            exp: Exp::Map {
                lam: op.lam.clone(),
                args: margs.clone(),
            },
            span,
            ctx: b.ctx,
            origin: b.origin,
        };
        // `tmps` name the steps' results apart from the scan's (their
        // adjoints differ) and are bound nowhere: the reversed operator
        // recomputes them.
        self.rev_map(b, &step, &op.lam, &margs, false)?;
        for t in &tmps {
            self.adj.remove(t);
        }
        for (ne, pv) in ne_active {
            let pbar = self.adjoint_var(b, pv);
            let nonempty = b.bin(BinOp::Gt, n, Atom::i64(0));
            let first = b.if_(
                nonempty,
                |b| vec![b.index1(pbar, Atom::i64(0)).into()],
                |b| vec![zeros_like(b, ne)],
            )[0];
            self.add_adj(b, ne, Atom::Var(first));
        }
        Ok(())
    }

    /// The adjoints `cᵢ` for scalar components, in parallel: the
    /// recurrence as a `scan` composing affine maps over (vector, matrix)
    /// pairs. Only what can be nonzero is scanned: a matrix entry that is
    /// a constant zero in every `Bᵢ` stays zero in their products unless a
    /// chain of nonzero entries links its row to its column, and a
    /// component of `c` no nonzero `ȳ` reaches is zero (`None`). A
    /// diagonal `Bᵢ` (a linear recurrence over pairs) thus scans 2 values
    /// per component instead of k + k².
    fn recurrence_by_scan(
        &mut self,
        b: &mut Builder,
        st: &Steps,
        is: Var,
        p: PrimType,
    ) -> RResult<Vec<Option<Var>>> {
        let (n, kf) = (st.n, st.comps.len());
        let rows = st
            .comps
            .iter()
            .map(|m| self.left_adjoint(b, st.op, st.comps, Some(*m)))
            .collect::<RResult<Vec<Lambda>>>()?;
        // B's entry (l, m) is row m's result l; matrices of flags are
        // row-major.
        let nonzero = |a: &Atom| !matches!(a, Atom::Const(c) if c.as_f64() == 0.0);
        let mut reach: Vec<bool> = (0..kf * kf)
            .map(|e| e / kf == e % kf || nonzero(&rows[e % kf].body.result[e / kf]))
            .collect();
        // Reflexive-transitive closure (Warshall).
        for q in 0..kf {
            for e in 0..kf * kf {
                let (l, m) = (e / kf, e % kf);
                reach[e] = reach[e] || (reach[l * kf + q] && reach[q * kf + m]);
            }
        }
        let seeded: Vec<bool> = st
            .comps
            .iter()
            .map(|j| self.adjoint(st.ys[*j]).is_some())
            .collect();
        let live: Vec<usize> = (0..kf)
            .filter(|l| (0..kf).any(|m| seeded[m] && reach[l * kf + m]))
            .collect();
        if live.is_empty() {
            return Ok(vec![None; kf]);
        }
        // The matrix entries the live components need, and those their
        // products need.
        let mut need: Vec<bool> = (0..kf * kf)
            .map(|e| reach[e] && live.contains(&(e / kf)) && live.contains(&(e % kf)))
            .collect();
        loop {
            let mut grew = false;
            for e in 0..kf * kf {
                let (l, m) = (e / kf, e % kf);
                for q in 0..kf {
                    let (lq, qm) = (l * kf + q, q * kf + m);
                    if need[e] && reach[lq] && reach[qm] && !(need[lq] && need[qm]) {
                        need[lq] = true;
                        need[qm] = true;
                        grew = true;
                    }
                }
            }
            if !grew {
                break;
            }
        }
        let entries: Vec<(usize, usize)> = (0..kf * kf)
            .filter(|e| need[*e])
            .map(|e| (e / kf, e % kf))
            .collect();
        let cols: Vec<usize> = (0..kf)
            .filter(|m| entries.iter().any(|(_, c)| c == m))
            .collect();
        // β_j = B_{n−1−j}, the matrix at step n−j (0 for j = 0).
        let betas = b.map_fn(&[is], |b, j| {
            let first = b.bin(BinOp::Eq, j[0], Atom::i64(0));
            let at = b.bin(BinOp::Sub, n, j[0]);
            let last = b.bin(BinOp::Sub, n, Atom::i64(1));
            let safe = b.bin(BinOp::Min, at, last);
            let inputs = st.operands_at(b, safe);
            let mut jac = vec![zero(p); kf * kf];
            for m in &cols {
                for (l, d) in b.inline(&rows[*m], &inputs).into_iter().enumerate() {
                    jac[l * kf + m] = d;
                }
            }
            entries
                .iter()
                .map(|(l, m)| b.select(first, zero(p), jac[l * kf + m]).into())
                .collect()
        });
        let mut elems: Vec<Var> = live
            .iter()
            .map(|l| match self.adjoint(st.ys[st.comps[*l]]) {
                Some(_) => {
                    let ybar = self.adjoint_var(b, st.ys[st.comps[*l]]);
                    b.reverse(ybar)
                }
                None => b.replicate(n, zero(p)),
            })
            .collect();
        elems.extend(betas);
        let compose = affine_compose(b, p, &live, &entries);
        let ds = b.scan(compose, None, &elems);
        let mut cs = vec![None; kf];
        for (l, d) in live.iter().zip(&ds) {
            cs[*l] = Some(b.reverse(*d));
        }
        Ok(cs)
    }

    /// The adjoints `cᵢ` when elements are arrays (an operator on whole
    /// rows, like a matrix product): the recurrence solved sequentially,
    /// last step first, each step a vector-Jacobian product of the
    /// operator.
    fn recurrence_by_loop(&mut self, b: &mut Builder, st: &Steps) -> RResult<Vec<Var>> {
        let kf = st.comps.len();
        let vjp = self.left_adjoint(b, st.op, st.comps, None)?;
        let ybars: Vec<Var> = st
            .comps
            .iter()
            .map(|j| self.adjoint_var(b, st.ys[*j]))
            .collect();
        let mut init: Vec<Atom> = st
            .comps
            .iter()
            .map(|j| zeros_like(b, st.op.neutral[*j]))
            .collect();
        init.extend(ybars.iter().map(|y| zeros_like(b, Atom::Var(*y))));
        let n = st.n;
        let out = b.loop_for(init, n, |b, j, ps| {
            let (after, cs) = ps.split_at(kf);
            let back = b.bin(BinOp::Sub, n, j);
            let i = b.bin(BinOp::Sub, back, Atom::i64(1));
            let mut next_cs = Vec::with_capacity(kf);
            let mut inputs = st.operands_at(b, i);
            for ((a, c), ybar) in after.iter().zip(cs).zip(&ybars) {
                let here = b.index1(*ybar, i);
                let ci = add(b, Atom::Var(*a), Atom::Var(here));
                next_cs.push(Atom::Var(b.update(*c, vec![DimIndex::Fix(i.into())], ci)));
                inputs.push(ci);
            }
            let mut next = b.inline(&vjp, &inputs);
            next.extend(next_cs);
            next
        });
        Ok(out[kf..].to_vec())
    }

    /// `\a x -> ∂(a ⊙ x)ₘ/∂a` (with `Some(m)`) or `\a x seeds -> seedsᵀ ·
    /// ∂(a ⊙ x)/∂a` (with `None`), over the active components, by reverse
    /// mode on the operator's body. The operator's free variables are
    /// constants here.
    fn left_adjoint(
        &mut self,
        b: &mut Builder,
        op: &Operator,
        comps: &[usize],
        row: Option<usize>,
    ) -> RResult<Lambda> {
        let lam = freshen_lambda(&op.lam, b.vars);
        let mut inner = Rev::new(activity(b.vars, &lam));
        let seeds: Vec<Var> = match row {
            Some(_) => Vec::new(),
            None => comps
                .iter()
                .map(|j| {
                    let t = b.vars.ty(lam.params[*j]);
                    b.fresh("seed", t)
                })
                .collect(),
        };
        let mut nb = Builder::new(b.vars);
        inner.forward(&mut nb, &lam.body.stms)?;
        match row {
            Some(m) => {
                let one = Atom::Const(Scalar::one(nb.vars.ty(lam.params[m]).elem()));
                inner.add_adj(&mut nb, lam.body.result[m], one);
            }
            None => {
                for (j, sd) in comps.iter().zip(&seeds) {
                    inner.add_adj(&mut nb, lam.body.result[*j], Atom::Var(*sd));
                }
            }
        }
        inner.reverse(&mut nb, &lam.body.stms)?;
        let out: Vec<Atom> = comps
            .iter()
            .map(|j| inner.adjoint_or_zero(&mut nb, Atom::Var(lam.params[*j])))
            .collect();
        let body = nb.finish(out);
        let mut params = lam.params;
        params.extend(seeds);
        Ok(Lambda { params, body })
    }
}

/// The steps `ysᵢ = prevsᵢ ⊙ xsᵢ` of a scan being reversed.
struct Steps<'a> {
    op: &'a Operator,
    xs: &'a [Var],
    ys: &'a [Var],
    /// The left operand of each step: ne, ys₀, …, ys_{n−2}.
    prevs: &'a [Var],
    /// The active components.
    comps: &'a [usize],
    n: Var,
}

impl Steps<'_> {
    /// The operands of step `i`, left then right.
    fn operands_at(&self, b: &mut Builder, i: Var) -> Vec<Atom> {
        self.prevs
            .iter()
            .chain(self.xs)
            .map(|a| b.index1(*a, i).into())
            .collect()
    }
}

/// `[ne, ys₀, …, ys_{n−2}]` per component.
fn left_operands(b: &mut Builder, op: &Operator, ys: &[Var], is: Var) -> Vec<Var> {
    b.map_fn(&[is], |b, i| {
        let first = b.bin(BinOp::Eq, i[0], Atom::i64(0));
        let prev = b.bin(BinOp::Sub, i[0], Atom::i64(1));
        let safe = b.bin(BinOp::Max, prev, Atom::i64(0));
        let prevs: Vec<Var> = ys.iter().map(|y| b.index1(*y, safe)).collect();
        if prevs.iter().all(|v| b.vars.ty(*v).rank() == 0) {
            prevs
                .iter()
                .zip(&op.neutral)
                .map(|(v, ne)| b.select(first, *ne, *v).into())
                .collect()
        } else {
            b.if_(
                first,
                |_| op.neutral.clone(),
                |_| prevs.iter().map(|v| Atom::Var(*v)).collect(),
            )
            .into_iter()
            .map(Atom::Var)
            .collect()
        }
    })
}

/// Composition of affine maps `d ↦ M·d + v` on the `live` components of
/// k-vectors, as an operator on (v, M) with M's `entries` (the others
/// being zero): applying (v₁, M₁) then (v₂, M₂) gives
/// `(v₂ + M₂·v₁, M₂·M₁)`. Its neutral element is (0, I). `entries` must
/// hold, with (l, m), every (l, q) and (q, m) whose product can be
/// nonzero.
fn affine_compose(
    b: &mut Builder,
    p: PrimType,
    live: &[usize],
    entries: &[(usize, usize)],
) -> Operator {
    let k = live.len();
    let tys = vec![Type::Prim(p); k + entries.len()];
    let mut neutral = vec![zero(p); k];
    neutral.extend(entries.iter().map(|(l, m)| {
        Atom::Const(if l == m {
            Scalar::one(p)
        } else {
            Scalar::zero(p)
        })
    }));
    let at = |l: usize, m: usize| entries.iter().position(|e| *e == (l, m));
    b.operator(&tys, neutral, |b, l, r| {
        let (v1, m1) = l.split_at(k);
        let (v2, m2) = r.split_at(k);
        // Σ_q a(q)·c(q), left to right.
        let dot = |b: &mut Builder, terms: Vec<(Var, Var)>| -> Atom {
            let mut acc: Option<Atom> = None;
            for (x, y) in terms {
                let t = b.bin(mul_op(p), x, y);
                acc = Some(match acc {
                    None => t.into(),
                    Some(a) => b.bin(add_op(p), a, t).into(),
                });
            }
            acc.unwrap_or(zero(p))
        };
        let mut out = Vec::with_capacity(k + entries.len());
        for (i, row) in live.iter().enumerate() {
            let terms = live
                .iter()
                .enumerate()
                .filter_map(|(iq, q)| at(*row, *q).map(|e| (m2[e], v1[iq])))
                .collect();
            let mv = dot(b, terms);
            out.push(b.bin(add_op(p), v2[i], mv).into());
        }
        for (row, col) in entries {
            let terms = entries
                .iter()
                .enumerate()
                .filter(|(_, (l, _))| l == row)
                .filter_map(|(e1, (_, q))| at(*q, *col).map(|e2| (m2[e1], m1[e2])))
                .collect();
            out.push(dot(b, terms));
        }
        out
    })
}
