//! Futhark's restrictions on recursive functions, checked on a recursive
//! definition's target: a function with a function parameter is only used
//! as a call with every argument, passing each function parameter
//! unchanged, and the result is first-order. Together they make each specialisation of a higher-order
//! recursive function finite (see `core::lower::calls`).

use super::CheckedDef;
use super::env::{DefId, GlobalKind};
use urchin_base::diag::Diagnostic;
use urchin_base::source::Span;
use urchin_syntax::ast::*;
use urchin_syntax::spine::{self, Head};

/// Checks the definition `def`, which is recursive and will be `own`.
pub fn check(def: &CheckedDef, own: DefId) -> Result<(), Diagnostic> {
    let d = &def.target;
    if def.ret.has_function() {
        return Err(not_first_order(&d.name, d.name_span));
    }
    // The function parameters, by position, with the name each binds.
    let funs: Vec<(usize, Option<&Ident>)> = def
        .params
        .iter()
        .enumerate()
        .filter(|(_, t)| t.has_function())
        .map(|(k, _)| {
            let name = match &d.params[k] {
                Pat::Id(x, _) => Some(x),
                Pat::Ascribed(p, _, _) => match &**p {
                    Pat::Id(x, _) => Some(x),
                    _ => None,
                },
                _ => None,
            };
            (k, name)
        })
        .collect();
    let c = Checker {
        def,
        own,
        arity: d.params.len(),
        funs,
    };
    let mut stack = vec![&d.body];
    while let Some(e) = stack.pop() {
        c.expr(e, &mut stack)?;
    }
    Ok(())
}

pub(super) fn not_first_order(name: &str, at: Span) -> Diagnostic {
    Diagnostic::ty(
        format!("the result of the recursive function `{name}` is not first-order: it is or contains a function"),
        at,
    )
    .with_help("as in Futhark, a recursive function cannot return a function: give it more parameters instead")
}

struct Checker<'a> {
    def: &'a CheckedDef,
    own: DefId,
    arity: usize,
    funs: Vec<(usize, Option<&'a Ident>)>,
}

impl<'a> Checker<'a> {
    fn is_own(&self, id: NodeId) -> bool {
        matches!(self.def.resolved.get(&id), Some(GlobalKind::Def(d)) if *d == self.own)
    }

    /// The node naming the head, if it is a recursive use.
    fn own_head(&self, e: &Expr, head: &Head) -> bool {
        match head {
            Head::Expr(h) => matches!(h.kind, ExprKind::Var(_)) && self.is_own(h.id),
            Head::Op(_) | Head::Backtick(_) => self.is_own(e.id),
            _ => false,
        }
    }

    /// Checks `e` itself, and pushes what to check inside it.
    fn expr(&self, e: &'a Expr, stack: &mut Vec<&'a Expr>) -> Result<(), Diagnostic> {
        if let Some(sp) = spine::spine_of(e) {
            if self.own_head(e, &sp.head) {
                self.call(e, &sp.args)?;
            } else if let Head::Expr(h) = sp.head {
                stack.push(h);
            }
            stack.extend(sp.args);
            return Ok(());
        }
        let own_value = match &e.kind {
            ExprKind::Var(_) | ExprKind::OpValue(_) => self.is_own(e.id),
            ExprKind::OpSection { .. } => self.is_own(e.id),
            _ => false,
        };
        if let Some(err) = own_value.then(|| self.unsaturated(e.span, 0)).flatten() {
            return Err(err);
        }
        stack.extend(e.children());
        Ok(())
    }

    /// A recursive call with `args`.
    fn call(&self, e: &Expr, args: &[&Expr]) -> Result<(), Diagnostic> {
        if args.len() < self.arity {
            if let Some(err) = self.unsaturated(e.span, args.len()) {
                return Err(err);
            }
            return Ok(());
        }
        for (k, name) in &self.funs {
            let unchanged = match (&args[*k].kind, name) {
                (ExprKind::Var(q), Some(n)) => {
                    q.quals.is_empty()
                        && q.name == **n
                        && !self.def.resolved.contains_key(&args[*k].id)
                }
                _ => false,
            };
            if !unchanged {
                let which = name.map_or(format!("{}", k + 1), |n| format!("`{n}`"));
                return Err(Diagnostic::ty(
                    format!(
                        "the function parameter {which} of the recursive function `{}` must be passed unchanged",
                        self.def.name
                    ),
                    args[*k].span,
                )
                .with_label("a different function is passed here")
                .with_help(
                    "as in Futhark, a recursive call passes each function parameter as the parameter itself; pass other functions through a non-recursive helper",
                ));
            }
        }
        Ok(())
    }

    /// A use of a recursive function with function parameters that is not
    /// a call with every argument (`None` for one without: it may be a
    /// value).
    fn unsaturated(&self, at: Span, given: usize) -> Option<Diagnostic> {
        let name = &self.def.name;
        if self.funs.is_empty() {
            return None;
        }
        let message = if given == 0 {
            format!(
                "the recursive function `{name}` has a higher-order parameter, so it may only be used applied to all its arguments"
            )
        } else {
            format!(
                "the recursive use of `{name}` is not fully saturated: it takes {} arguments, given {given}",
                self.arity
            )
        };
        Some(
            Diagnostic::ty(message, at)
                .with_label("the function values it is specialised to must be known at each call")
                .with_help("as in Futhark, a recursive function with a function parameter is only ever called with every argument"),
        )
    }
}
