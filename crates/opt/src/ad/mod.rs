//! Automatic differentiation on the core IR: `jvp` (forward mode, dual
//! numbers) and `vjp` (reverse mode by redundant execution, thesis
//! chapter 3). Both are core → core transformations run after lowering, so
//! they see first-order ANF with lambdas only as SOAC operands; the
//! simplifier runs afterwards. Nested operators are expanded innermost
//! first, so `jvp` over `vjp` (Hessian-vector products) differentiates
//! ordinary code and no perturbation can be confused.

mod activity;
pub mod deriv;
mod fwd;
mod prepare;
mod rev;
mod util;

use std::collections::HashSet;
use urchin_base::diag::{Diagnostic, Phase};
use urchin_core::build::Builder;
use urchin_core::ir::{Body, Exp, Lambda, MAX_AD_VARS, Program, Stm, Var, Vars};
use urchin_core::visit::{nested, nested_mut};

/// What the transformation did.
#[derive(Default, Debug)]
pub struct AdOutput {
    /// Variables holding loop checkpoints, for memory accounting.
    pub checkpoints: std::collections::HashSet<Var>,
}

/// Replaces every `jvp`/`vjp` of a program by its derivative code.
pub fn transform_program(p: &mut Program) -> Result<AdOutput, Diagnostic> {
    let mut out = AdOutput::default();
    let mut vars = std::mem::take(&mut p.vars);
    let mut result = Ok(());
    for f in &mut p.functions {
        let body = std::mem::take(&mut f.body);
        match transform_body(&mut vars, body, &mut out) {
            Ok(b) => f.body = b,
            Err(e) => {
                result = Err(e);
                break;
            }
        }
    }
    if result.is_ok() {
        for f in &mut p.functions {
            let body = std::mem::take(&mut f.body);
            f.body = inline_custom(&mut vars, body);
        }
    }
    p.vars = vars;
    result.map(|()| out)
}

/// Replaces every `with_vjp` left after differentiation by its primal:
/// the custom adjoint only matters to a `vjp` around it.
fn inline_custom(vars: &mut Vars, body: Body) -> Body {
    let mut b = Builder::new(vars);
    for mut s in body.stms {
        for nb in nested_mut(&mut s.exp) {
            *nb = inline_custom(b.vars, std::mem::take(nb));
        }
        match s.exp {
            Exp::WithVjp { lam, args, .. } => {
                (b.span, b.ctx) = (s.span, s.ctx);
                let results = b.inline(&lam, &args);
                for (v, r) in s.pat.into_iter().zip(results) {
                    b.push(vec![v], Exp::Atom(r));
                }
            }
            exp => b.stms.push(Stm { exp, ..s }),
        }
    }
    b.finish(body.result)
}

/// Rejects the differentiation of `lam` if it calls a recursive function
/// on something that depends on its parameters: as in Futhark, whose AD
/// works on inlined code, a recursive function has no derivative. Calls on
/// other values (a size, a constant) are fine: they are copied as they are.
fn no_active_calls(vars: &Vars, lam: &Lambda) -> Result<(), Diagnostic> {
    fn first<'b>(body: &'b Body, active: &HashSet<Var>) -> Option<&'b Stm> {
        body.stms.iter().find_map(|s| match &s.exp {
            Exp::Call { args, .. }
                if args
                    .iter()
                    .any(|a| a.var().is_some_and(|v| active.contains(&v))) =>
            {
                Some(s)
            }
            e => nested(e).into_iter().find_map(|n| first(n.body, active)),
        })
    }
    let active = activity::activity(vars, lam);
    match first(&lam.body, &active) {
        Some(Stm {
            exp: Exp::Call { name, .. },
            span,
            ..
        }) => Err(Diagnostic::ty(
            format!("cannot differentiate through the recursive function `{name}`"),
            *span,
        )
        .with_label(format!("`{name}` is called here on a differentiated value"))
        .with_help(
            "automatic differentiation needs the function inlined, which recursion prevents (Futhark rejects this too); write the recursion as a `loop`",
        )),
        _ => Ok(()),
    }
}

fn transform_body(vars: &mut Vars, body: Body, out: &mut AdOutput) -> Result<Body, Diagnostic> {
    let mut stms = Vec::with_capacity(body.stms.len());
    for mut s in body.stms {
        for nb in nested_mut(&mut s.exp) {
            *nb = transform_body(vars, std::mem::take(nb), out)?;
        }
        let before = vars.len();
        match s.exp {
            Exp::Jvp {
                lam,
                primals,
                tangents,
            } => {
                no_active_calls(vars, &lam)?;
                let mut b = Builder::new(vars);
                (b.span, b.ctx) = (s.span, s.ctx);
                let lam = prepare::prepare(b.vars, lam);
                fwd::jvp(&mut b, &lam, &primals, &tangents, &s.pat);
                stms.extend(b.stms);
            }
            Exp::Vjp {
                lam,
                primals,
                cotangents,
            } => {
                no_active_calls(vars, &lam)?;
                let mut b = Builder::new(vars);
                (b.span, b.ctx) = (s.span, s.ctx);
                let lam = prepare::prepare(b.vars, lam);
                let r = rev::vjp(&mut b, &lam, &primals, &cotangents, &s.pat, &stms)?;
                out.checkpoints.extend(r.checkpoints);
                stms.extend(b.stms);
            }
            exp => {
                stms.push(Stm { exp, ..s });
                continue;
            }
        }
        if vars.len() - before > MAX_AD_VARS {
            return Err(Diagnostic::new(
                Phase::Limit,
                "differentiating this makes the program too large",
            )
            .at(s.span)
            .with_label(format!(
                "its derivative needs more than {MAX_AD_VARS} variables"
            ))
            .with_help(
                "each nested `jvp`/`vjp` multiplies the code it differentiates: \
                 nest fewer, or differentiate a smaller function",
            ));
        }
    }
    Ok(Body {
        stms,
        result: body.result,
    })
}
