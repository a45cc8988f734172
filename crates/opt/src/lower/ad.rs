//! Lowering the AD operators: `jvp`/`vjp` (and their `2` variants),
//! `jmp`/`mjp` and `with_vjp`.

use super::value::Val;
use super::{LResult, Lower};
use urchin_base::source::Span;
use urchin_core::ir::Atom;
use urchin_types::intrinsics::Intrinsic;

impl<'t> Lower<'t> {
    /// `jvp`/`vjp` and their `2` variants: a core AD operator over a
    /// lambda made from the function.
    pub(super) fn ad(&mut self, i: &Intrinsic, args: &[Val<'t>], span: Span) -> LResult<Val<'t>> {
        let (f, x, seed) = (&args[0], &args[1], &args[2]);
        let (lam, out_template) = self.lambda(f, std::slice::from_ref(x), span)?;
        let primals = self.leaves(x, span)?;
        let seeds = self.leaves(seed, span)?;
        let n_results = lam.body.result.len();
        let forward = matches!(i, Intrinsic::Jvp | Intrinsic::Jvp2);
        let out = if forward {
            self.b.at(span, "_jvp").jvp(lam, primals, seeds)
        } else {
            self.b.at(span, "_vjp").vjp(lam, primals, seeds)
        };
        let (prim, deriv) = out.split_at(n_results);
        let primal_val = Self::restructure(&out_template, &mut prim.iter().map(|v| Atom::Var(*v)));
        let deriv_val = if forward {
            Self::restructure(&out_template, &mut deriv.iter().map(|v| Atom::Var(*v)))
        } else {
            Self::restructure(x, &mut deriv.iter().map(|v| Atom::Var(*v)))
        };
        Ok(match i {
            Intrinsic::Jvp | Intrinsic::Vjp => deriv_val,
            _ => Val::Node(vec![(None, primal_val), (None, deriv_val)]),
        })
    }

    /// `with_vjp f f' x`: `f` and `f'` as lambdas over the leaves of `x`
    /// (and, for `f'`, of the result's cotangent).
    pub(super) fn with_vjp(&mut self, args: &[Val<'t>], span: Span) -> LResult<Val<'t>> {
        let (f, df, x) = (&args[0], &args[1], &args[2]);
        let (lam, out_template) = self.lambda(f, std::slice::from_ref(x), span)?;
        let (adjoint, _) = self.lambda(df, &[x.clone(), out_template.clone()], span)?;
        let primals = self.leaves(x, span)?;
        let out = self.b.at(span, "_wv").with_vjp(lam, adjoint, primals);
        Ok(Self::restructure(
            &out_template,
            &mut out.into_iter().map(Atom::Var),
        ))
    }

    /// `jmp f x dxs` is `map (\dx -> jvp f x dx) dxs`, and `mjp` likewise
    /// with `vjp`: the derivative code is built once and mapped over the
    /// seeds.
    pub(super) fn ad_many(
        &mut self,
        i: &Intrinsic,
        args: &[Val<'t>],
        span: Span,
    ) -> LResult<Val<'t>> {
        let (f, x, seeds) = (&args[0], &args[1], &args[2]);
        let single = if *i == Intrinsic::Jmp {
            Intrinsic::Jvp
        } else {
            Intrinsic::Vjp
        };
        let mut params = Vec::new();
        let mut arrays = Vec::new();
        let elem = self.map_elem(seeds, &mut params, &mut arrays, span)?;
        self.emit_map(params, arrays, "_many", span, |l| {
            l.ad(&single, &[f.clone(), x.clone(), elem], span)
        })
    }
}
