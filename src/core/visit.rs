//! Generic traversals of the core IR: the variables an expression uses,
//! the variables it binds, and renaming.

use super::ir::*;
use std::collections::{HashMap, HashSet};

/// Calls `f` on every atom an expression reads directly (not inside its
/// nested bodies and lambdas).
pub fn own_atoms(e: &Exp, f: &mut impl FnMut(&Atom)) {
    let var = |v: &Var, f: &mut dyn FnMut(&Atom)| f(&Atom::Var(*v));
    let dims = |ds: &[DimIndex], f: &mut dyn FnMut(&Atom)| {
        for d in ds {
            match d {
                DimIndex::Fix(a) => f(a),
                DimIndex::Slice { start, end, stride } => {
                    for a in [start, end, stride].into_iter().flatten() {
                        f(a);
                    }
                }
            }
        }
    };
    match e {
        Exp::Atom(a) | Exp::UnOp(_, a) | Exp::Convert(_, a) | Exp::Iota(a) | Exp::Rep(a) => f(a),
        Exp::BinOp(_, a, b) | Exp::Replicate(a, b) => {
            f(a);
            f(b);
        }
        Exp::Select(c, a, b) => {
            f(c);
            f(a);
            f(b);
        }
        Exp::ArrayLit(xs, _) => xs.iter().for_each(&mut *f),
        Exp::Index(a, ds) => {
            var(a, f);
            dims(ds, f);
        }
        Exp::Update(a, ds, v) => {
            var(a, f);
            dims(ds, f);
            f(v);
        }
        Exp::Size(a, _) | Exp::Reverse(a) | Exp::Copy(a) | Exp::Rearrange(_, a) => var(a, f),
        Exp::Reshape(shape, a) => {
            shape.iter().for_each(&mut *f);
            var(a, f);
        }
        Exp::Rotate(r, a) => {
            f(r);
            var(a, f);
        }
        Exp::Concat(xs) => xs.iter().for_each(|v| var(v, f)),
        Exp::If { cond, .. } => f(cond),
        Exp::Loop { params, form, .. } => {
            params.iter().for_each(|(_, i)| f(i));
            if let LoopForm::For { bound, .. } = form {
                f(bound);
            }
        }
        Exp::Map { args, .. } => args.iter().for_each(|v| var(v, f)),
        Exp::Reduce { op, args, .. } | Exp::Scan { op, args, .. } => {
            op.neutral.iter().for_each(&mut *f);
            args.iter().for_each(|v| var(v, f));
        }
        Exp::Hist {
            op,
            dest,
            indices,
            values,
        } => {
            op.neutral.iter().for_each(&mut *f);
            dest.iter().for_each(|v| var(v, f));
            var(indices, f);
            values.iter().for_each(|v| var(v, f));
        }
        Exp::Scatter {
            dest,
            indices,
            values,
        } => {
            dest.iter()
                .chain(indices)
                .chain(values)
                .for_each(|v| var(v, f));
        }
        Exp::Assert { cond, args, .. } => {
            f(cond);
            args.iter().for_each(&mut *f);
        }
        Exp::CheckShape {
            array, expected, ..
        } => {
            var(array, f);
            expected.iter().flatten().for_each(&mut *f);
        }
        Exp::Jvp {
            primals,
            tangents: seeds,
            ..
        }
        | Exp::Vjp {
            primals,
            cotangents: seeds,
            ..
        } => {
            primals.iter().chain(seeds).for_each(&mut *f);
        }
        Exp::WithVjp { args, .. } => args.iter().for_each(&mut *f),
        Exp::WithAcc { arrays, .. } => arrays.iter().for_each(|v| var(v, f)),
        Exp::UpdAcc {
            acc,
            indices,
            value,
        } => {
            var(acc, f);
            indices.iter().for_each(&mut *f);
            f(value);
        }
    }
}

