//! Lifted types (language reference, "Higher-order functions"): a type
//! parameter `'a` stands for a value type, one with no functions in it;
//! only a lifted parameter `'^a` may stand for a function type, and a
//! size-lifted one `'~a` for a type whose sizes are unknown. So
//! - a definition's plain type parameter is never instantiated with a
//!   function type, nor with a lifted type parameter of the user's
//!   (`cond b f g` where `cond 'a (x: a) (y: a)` is rejected for
//!   functions `f`, `g`), and a size-lifted parameter never with a
//!   function type;
//! - a lifted type parameter is not the type of an array's elements, nor
//!   of what an `if`, a `match` or a loop returns (it may be a function);
//! - no array type names functions or lifted types as its elements
//!   (`[](i32 -> i32)`, `[3]arr` with `type^ arr`).
//!
//! Checked on a definition once its types are known (the instantiations of
//! what it uses are in `CheckedDef::insts`).

use super::CheckedDef;
use super::env::{GlobalKind, Globals};
use super::ty::{Base, Type};
use std::rc::Rc;
use urchin_base::diag::Diagnostic;
use urchin_base::source::Span;
use urchin_syntax::ast::*;
use urchin_syntax::visit;

type Result<T> = std::result::Result<T, Diagnostic>;

/// `Cannot create array with elements of lifted type "t"`, in the words
/// of `t`'s liftedness (`type^`, a function type: may be a function;
/// `type~`: its sizes may differ from value to value).
pub fn array_of_lifted(shown: &str, l: Liftedness, at: Span) -> Diagnostic {
    if l == Liftedness::SizeLifted {
        return Diagnostic::ty(
            format!("Cannot create array with elements of size-lifted type \"{shown}\": its values may have sizes of their own."),
            at,
        )
        .with_label("this would be an array of a size-lifted type")
        .with_note(format!(
            "`{shown}` is size-lifted (`~`): its arrays' sizes may differ from one value to the next, and the elements of an array all have the same sizes"
        ))
        .with_help(format!(
            "give `{shown}` its sizes as parameters (`type {shown} [n] = ...`, then `[]({shown} [n])`), or keep its values apart"
        ));
    }
    Diagnostic::ty(
        format!("Cannot create array with elements of lifted type \"{shown}\": functional values are not data."),
        at,
    )
    .with_label("this would be an array of functions")
    .with_help(
        "a function (or a type that may be one) is not data: keep such values apart, or apply the functions first",
    )
}

/// Checks a checked definition; `defs` are those it uses.
pub fn check(def: &CheckedDef, defs: &[Rc<CheckedDef>]) -> Result<()> {
    let own = type_param_vars(def);
    let lifted = |t: &Base| match t {
        Base::Var(v) => own
            .iter()
            .find(|(_, l, i)| *i == v.0 && *l != Liftedness::Plain)
            .map(|(n, l, _)| (n.clone(), *l)),
        _ => None,
    };
    // What the definition instantiates.
    for (node, inst) in &def.insts {
        let Some(GlobalKind::Def(id)) = def.resolved.get(node) else {
            continue;
        };
        let Some(callee) = defs.get(id.0 as usize) else {
            continue;
        };
        for (name, l, i) in type_param_vars(callee) {
            let Some(t) = inst.tys.get(i as usize) else {
                continue;
            };
            let span = use_span(def, *node).unwrap_or(def.target.name_span);
            let function = Type::scalar(t.clone()).has_function();
            if l != Liftedness::Lifted && function {
                return Err(Diagnostic::ty(
                    format!(
                        "the type parameter `{name}` of `{}` is instantiated with a functional type",
                        callee.name
                    ),
                    span,
                )
                .with_label(format!("here `{name}` is `{}`", def.scheme.show(&Type::scalar(t.clone()))))
                .with_note(format!("`{name}` is not lifted, so it stands for a value type, which contains no function"))
                .with_help(format!("declare it lifted (`'^{name}`) in `{}` if it is not put in arrays, `if`s or loops", callee.name)));
            }
            if let (Liftedness::Plain, Some((own_name, own_l))) = (l, lifted(t)) {
                let what = match own_l {
                    Liftedness::Lifted => "lifted",
                    _ => "size-lifted",
                };
                return Err(Diagnostic::ty(
                    format!(
                        "the type parameter `{name}` of `{}` cannot be the {what} type `{own_name}`",
                        callee.name
                    ),
                    span,
                )
                .with_note(format!(
                    "`{name}` may be an array element, which the {what} type `{own_name}` may not be"
                ))
                .with_help(format!("declare `{own_name}` as a plain type parameter (`'{own_name}`)")));
            }
        }
    }
    // Where the definition's own lifted types may not go.
    let mut stack = vec![&def.target.body];
    while let Some(e) = stack.pop() {
        stack.extend(e.children());
        let Some(t) = def.types.get(&e.id) else {
            continue;
        };
        let (array_elem, what) = match &e.kind {
            ExprKind::ArrayLit(_) => (true, ""),
            ExprKind::If(..) => (false, "an `if`"),
            ExprKind::Match(..) => (false, "a `match`"),
            ExprKind::Loop(..) => (false, "a loop"),
            _ => continue,
        };
        let Some((name, l)) = lifted(&t.base) else {
            continue;
        };
        if array_elem {
            return Err(array_of_lifted(&name, l, e.span));
        }
        if l == Liftedness::Lifted {
            return Err(Diagnostic::ty(
                format!("the result of {what} may not be of the lifted type `{name}`"),
                e.span,
            )
            .with_note(format!(
                "`{name}` may be a function type, and functions may not be returned from {what}"
            ))
            .with_help(format!(
                "declare `{name}` a plain type parameter (`'{name}`)"
            )));
        }
    }
    Ok(())
}

