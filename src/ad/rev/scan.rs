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
//! suffix sum. Integer and boolean components (flags of a segmented scan)
//! are constants: they take part in the primal steps but have no rows in
//! the matrices. Scans whose operator works on arrays element-wise were
//! interchanged into maps of scalar scans before AD.

use super::{RResult, Rev, activity, unsupported};
use crate::ad::deriv::is_float;
use crate::ad::util::zero;
use crate::core::build::Builder;
use crate::core::ir::*;
use crate::core::pretty::is_simple_binop;
use crate::core::visit::{free_in_lambda, freshen_lambda};
use crate::prim::{BinOp, PrimType, Scalar};
use crate::source::Span;

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
        if xs.iter().any(|x| b.vars.ty(*x).rank() != 1) {
            return Err(unsupported(
                "a `scan` over arrays whose operator is not element-wise",
                span,
            ));
        }
        let floats: Vec<usize> = (0..xs.len())
            .filter(|j| is_float(b.vars.ty(xs[*j])))
            .collect();
        let Some(&first) = floats.first() else {
            return Ok(());
        };
        let p = b.vars.ty(xs[first]).elem();
        if floats.iter().any(|j| b.vars.ty(xs[*j]).elem() != p) {
            return Err(unsupported("a `scan` over tuples mixing float types", span));
        }
        if xs.len() == 1 && is_simple_binop(op) == Some(BinOp::Add) && !self.reads_active(op) {
            let ybar = self.adjoint_var(b, ys[0]);
            let rev = b.reverse(ybar);
            let add = b.binop_operator(BinOp::Add, p, zero(p));
            let suffix = b.scan(add, None, &[rev])[0];
            let c = b.reverse(suffix);
            self.add_adj(b, Atom::Var(xs[0]), c.into());
            return Ok(());
        }
        let n = b.size(xs[0], 0);
        let is = b.iota(n);
        // The left operand of each step: ne, ys₀, …, ys_{n−2}.
        let prevs = b.map_fn(&[is], |b, i| {
            let first = b.bin(BinOp::Eq, i[0], Atom::i64(0));
            let prev = b.bin(BinOp::Sub, i[0], Atom::i64(1));
            let safe = b.bin(BinOp::Max, prev, Atom::i64(0));
            ys.iter()
                .zip(&op.neutral)
                .map(|(y, ne)| {
                    let v = b.index1(*y, safe);
                    b.select(first, *ne, v).into()
                })
                .collect()
        });
        let step_vjp = self.step_vjp(b, op, &floats)?;
        let kf = floats.len();
        // β_j = B_{n−1−j}, the matrix at step n−j (0 for j = 0), row-major.
        let betas = b.map_fn(&[is], |b, j| {
            let first = b.bin(BinOp::Eq, j[0], Atom::i64(0));
            let at = b.bin(BinOp::Sub, n, j[0]);
            let last = b.bin(BinOp::Sub, n, Atom::i64(1));
            let safe = b.bin(BinOp::Min, at, last);
            let mut inputs: Vec<Atom> = prevs
                .iter()
                .chain(xs)
                .map(|a| b.index1(*a, safe).into())
                .collect();
            inputs.extend(floats.iter().map(|_| zero(p)));
            let mut jac = vec![zero(p); kf * kf];
            for m in 0..kf {
                inputs[2 * xs.len() + m] = Atom::Const(Scalar::one(p));
                // Seeding output m gives row m of the Jacobian: ∂out_m/∂a_l.
                let abar = b.inline(&step_vjp, &inputs);
                for l in 0..kf {
                    jac[l * kf + m] = abar[l];
                }
                inputs[2 * xs.len() + m] = zero(p);
            }
            jac.into_iter()
                .map(|e| b.select(first, zero(p), e).into())
                .collect()
        });
        let ybars_rev: Vec<Var> = floats
            .iter()
            .map(|j| {
                let ybar = self.adjoint_var(b, ys[*j]);
                b.reverse(ybar)
            })
            .collect();
        let mut elems = ybars_rev;
        elems.extend(betas);
        let compose = affine_compose(b, p, kf);
        let ds = b.scan(compose, None, &elems);
        let cs: Vec<Var> = ds[..kf].iter().map(|d| b.reverse(*d)).collect();
        // Each step, reversed as a map seeded with cᵢ; its left operands
        // are not active, their adjoint being the recurrence above.
        let tmps: Vec<Var> = ys.iter().map(|y| b.vars.copy_of(*y)).collect();
        for (j, c) in floats.iter().zip(&cs) {
            self.adj.insert(tmps[*j], Atom::Var(*c));
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
        };
        let r = self.rev_map(b, &step, &op.lam, &margs);
        for t in &tmps {
            self.adj.remove(t);
        }
        r
    }

    /// `\a x seeds -> (ā, x̄)` for one step `a ⊙ x` of the operator, over
    /// the float components `floats` (seeds and adjoints), by reverse mode
    /// on its body. The operator's free variables are constants here.
    fn step_vjp(&mut self, b: &mut Builder, op: &Operator, floats: &[usize]) -> RResult<Lambda> {
        let lam = freshen_lambda(&op.lam, b.vars);
        let k = op.neutral.len();
        let mut inner = Rev::new(activity(b.vars, &lam));
        let seeds: Vec<Var> = floats
            .iter()
            .map(|j| {
                let t = b.vars.ty(lam.params[*j]);
                b.fresh("seed", t)
            })
            .collect();
        let mut nb = Builder::new(b.vars);
        inner.forward(&mut nb, &lam.body.stms)?;
        for (j, sd) in floats.iter().zip(&seeds) {
            inner.add_adj(&mut nb, lam.body.result[*j], Atom::Var(*sd));
        }
        inner.reverse(&mut nb, &lam.body.stms)?;
        let wrt: Vec<Var> = [0, k]
            .iter()
            .flat_map(|off| floats.iter().map(move |j| off + j))
            .map(|i| lam.params[i])
            .collect();
        let out: Vec<Atom> = wrt
            .iter()
            .map(|x| inner.adjoint_or_zero(&mut nb, Atom::Var(*x)))
            .collect();
        let body = nb.finish(out);
        let mut params = lam.params;
        params.extend(seeds);
        Ok(Lambda { params, body })
    }
}

