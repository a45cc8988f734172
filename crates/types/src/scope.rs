//! The type parameters of a local function (`let g 'b (y: b) = ...`).
//! The checker infers each as an unknown and generalises it after the
//! body, so this check applies Futhark's rules for rigid types to what the
//! body made of them. Each must still be a type of its own: not a specific
//! type or class of types, not another of the parameters, and not a type
//! from outside the function ("scope-violation": the function would then
//! no longer work for every type).

use super::infer::Infer;
use super::ty::{Base, TyVar, Type};
use super::unify::Class;
use std::collections::HashSet;
use urchin_base::diag::Diagnostic;
use urchin_base::source::Span;
use urchin_syntax::ast::Ident;

/// One type parameter: its name, where it is written, its unknown.
pub struct Param {
    pub name: Ident,
    pub span: Span,
    pub var: TyVar,
}

/// Checks the parameters of the local function `fun` once its body has
/// been inferred. Unknowns numbered below the first parameter's existed
/// before the function.
pub fn check(inf: &Infer, fun: &Ident, params: &[Param]) -> Result<(), Diagnostic> {
    let Some(first) = params.first().map(|p| p.var.0) else {
        return Ok(());
    };
    let mut seen: Vec<(TyVar, &Ident)> = Vec::new();
    for p in params {
        let rigid = |what: String| {
            Diagnostic::ty(
                format!(
                    "the type parameter \"{}\" of `{fun}` stands for any type, but the body assumes it is {what}",
                    p.name
                ),
                p.span,
            )
            .with_label("a type parameter stands for any type")
            .with_help("remove the type parameter and let the type be inferred, or use the parameter only as a whole value")
        };
        let w = match inf.subst.resolve(&Base::Var(p.var)) {
            Base::Var(w) => w,
            other => return Err(rigid(format!("`{}`", inf.show(&Type::scalar(other))))),
        };
        if w.0 < first {
            return Err(escape(fun, p));
        }
        match inf.subst.class_of(w) {
            Class::Any => {}
            c => return Err(rigid(c.describe())),
        }
        if let Some((_, other)) = seen.iter().find(|(v, _)| *v == w) {
            return Err(rigid(format!("the same type as \"{other}\"")));
        }
        seen.push((w, &p.name));
    }
    // An unknown from before the function whose type now mentions a
    // parameter (through what is known of a record or sum type, too).
    let targets: Vec<TyVar> = seen.iter().map(|(v, _)| *v).collect();
    let mut visited = HashSet::new();
    for i in 0..first {
        let t = inf.subst.apply(&Type::scalar(Base::Var(TyVar(i))));
        if let Some(w) = mentions(inf, &t, &targets, &mut visited) {
            let name = seen.iter().find(|(v, _)| *v == w).map(|(_, n)| *n);
            let p = params.iter().find(|p| Some(&p.name) == name);
            return Err(escape(fun, p.unwrap_or(&params[0])));
        }
    }
    Ok(())
}

/// The first of `targets` that `t` (substituted) mentions; `visited`
/// holds the unknowns whose known fields were already searched.
fn mentions(
    inf: &Infer,
    t: &Type,
    targets: &[TyVar],
    visited: &mut HashSet<TyVar>,
) -> Option<TyVar> {
    let inner: Vec<Type> = match &t.base {
        Base::Prim(_) => Vec::new(),
        Base::Var(w) if targets.contains(w) => return Some(*w),
        Base::Var(w) => match inf.subst.class_of(*w) {
            _ if !visited.insert(*w) => Vec::new(),
            Class::Fields(fs) => fs.into_iter().map(|(_, t)| t).collect(),
            Class::Constrs(cs) => cs.into_iter().flat_map(|(_, ts)| ts).collect(),
            _ => Vec::new(),
        },
        Base::Tuple(ts) => ts.clone(),
        Base::Record(fs) => fs.iter().map(|(_, t)| t.clone()).collect(),
        Base::Arrow(a, b) => vec![(**a).clone(), (**b).clone()],
        Base::Sum(cs) => cs.iter().flat_map(|(_, ts)| ts.iter().cloned()).collect(),
        Base::Abstract(_, args) => args.clone(),
    };
    inner
        .iter()
        .find_map(|t| mentions(inf, &inf.subst.apply(t), targets, visited))
}

fn escape(fun: &Ident, p: &Param) -> Diagnostic {
    Diagnostic::ty(
        format!(
            "the type parameter \"{}\" of `{fun}` is made the type of something bound outside `{fun}` (scope-violation)",
            p.name
        ),
        p.span,
    )
    .with_label("a type parameter stands for any type, chosen anew at each use of the function")
    .with_help(format!(
        "give the outer value its own type, or make \"{}\" a type parameter of the enclosing definition",
        p.name
    ))
}