/// The nested bodies of an expression, with the variables each binds on
/// entry (lambda and loop parameters).
pub fn nested(e: &Exp) -> Vec<(Vec<Var>, &Body)> {
    match e {
        Exp::If {
            then_body,
            else_body,
            ..
        } => vec![(vec![], then_body), (vec![], else_body)],
        Exp::Loop {
            params, form, body, ..
        } => {
            let mut ps: Vec<Var> = params.iter().map(|(p, _)| *p).collect();
            let mut out = Vec::new();
            match form {
                LoopForm::For { i, .. } => ps.push(*i),
                LoopForm::While { cond } => out.push((ps.clone(), cond)),
            }
            out.push((ps, body));
            out
        }
        Exp::Map { lam, .. }
        | Exp::Jvp { lam, .. }
        | Exp::Vjp { lam, .. }
        | Exp::WithAcc { lam, .. } => {
            vec![(lam.params.clone(), &lam.body)]
        }
        Exp::WithVjp { lam, adjoint, .. } => vec![
            (lam.params.clone(), &lam.body),
            (adjoint.params.clone(), &adjoint.body),
        ],
        Exp::Reduce { op, pre, .. } | Exp::Scan { op, pre, .. } => {
            let mut v = vec![(op.lam.params.clone(), &op.lam.body)];
            if let Some(p) = pre {
                v.push((p.params.clone(), &p.body));
            }
            v
        }
        Exp::Hist { op, .. } => vec![(op.lam.params.clone(), &op.lam.body)],
        _ => Vec::new(),
    }
}

/// Mutable access to the nested bodies of an expression.
pub fn nested_mut(e: &mut Exp) -> Vec<&mut Body> {
    match e {
        Exp::If {
            then_body,
            else_body,
            ..
        } => vec![then_body, else_body],
        Exp::Loop { form, body, .. } => {
            let mut out = Vec::new();
            if let LoopForm::While { cond } = form {
                out.push(cond);
            }
            out.push(body);
            out
        }
        Exp::Map { lam, .. }
        | Exp::Jvp { lam, .. }
        | Exp::Vjp { lam, .. }
        | Exp::WithAcc { lam, .. } => {
            vec![&mut lam.body]
        }
        Exp::WithVjp { lam, adjoint, .. } => vec![&mut lam.body, &mut adjoint.body],
        Exp::Reduce { op, pre, .. } | Exp::Scan { op, pre, .. } => {
            let mut v = vec![&mut op.lam.body];
            if let Some(p) = pre {
                v.push(&mut p.body);
            }
            v
        }
        Exp::Hist { op, .. } => vec![&mut op.lam.body],
        _ => Vec::new(),
    }
}

/// Free variables of an expression, including those of its nested bodies.
pub fn free_in_exp(e: &Exp, out: &mut HashSet<Var>) {
    own_atoms(e, &mut |a| {
        if let Atom::Var(v) = a {
            out.insert(*v);
        }
    });
    for (bound, b) in nested(e) {
        let mut inner = HashSet::new();
        free_in_body(b, &mut inner);
        for v in bound {
            inner.remove(&v);
        }
        out.extend(inner);
    }
}

/// Free variables of a body.
pub fn free_in_body(b: &Body, out: &mut HashSet<Var>) {
    let mut bound = HashSet::new();
    let mut free = HashSet::new();
    for s in &b.stms {
        let mut used = HashSet::new();
        free_in_exp(&s.exp, &mut used);
        free.extend(used.into_iter().filter(|v| !bound.contains(v)));
        bound.extend(s.pat.iter().copied());
    }
    for a in &b.result {
        if let Atom::Var(v) = a {
            if !bound.contains(v) {
                free.insert(*v);
            }
        }
    }
    out.extend(free);
}

pub fn free_in_lambda(l: &Lambda) -> HashSet<Var> {
    let mut out = HashSet::new();
    free_in_body(&l.body, &mut out);
    for p in &l.params {
        out.remove(p);
    }
    out
}