/// The span of the node `id` in the definition's target.
fn use_span(def: &CheckedDef, id: NodeId) -> Option<Span> {
    let mut stack = vec![&def.target.body];
    while let Some(e) = stack.pop() {
        if e.id == id {
            return Some(e.span);
        }
        stack.extend(e.children());
    }
    None
}

/// A definition's explicit type parameters with their variables in its
/// scheme (found where its parameters' and result's annotations name
/// them).
fn type_param_vars(d: &CheckedDef) -> Vec<(Ident, Liftedness, u32)> {
    let mut out = Vec::new();
    for tp in &d.target.type_params {
        let TypeParam::Type(n, l, _) = tp else {
            continue;
        };
        let found = d
            .target
            .params
            .iter()
            .zip(&d.params)
            .find_map(|(p, t)| in_pat(p, t, n))
            .or_else(|| d.target.ret.as_ref().and_then(|r| in_type(r, &d.ret, n)));
        if let Some(i) = found {
            out.push((n.clone(), *l, i));
        }
    }
    out
}

fn in_pat(p: &Pat, t: &Type, name: &str) -> Option<u32> {
    match (p, &t.base) {
        (Pat::Ascribed(inner, te, _), _) => in_type(te, t, name).or_else(|| in_pat(inner, t, name)),
        (Pat::Tuple(ps, _), Base::Tuple(ts)) => {
            ps.iter().zip(ts).find_map(|(p, t)| in_pat(p, t, name))
        }
        (Pat::Record(fs, _), Base::Record(ts)) => fs.iter().find_map(|(f, p)| {
            let t = &ts.iter().find(|(g, _)| g == f)?.1;
            in_pat(p.as_ref()?, t, name)
        }),
        _ => None,
    }
}

