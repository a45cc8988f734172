//! Reps whose length is needed but that have none.
//!
//! AUTOMAP may pass a value where an array is expected by wrapping it in
//! `rep`, which has no length of its own: it takes the length of the
//! arrays it is mapped with. Given to a function that needs the length of
//! that argument (`length 3` is `length (rep 3)`, `f64.sum 3`), nothing
//! can say how long it is, and the program could only fail when run. As in
//! Futhark, where the length of a non-array is a type error, the checker
//! rejects it, pointing at the argument.
//!
//! Which arguments a function needs the length of: for a primitive, a
//! table ([`groups`]); for a definition, the parameters its body passes
//! directly where a length is needed ([`needed_lengths`], recorded in the
//! [`super::CheckedDef`]), so `f64.sum` is checked as `reduce` is.

use super::CheckedDef;
use super::env::GlobalKind;
use super::infer::Infer;
use super::intrinsics::Intrinsic;
use super::ty::Base;
use super::unify::Class;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use urchin_base::diag::Diagnostic;
use urchin_syntax::ast::*;
use urchin_syntax::spine::{self, Head};
use urchin_syntax::visit;

/// The argument positions a primitive needs a length from, in groups: at
/// least one argument of each group must be an array (`zip`, `map` and
/// the others take the length of whichever argument has one; `hist`
/// needs it from its indices or its values).
fn intrinsic_groups(op: &Intrinsic) -> &'static [&'static [usize]] {
    match op {
        Intrinsic::Length | Intrinsic::Flatten | Intrinsic::Transpose | Intrinsic::Unflatten => {
            &[&[0]]
        }
        Intrinsic::Reduce { .. } | Intrinsic::Scan => &[&[2]],
        Intrinsic::Hist => &[&[3, 4]],
        Intrinsic::ReduceByIndex => &[&[0], &[3, 4]],
        Intrinsic::Scatter | Intrinsic::Scatter2d => &[&[0], &[1, 2]],
        Intrinsic::Concat | Intrinsic::Operator(BinOpKind::Concat) => &[&[0], &[1]],
        _ => &[],
    }
}

/// What [`Heads::find`] calls with a spine's head, a group of its
/// arguments that all lack a length, and how many maps deep they are.
type OnGroup<'f, T> = dyn FnMut(&Head, &[&Expr], usize) -> Option<T> + 'f;

/// What the heads of the spines of one definition's target refer to.
pub struct Heads<'a> {
    pub resolved: HashMap<NodeId, &'a GlobalKind>,
    pub local_ops: &'a HashSet<NodeId>,
    pub defs: &'a [Rc<CheckedDef>],
}

impl Heads<'_> {
    /// The groups of argument positions the head of spine `e` needs a
    /// length from.
    fn groups(&self, e: &Expr, head: &Head) -> Vec<Vec<usize>> {
        let kind = match head {
            Head::Expr(h) if matches!(h.kind, ExprKind::Var(_)) => self.resolved.get(&h.id),
            Head::Backtick(_) => self.resolved.get(&e.id),
            Head::Op(BinOpKind::Concat) if !self.local_ops.contains(&e.id) => {
                return vec![vec![0], vec![1]];
            }
            Head::Expr(h) if matches!(h.kind, ExprKind::OpValue(BinOpKind::Concat)) => {
                return vec![vec![0], vec![1]];
            }
            _ => None,
        };
        match kind {
            Some(GlobalKind::Intrinsic(op)) => {
                intrinsic_groups(op).iter().map(|g| g.to_vec()).collect()
            }
            Some(GlobalKind::Def(id)) => match self.defs.get(id.0 as usize) {
                Some(d) => (d.needs_length.iter().enumerate())
                    .filter(|(_, n)| **n)
                    .map(|(i, _)| vec![i])
                    .collect(),
                None => Vec::new(),
            },
            _ => Vec::new(),
        }
    }

    /// Calls `found` with each spine of `body` and the groups of its
    /// arguments that are all `sizeless`, in source order, until it
    /// returns something. A spine `mapN (mapN f) xs ys` is also looked at
    /// as `f` applied to the elements two levels down: `sizeless` is given
    /// the number of levels its argument is mapped over.
    fn find<T>(
        &self,
        body: &Expr,
        enter: &dyn Fn(&Expr) -> bool,
        sizeless: &dyn Fn(&Expr, usize) -> bool,
        found: &mut OnGroup<'_, T>,
    ) -> Option<T> {
        let mut stack = vec![body];
        while let Some(e) = stack.pop() {
            if !enter(e) {
                continue;
            }
            if let Some(sp) = spine::spine_of(e) {
                let (head, args, depth) = self.mapped(&sp).unwrap_or((sp.head, &sp.args[..], 0));
                for g in self.groups(e, &head) {
                    let Some(group) = g
                        .iter()
                        .map(|&i| args.get(i).copied())
                        .collect::<Option<Vec<&Expr>>>()
                    else {
                        continue;
                    };
                    if group.iter().all(|a| sizeless(a, depth))
                        && let Some(t) = found(&head, &group, depth)
                    {
                        return Some(t);
                    }
                }
            }
            stack.extend(e.children().into_iter().rev());
        }
        None
    }

    /// `mapN (mapN f) a1 .. aN` as `f`, its arguments and the depth of
    /// the nest.
    fn mapped<'e>(&self, sp: &'e spine::Spine<'e>) -> Option<(Head<'e>, &'e [&'e Expr], usize)> {
        let is_map = |e: &Expr| {
            matches!(e.kind, ExprKind::Var(_))
                && matches!(
                    self.resolved.get(&e.id),
                    Some(GlobalKind::Intrinsic(Intrinsic::Map(_)))
                )
        };
        let Head::Expr(h) = sp.head else {
            return None;
        };
        let (f, args) = sp.args.split_first()?;
        if !is_map(h) {
            return None;
        }
        let (mut f, mut depth) = (*f, 1);
        while let ExprKind::Apply(g, inner) = &f.kind
            && inner.len() == 1
            && is_map(g)
        {
            f = &inner[0];
            depth += 1;
        }
        Some((Head::Expr(f), args, depth))
    }
}

