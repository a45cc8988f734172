//! The shapes of array variables (`VarInfo::shape`): what each size must
//! be, and forgetting the sizes a rewrite left out of scope.
//!
//! A known size is an `i64` constant or an `i64` variable in scope where
//! its array is bound; it holds wherever the array is used, since every
//! variable is bound once. Lowering and AD fill shapes as they build
//! (`build`); a pass may then move or remove the binding a size names
//! (dead-code removal drops a size no statement reads, fusion moves one
//! into a lambda), so the pass runner calls [`forget_out_of_scope`] after
//! each: an unknown size is always sound. `check` verifies the rest.

use super::ir::{Atom, Function, Program, Size, Type, Var, Vars};
use super::visit::nested;
use std::collections::HashSet;
use urchin_prim::{PrimType, Scalar};

/// What is wrong with the shape of `v`, bound where `in_scope` holds: a
/// number of sizes other than its rank, or a size that is neither an
/// `i64` constant nor an `i64` variable in scope.
pub fn fault(vars: &Vars, v: Var, in_scope: impl Fn(Var) -> bool) -> Option<String> {
    let shape = vars.shape(v);
    if shape.is_empty() {
        return None;
    }
    let ty = vars.ty(v);
    let name = vars.name(v);
    if !matches!(ty, Type::Array(..)) || shape.len() != ty.rank() as usize {
        return Some(format!(
            "{name} ({v:?}) of type {ty} has a shape of {} sizes",
            shape.len()
        ));
    }
    shape.iter().flatten().find_map(|size| match size {
        Atom::Const(Scalar::I64(_)) => None,
        Atom::Var(n) if vars.ty(*n) != Type::Prim(PrimType::I64) => Some(format!(
            "a size of {name} ({v:?}) is {} ({n:?}), of type {}",
            vars.name(*n),
            vars.ty(*n)
        )),
        Atom::Var(n) if !in_scope(*n) => Some(format!(
            "a size of {name} ({v:?}) is {} ({n:?}), not in scope where it is bound",
            vars.name(*n)
        )),
        Atom::Var(_) => None,
        Atom::Const(c) => Some(format!("a size of {name} ({v:?}) is the constant {c}")),
    })
}

/// Makes unknown every size that names a variable not in scope where its
/// array is bound.
pub fn forget_out_of_scope(p: &mut Program) {
    let Program {
        vars, functions, ..
    } = p;
    for f in functions.iter() {
        forget_in(vars, f);
    }
}

fn forget_in(vars: &mut Vars, f: &Function) {
    let mut scope = HashSet::new();
    bind(vars, &mut scope, &f.params);
    body(vars, &mut scope, &f.body);
}

/// Brings `vs` into scope (together: a pattern may bind an array and its
/// size) and forgets what their shapes name out of it.
fn bind(vars: &mut Vars, scope: &mut HashSet<Var>, vs: &[Var]) {
    scope.extend(vs.iter().copied());
    for &v in vs {
        let stale = |s: &Size| s.and_then(Atom::var).is_some_and(|n| !scope.contains(&n));
        if vars.shape(v).iter().any(stale) {
            let kept = vars
                .shape(v)
                .iter()
                .map(|s| if stale(s) { None } else { *s })
                .collect();
            vars.set_shape(v, kept);
        }
    }
}

fn body(vars: &mut Vars, scope: &mut HashSet<Var>, b: &super::ir::Body) {
    urchin_base::stack::deep(|| {
        let mut bound = Vec::new();
        for s in &b.stms {
            for n in nested(&s.exp) {
                let binders: Vec<Var> = n.scope.binders.iter().collect();
                bind(vars, scope, &binders);
                body(vars, scope, n.body);
                for v in &binders {
                    scope.remove(v);
                }
            }
            bind(vars, scope, &s.pat);
            bound.extend(s.pat.iter().copied());
        }
        for v in &bound {
            scope.remove(v);
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::main_program;

    #[test]
    fn a_size_bound_after_its_array_is_forgotten() {
        let f64s = Type::Array(PrimType::F64, 1);
        let (mut p, mut f) = main_program(&[("xs", f64s)], |b, ps| {
            let n = b.size(ps[0], 0);
            let ys = b.copy(ps[0]);
            b.vars.set_shape(ys, vec![Some(n.into())]);
            vec![ys.into()]
        });
        let ys = f.body.stms[1].pat[0];
        p.functions.push(f.clone());
        assert_eq!(crate::check::check_program(&p), Ok(()));
        // Swapped, the statements bind `ys` before its size.
        f.body.stms.swap(0, 1);
        p.functions[0] = f;
        let e = crate::check::check_program(&p);
        assert!(
            e.as_ref().is_err_and(|e| e.contains("not in scope")),
            "{e:?}"
        );
        forget_out_of_scope(&mut p);
        assert!(p.vars.shape(ys).is_empty());
        assert_eq!(crate::check::check_program(&p), Ok(()));
    }

    #[test]
    fn a_shape_must_have_one_i64_size_per_dimension() {
        let mut vars = Vars::new();
        let xs = vars.fresh("xs", Type::Array(PrimType::F64, 2));
        let x = vars.fresh("x", Type::Prim(PrimType::F64));
        vars.set_shape(xs, vec![Some(Atom::i64(3))]);
        assert!(fault(&vars, xs, |_| true).is_some_and(|e| e.contains("1 sizes")));
        vars.set_shape(xs, vec![Some(Atom::i64(3)), Some(x.into())]);
        assert!(fault(&vars, xs, |_| true).is_some_and(|e| e.contains("of type f64")));
        vars.set_shape(xs, vec![Some(Atom::i64(3)), None]);
        assert_eq!(fault(&vars, xs, |_| true), None);
    }
}