/// Replaces atoms everywhere (including nested bodies) by `subst`.
pub fn rename_exp(e: &mut Exp, subst: &HashMap<Var, Atom>) {
    if subst.is_empty() {
        return;
    }
    let atom = |a: &mut Atom| {
        if let Atom::Var(v) = a {
            if let Some(n) = subst.get(v) {
                *a = *n;
            }
        }
    };
    let var = |v: &mut Var| {
        if let Some(Atom::Var(n)) = subst.get(v) {
            *v = *n;
        }
    };
    match e {
        Exp::Atom(a) | Exp::UnOp(_, a) | Exp::Convert(_, a) | Exp::Iota(a) | Exp::Rep(a) => atom(a),
        Exp::BinOp(_, a, b) | Exp::Replicate(a, b) => {
            atom(a);
            atom(b);
        }
        Exp::Select(c, a, b) => {
            atom(c);
            atom(a);
            atom(b);
        }
        Exp::ArrayLit(xs, _) => xs.iter_mut().for_each(atom),
        Exp::Index(a, ds) => {
            var(a);
            rename_dims(ds, subst);
        }
        Exp::Update(a, ds, v) => {
            var(a);
            rename_dims(ds, subst);
            atom(v);
        }
        Exp::Size(a, _) | Exp::Reverse(a) | Exp::Copy(a) | Exp::Rearrange(_, a) => var(a),
        Exp::Reshape(shape, a) => {
            shape.iter_mut().for_each(atom);
            var(a);
        }
        Exp::Rotate(r, a) => {
            atom(r);
            var(a);
        }
        Exp::Concat(xs) => xs.iter_mut().for_each(var),
        Exp::If { cond, .. } => atom(cond),
        Exp::Loop { params, form, .. } => {
            params.iter_mut().for_each(|(_, i)| atom(i));
            if let LoopForm::For { bound, .. } = form {
                atom(bound);
            }
        }
        Exp::Map { args, .. } => args.iter_mut().for_each(var),
        Exp::Reduce { op, args, .. } | Exp::Scan { op, args, .. } => {
            op.neutral.iter_mut().for_each(atom);
            args.iter_mut().for_each(var);
        }
        Exp::Hist {
            op,
            dest,
            indices,
            values,
        } => {
            op.neutral.iter_mut().for_each(atom);
            dest.iter_mut().for_each(var);
            var(indices);
            values.iter_mut().for_each(var);
        }
        Exp::Scatter {
            dest,
            indices,
            values,
        } => {
            dest.iter_mut()
                .chain(indices.iter_mut())
                .chain(values.iter_mut())
                .for_each(var);
        }
        Exp::Assert { cond, args, .. } => {
            atom(cond);
            args.iter_mut().for_each(atom);
        }
        Exp::CheckShape {
            array, expected, ..
        } => {
            var(array);
            expected.iter_mut().flatten().for_each(atom);
        }
        Exp::Jvp {
            primals,
            tangents: seeds,
            ..
        }
        | Exp::Vjp {
            primals,
            cotangents: seeds,
            ..
        } => {
            primals.iter_mut().chain(seeds.iter_mut()).for_each(atom);
        }
        Exp::WithVjp { args, .. } => args.iter_mut().for_each(atom),
        Exp::WithAcc { arrays, .. } => arrays.iter_mut().for_each(var),
        Exp::UpdAcc {
            acc,
            indices,
            value,
        } => {
            var(acc);
            indices.iter_mut().for_each(atom);
            atom(value);
        }
    }
    for b in nested_mut(e) {
        rename_body(b, subst);
    }
}

fn rename_dims(ds: &mut [DimIndex], subst: &HashMap<Var, Atom>) {
    for d in ds {
        let atoms: Vec<&mut Atom> = match d {
            DimIndex::Fix(a) => vec![a],
            DimIndex::Slice { start, end, stride } => {
                [start, end, stride].into_iter().flatten().collect()
            }
        };
        for a in atoms {
            if let Atom::Var(v) = a {
                if let Some(n) = subst.get(v) {
                    *a = *n;
                }
            }
        }
    }
}