/// For each parameter of `d` (the target), whether its body needs that
/// parameter's length: passes it, by its name, where a length is needed.
/// A parameter used otherwise (mapped with other arrays, indexed, bound
/// to another name) is not counted, so a call is rejected only where it
/// would certainly fail.
pub fn needed_lengths(d: &ValDec, heads: &Heads) -> Vec<bool> {
    d.params
        .iter()
        .map(|p| {
            let Some(x) = simple_name(p) else {
                return false;
            };
            let is_x = |a: &Expr, depth: usize| {
                depth == 0 && matches!(&a.kind, ExprKind::Var(q) if q.is_local() && q.name == *x)
            };
            let enter = |e: &Expr| !binds(e, x);
            heads
                .find(&d.body, &enter, &is_x, &mut |_, _, _| Some(()))
                .is_some()
        })
        .collect()
}

/// The name a parameter binds when it is a name (perhaps annotated).
pub(crate) fn simple_name(p: &Pat) -> Option<&Ident> {
    match p {
        Pat::Id(x, _) => Some(x),
        Pat::Ascribed(p, _, _) => simple_name(p),
        _ => None,
    }
}

/// Whether `e` binds `x` in some part of it (then uses of `x` below it may
/// be another variable, and are not looked at).
fn binds(e: &Expr, x: &str) -> bool {
    let mut found = false;
    visit::for_each_child(e, |_, bound| found |= bound.binds(x));
    found
}

/// The first `rep` that AUTOMAP inserted (a `Var` in `inserted`) where
/// the function it is given to needs its length, as a type error at the
/// replicated argument, with the `Var` nodes of the reps of the
/// arguments that lack a length.
pub fn check_reps(
    body: &Expr,
    heads: &Heads,
    inserted: &HashSet<NodeId>,
    inf: &Infer,
) -> Result<(), (Diagnostic, Vec<NodeId>)> {
    let sizeless = |a: &Expr, depth: usize| peel_reps(a, inserted).1 > depth;
    let error = heads.find(body, &|_| true, &sizeless, &mut |head, args, depth| {
        let (inner, k) = peel_reps(args[0], inserted);
        let mut reps = Vec::new();
        for a in args {
            let mut x = *a;
            while let ExprKind::Apply(f, inner) = &x.kind
                && inner.len() == 1
                && inserted.contains(&f.id)
            {
                reps.push(f.id);
                x = &inner[0];
            }
        }
        Some((rep_error(head, inner, k - depth, inf), reps))
    });
    error.map_or(Ok(()), Err)
}

/// `x` and `k` if `a` is `rep (rep .. x)` with `k` reps inserted by
/// AUTOMAP.
fn peel_reps<'e>(a: &'e Expr, inserted: &HashSet<NodeId>) -> (&'e Expr, usize) {
    let (mut inner, mut k) = (a, 0);
    while let Some(x) = inserted_rep(inner, inserted) {
        inner = x;
        k += 1;
    }
    (inner, k)
}