/// Composition of affine maps `d ↦ M·d + v` on k-vectors, as an operator
/// on (v, M) with M row-major: applying (v₁, M₁) then (v₂, M₂) gives
/// `(v₂ + M₂·v₁, M₂·M₁)`. Its neutral element is (0, I).
fn affine_compose(b: &mut Builder, p: PrimType, k: usize) -> Operator {
    let tys = vec![Type::Prim(p); k + k * k];
    let mut neutral = vec![zero(p); k];
    neutral.extend((0..k * k).map(|e| {
        let diag = e / k == e % k;
        Atom::Const(if diag {
            Scalar::one(p)
        } else {
            Scalar::zero(p)
        })
    }));
    b.operator(&tys, neutral, |b, l, r| {
        let (v1, m1) = l.split_at(k);
        let (v2, m2) = r.split_at(k);
        // Σ_q a(q)·c(q), left to right.
        let dot = |b: &mut Builder, terms: Vec<(Var, Var)>| -> Atom {
            let mut acc: Option<Atom> = None;
            for (x, y) in terms {
                let t = b.bin(BinOp::Mul, x, y);
                acc = Some(match acc {
                    None => t.into(),
                    Some(a) => b.bin(BinOp::Add, a, t).into(),
                });
            }
            acc.expect("k > 0")
        };
        let mut out = Vec::with_capacity(k + k * k);
        for row in 0..k {
            let mv = dot(b, (0..k).map(|q| (m2[row * k + q], v1[q])).collect());
            out.push(b.bin(BinOp::Add, v2[row], mv).into());
        }
        for row in 0..k {
            for col in 0..k {
                let terms = (0..k).map(|q| (m2[row * k + q], m1[q * k + col])).collect();
                out.push(dot(b, terms));
            }
        }
        out
    })
}
