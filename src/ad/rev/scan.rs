//! `scan` (thesis 3.4.3). With `ys = scan ⊙ ne xs`, the adjoint `cᵢ` of
//! `ysᵢ` (including what flows back from later elements) satisfies the
//! linear recurrence `cᵢ = ȳᵢ + bᵢ·cᵢ₊₁`, `bᵢ = ∂(ysᵢ ⊙ xsᵢ₊₁)/∂ysᵢ`, which
//! is itself a scan over (adjoint, factor) pairs; then
//! `x̄sᵢ += ∂(ysᵢ₋₁ ⊙ xsᵢ)/∂xsᵢ · cᵢ`. For `+` the factors are 1 and the
//! adjoint is a reversed suffix sum. Scans whose operator works on arrays
//! element-wise were interchanged into maps of scalar scans before AD.

use super::{RResult, Rev, activity, unsupported};
use crate::ad::deriv::is_float;
use crate::core::build::Builder;
use crate::core::ir::*;
use crate::core::pretty::is_simple_binop;
use crate::core::visit::{free_in_lambda, freshen_lambda};
use crate::prim::{BinOp, Scalar};

impl Rev {
    pub(super) fn rev_scan(
        &mut self,
        b: &mut Builder,
        s: &Stm,
        op: &Operator,
        args: &[Var],
    ) -> RResult<()> {
        if !args.iter().any(|a| self.active.contains(a)) {
            if free_in_lambda(&op.lam)
                .iter()
                .any(|v| self.active.contains(v))
            {
                return Err(unsupported(
                    "a `scan` whose operator uses a differentiated variable",
                    s.span,
                ));
            }
            return Ok(());
        }
        if args.len() != 1 || b.vars.ty(args[0]).rank() != 1 || !is_float(b.vars.ty(args[0])) {
            return Err(unsupported(
                "a `scan` over tuples or arrays that is not element-wise",
                s.span,
            ));
        }
        if free_in_lambda(&op.lam)
            .iter()
            .any(|v| self.active.contains(v))
        {
            return Err(unsupported(
                "a `scan` whose operator uses a differentiated variable",
                s.span,
            ));
        }
        let xs = args[0];
        let ys = s.pat[0];
        let ybar = self.adjoint_var(b, ys);
        let p = b.vars.ty(xs).elem();
        if is_simple_binop(op) == Some(BinOp::Add) {
            let rev = b.reverse(ybar);
            let add = b.binop_operator(BinOp::Add, p, Atom::Const(Scalar::zero(p)));
            let suffix = b.scan(add, None, &[rev])[0];
            let c = b.reverse(suffix);
            self.add_adj(b, Atom::Var(xs), c.into());
            return Ok(());
        }
        let n = b.size(xs, 0);
        let is = b.iota(n);
        let ne = op.neutral[0];
        // (∂a, ∂x) of each step a ⊙ x, with a the previous prefix.
        let partials = self.op_partials(b, op)?;
        let parts = b.map_fn(&[is, xs], |b, ps| {
            let first = b.bin(BinOp::Eq, ps[0], Atom::i64(0));
            let prev_i = b.bin(BinOp::Sub, ps[0], Atom::i64(1));
            let safe = b.bin(BinOp::Max, prev_i, Atom::i64(0));
            let y = b.index(ys, vec![DimIndex::Fix(safe.into())]);
            let a = b.select(first, ne, y);
            let f = freshen_lambda(&partials, b.vars);
            for (param, v) in f.params.iter().zip([Atom::Var(a), Atom::Var(ps[1])]) {
                b.push(vec![*param], Exp::Atom(v));
            }
            b.stms.extend(f.body.stms);
            f.body.result
        });
        let (da, dx) = (parts[0], parts[1]);
        // The recurrence, reversed: d_j = ȳr_j + β_j·d_{j−1} with
        // β_j = b_{n−1−j} = ∂a at n−j (0 for j = 0).
        let yr = b.reverse(ybar);
        let betas = b.map_fn(&[is], |b, j| {
            let first = b.bin(BinOp::Eq, j[0], Atom::i64(0));
            let at = b.bin(BinOp::Sub, n, j[0]);
            let last = b.bin(BinOp::Sub, n, Atom::i64(1));
            let safe = b.bin(BinOp::Min, at, last);
            let d = b.index(da, vec![DimIndex::Fix(safe.into())]);
            vec![b.select(first, Atom::Const(Scalar::zero(p)), d).into()]
        })[0];
        let zero = Atom::Const(Scalar::zero(p));
        let one = Atom::Const(Scalar::one(p));
        let rec = b.operator(
            &[Type::Prim(p), Type::Prim(p)],
            vec![zero, one],
            |b, l, r| {
                let scaled = b.bin(BinOp::Mul, r[1], l[0]);
                let a = b.bin(BinOp::Add, r[0], scaled);
                let f = b.bin(BinOp::Mul, l[1], r[1]);
                vec![a.into(), f.into()]
            },
        );
        let d = b.scan(rec, None, &[yr, betas])[0];
        let c = b.reverse(d);
        let contrib = b.map_fn(&[dx, c], |b, ps| {
            vec![b.bin(BinOp::Mul, ps[0], ps[1]).into()]
        })[0];
        self.add_adj(b, Atom::Var(xs), contrib.into());
        Ok(())
    }

    /// `\a x -> (∂(a ⊙ x)/∂a, ∂(a ⊙ x)/∂x)` for a scalar operator, by
    /// reverse mode on its body with seed 1.
    pub(super) fn op_partials(&mut self, b: &mut Builder, op: &Operator) -> RResult<Lambda> {
        let lam = freshen_lambda(&op.lam, b.vars);
        let mut inner = Rev::new(activity(b.vars, &lam));
        let mut nb = Builder::new(b.vars);
        inner.forward(&mut nb, &lam.body.stms)?;
        let p = nb.ty(lam.body.result[0]).elem();
        inner.add_adj(&mut nb, lam.body.result[0], Atom::Const(Scalar::one(p)));
        inner.reverse(&mut nb, &lam.body.stms)?;
        let out: Vec<Atom> = lam
            .params
            .iter()
            .map(|x| inner.adjoint_or_zero(&mut nb, Atom::Var(*x)))
            .collect();
        let body = nb.finish(out);
        Ok(Lambda {
            params: lam.params,
            body,
        })
    }
}