/// `x` if `a` is `rep x` inserted by AUTOMAP.
fn inserted_rep<'e>(a: &'e Expr, inserted: &HashSet<NodeId>) -> Option<&'e Expr> {
    match &a.kind {
        ExprKind::Apply(f, args) if args.len() == 1 && inserted.contains(&f.id) => Some(&args[0]),
        _ => None,
    }
}

fn rep_error(head: &Head, arg: &Expr, reps: usize, inf: &Infer) -> Diagnostic {
    let name = match head {
        Head::Expr(h) => format!("`{}`", urchin_syntax::pretty::expr(h)),
        Head::Backtick(q) => format!("`{q}`"),
        Head::Op(op) => format!("`({})`", op.symbol()),
        _ => "this function".into(),
    };
    let text = urchin_syntax::pretty::expr(arg);
    let what = if text.chars().count() <= 30 && !text.contains('\n') {
        format!("`{text}`")
    } else {
        "this argument".into()
    };
    let ty = inf.node_types.iter().find(|(id, _)| *id == arg.id);
    let has = match ty {
        Some((_, t)) => match inf.subst.resolve_ref(&t.base) {
            Base::Var(v)
                if !matches!(inf.subst.class_of(*v), Class::Any | Class::Fields(_))
                    && !inf.show(t).starts_with('[') =>
            {
                format!("has {}", inf.subst.class_of(*v).describe())
            }
            _ => format!("has type `{}`", inf.show(t)),
        },
        None => "is not an array".into(),
    };
    let message = if reps == 1 && ty.is_some_and(|(_, t)| !inf.show(t).starts_with('[')) {
        format!("{name} needs the length of an array here, and {what} is not an array")
    } else {
        let s = if reps == 1 { "" } else { "s" };
        format!(
            "{name} needs the length of an array here, and {what} has {reps} dimension{s} too few"
        )
    };
    Diagnostic::ty(message, arg.span)
        .with_label(format!("this {has}"))
        .with_help(
            "AUTOMAP could only make it an array by replicating it, and nothing says how long that array is: pass an array, or build one of the length you mean with `replicate n x`",
        )
}

/// The application of the `rep` whose `Var` node is `node` in `body`,
/// and its argument.
fn rep_application(body: &Expr, node: NodeId) -> Option<(&Expr, &Expr)> {
    let mut stack = vec![body];
    while let Some(e) = stack.pop() {
        if let ExprKind::Apply(f, args) = &e.kind
            && f.id == node
            && args.len() == 1
        {
            return Some((e, &args[0]));
        }
        stack.extend(e.children());
    }
    None
}

/// The error for a `rep` written in an entry point (its `Var` node
/// `node` in `body`) whose array reaches the result with no length:
/// what an entry point returns is data, which has one.
pub fn entry_rep(body: &Expr, node: NodeId, entry: &str) -> Diagnostic {
    let Some((rep, _)) = rep_application(body, node) else {
        return Diagnostic::internal("a `rep` that is not in the program", body.span);
    };
    Diagnostic::ty(
        format!("Ambiguous size: the entry point `{entry}` returns the array this `rep` makes, whose length nothing determines"),
        rep.span,
    )
    .with_label("replicated here into an array of no length")
    .with_help(
        "say how long it is: `replicate n x`, or declare the result's type with a size (`: [n]t`)",
    )
}

/// The error for a free `rep` AUTOMAP would insert (its `Var` node
/// `node` in `body`, the target) whose length nothing determines: the
/// value it makes would be an array without a length.
pub fn sizeless_rep(body: &Expr, node: NodeId) -> Diagnostic {
    let Some((_, arg)) = rep_application(body, node) else {
        return Diagnostic::internal(
            "a replicated argument that is not in the program",
            body.span,
        );
    };
    // (The argument as written: inner reps are AUTOMAP's too.)
    let mut inner = arg;
    while let ExprKind::Apply(f, args) = &inner.kind
        && args.len() == 1
        && matches!(&f.kind, ExprKind::Var(q) if q.is_local() && &*q.name == "rep")
    {
        inner = &args[0];
    }
    let text = urchin_syntax::pretty::expr(inner);
    let what = if text.chars().count() <= 30 && !text.contains('\n') {
        format!("`{text}`")
    } else {
        "this argument".into()
    };
    Diagnostic::ty(
        format!("{what} has too few dimensions here, and replicating it would make an array whose length nothing determines"),
        arg.span,
    )
    .with_label("AUTOMAP could only pass this by replicating it (`rep`), into an array of no known length")
    .with_help(
        "pass an array of the length you mean (`replicate n x`), or annotate types so that AUTOMAP maps the application instead",
    )
}