/// The variable the type parameter `name` is in `t`, where the annotation
/// `te` (which `t` is the type of) names it.
fn in_type(te: &TypeExp, t: &Type, name: &str) -> Option<u32> {
    match (te, &t.base) {
        (TypeExp::Named(q, args, _), Base::Var(v))
            if q.quals.is_empty() && args.is_empty() && *q.name == *name =>
        {
            Some(v.0)
        }
        (TypeExp::Array(_, inner, _), _) if t.rank.konst > 0 => {
            let mut elem = t.clone();
            elem.rank.konst -= 1;
            in_type(inner, &elem, name)
        }
        (TypeExp::Unique(inner, _) | TypeExp::Exists(_, inner, _), _) => in_type(inner, t, name),
        (TypeExp::Tuple(ts, _), _) if ts.len() == 1 => in_type(&ts[0], t, name),
        (TypeExp::Tuple(tes, _), Base::Tuple(ts)) => {
            tes.iter().zip(ts).find_map(|(te, t)| in_type(te, t, name))
        }
        (TypeExp::Record(fs, _), Base::Record(ts)) => fs.iter().find_map(|(f, te)| {
            let t = &ts.iter().find(|(g, _)| g == f)?.1;
            in_type(te, t, name)
        }),
        (TypeExp::Arrow(_, a, b, _), Base::Arrow(x, y)) => {
            in_type(a, x, name).or_else(|| in_type(b, y, name))
        }
        (TypeExp::Sum(cs, _), Base::Sum(ds)) => cs.iter().find_map(|(c, tes)| {
            let ts = &ds.iter().find(|(d, _)| d == c)?.1;
            tes.iter().zip(ts).find_map(|(te, t)| in_type(te, t, name))
        }),
        _ => None,
    }
}

/// An array type written with lifted elements, in a type expression whose
/// type parameters are `params`: the element's name as shown.
pub fn lifted_element(
    t: &TypeExp,
    globals: &Globals,
    params: &[TypeParam],
) -> Option<(String, Liftedness)> {
    let go = |t: &TypeExp| lifted_element(t, globals, params);
    match t {
        TypeExp::Array(_, elem, _) => lifted(elem, globals, params).or_else(|| go(elem)),
        TypeExp::Unique(t, _) | TypeExp::Exists(_, t, _) => go(t),
        TypeExp::Tuple(ts, _) => ts.iter().find_map(go),
        TypeExp::Record(fs, _) => fs.iter().find_map(|(_, t)| go(t)),
        TypeExp::Sum(cs, _) => cs.iter().flat_map(|(_, ts)| ts).find_map(go),
        TypeExp::Arrow(_, a, b, _) => go(a).or_else(|| go(b)),
        TypeExp::Named(_, args, _) => args.iter().find_map(|a| match a {
            TypeArg::Type(t) => go(t),
            TypeArg::Size(_) => None,
        }),
        TypeExp::Prim(..) => None,
    }
}

/// Whether `t` is lifted, and how: a function type, a lifted type
/// parameter or abbreviation (`'^a`, `'~a`, `type^`, `type~`).
fn lifted(t: &TypeExp, globals: &Globals, params: &[TypeParam]) -> Option<(String, Liftedness)> {
    match t {
        TypeExp::Arrow(..) => Some((urchin_syntax::pretty::type_exp(t), Liftedness::Lifted)),
        TypeExp::Unique(t, _) => lifted(t, globals, params),
        TypeExp::Tuple(ts, _) if ts.len() == 1 => lifted(&ts[0], globals, params),
        TypeExp::Named(q, _, _) => {
            let param = (params.iter())
                .filter(|_| q.quals.is_empty())
                .find_map(|p| match p {
                    TypeParam::Type(n, l, _) if *n == q.name && *l != Liftedness::Plain => Some(*l),
                    _ => None,
                });
            let abbrev = (globals.lookup_type(q))
                .map(|a| a.lifted)
                .filter(|l| *l != Liftedness::Plain);
            param.or(abbrev).map(|l| (q.to_string(), l))
        }
        _ => None,
    }
}

/// Every type expression a definition writes: in its parameters, result,
/// and anywhere in its body.
pub fn type_exps(d: &ValDec) -> Vec<&TypeExp> {
    let mut out: Vec<&TypeExp> = Vec::new();
    fn pat<'a>(p: &'a Pat, out: &mut Vec<&'a TypeExp>) {
        if let Pat::Ascribed(_, t, _) = p {
            out.push(t);
        }
        visit::sub_pats(p).for_each(|p| pat(p, out));
    }
    d.params.iter().for_each(|p| pat(p, &mut out));
    out.extend(&d.ret);
    let mut stack = vec![&d.body];
    while let Some(e) = stack.pop() {
        visit::pats(e).for_each(|p| pat(p, &mut out));
        out.extend(visit::type_exp(e));
        stack.extend(e.children());
    }
    out
}