pub fn rename_body(b: &mut Body, subst: &HashMap<Var, Atom>) {
    if subst.is_empty() {
        return;
    }
    for s in &mut b.stms {
        rename_exp(&mut s.exp, subst);
    }
    for a in &mut b.result {
        if let Atom::Var(v) = a {
            if let Some(n) = subst.get(v) {
                *a = *n;
            }
        }
    }
}

/// A copy of a lambda with fresh variables for everything it binds, so it
/// can be inlined or duplicated without breaking single assignment.
pub fn freshen_lambda(l: &Lambda, vars: &mut Vars) -> Lambda {
    let mut subst = HashMap::new();
    let params = l
        .params
        .iter()
        .map(|p| fresh_for(*p, vars, &mut subst))
        .collect();
    let body = freshen_body(&l.body, vars, &mut subst);
    Lambda { params, body }
}

fn fresh_for(v: Var, vars: &mut Vars, subst: &mut HashMap<Var, Atom>) -> Var {
    let n = vars.copy_of(v);
    subst.insert(v, Atom::Var(n));
    n
}

pub fn freshen_body(b: &Body, vars: &mut Vars, subst: &mut HashMap<Var, Atom>) -> Body {
    let mut stms = Vec::with_capacity(b.stms.len());
    for s in &b.stms {
        let mut exp = s.exp.clone();
        freshen_binders(&mut exp, vars, subst);
        rename_exp(&mut exp, subst);
        let pat = s.pat.iter().map(|p| fresh_for(*p, vars, subst)).collect();
        stms.push(Stm {
            pat,
            exp,
            span: s.span,
        });
    }
    let mut result = b.result.clone();
    for a in &mut result {
        if let Atom::Var(v) = a {
            if let Some(n) = subst.get(v) {
                *a = *n;
            }
        }
    }
    Body { stms, result }
}

/// Renames the variables bound inside an expression (lambda and loop
/// parameters, nested statements) to fresh ones, recording them in
/// `subst`; atoms are renamed afterwards by the caller.
fn freshen_binders(e: &mut Exp, vars: &mut Vars, subst: &mut HashMap<Var, Atom>) {
    fn lam(l: &mut Lambda, vars: &mut Vars, subst: &mut HashMap<Var, Atom>) {
        *l = Lambda {
            params: l
                .params
                .iter()
                .map(|p| fresh_for(*p, vars, subst))
                .collect(),
            body: freshen_body(&l.body, vars, subst),
        };
    }
    match e {
        Exp::If {
            then_body,
            else_body,
            ..
        } => {
            *then_body = freshen_body(then_body, vars, subst);
            *else_body = freshen_body(else_body, vars, subst);
        }
        Exp::Loop {
            params, form, body, ..
        } => {
            for (p, _) in params.iter_mut() {
                *p = fresh_for(*p, vars, subst);
            }
            match form {
                LoopForm::For { i, .. } => *i = fresh_for(*i, vars, subst),
                LoopForm::While { cond } => *cond = freshen_body(cond, vars, subst),
            }
            *body = freshen_body(body, vars, subst);
        }
        Exp::Map { lam: l, .. }
        | Exp::Jvp { lam: l, .. }
        | Exp::Vjp { lam: l, .. }
        | Exp::WithAcc { lam: l, .. } => lam(l, vars, subst),
        Exp::WithVjp {
            lam: l, adjoint, ..
        } => {
            lam(l, vars, subst);
            lam(adjoint, vars, subst);
        }
        Exp::Reduce { op, pre, .. } | Exp::Scan { op, pre, .. } => {
            lam(&mut op.lam, vars, subst);
            if let Some(p) = pre {
                lam(p, vars, subst);
            }
        }
        Exp::Hist { op, .. } => lam(&mut op.lam, vars, subst),
        _ => {}
    }
}
