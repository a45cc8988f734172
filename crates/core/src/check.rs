//! A checker for the invariants of the core IR (see `ir.rs`): every
//! variable bound once and before use, the types of operands and results
//! consistent, and every array's shape well-formed where it is bound
//! (`shapes::fault`). Transformations are tested against it; a failure
//! is a bug in urchin, never the user's fault.

use super::ir::*;
use super::visit::{Role, nested, operands, walk_exp};
use std::collections::HashSet;
use urchin_prim::PrimType;

pub fn check_program(p: &Program) -> Result<(), String> {
    for f in &p.functions {
        check_in(f, &p.vars, Some(p)).map_err(|e| format!("in `{}`: {e}", f.name))?;
    }
    Ok(())
}

/// Checks one function on its own (calls are trusted to match their
/// callees, which `check_program` verifies).
pub fn check_function(f: &Function, vars: &Vars) -> Result<(), String> {
    check_in(f, vars, None)
}

fn check_in(f: &Function, vars: &Vars, prog: Option<&Program>) -> Result<(), String> {
    let mut c = Checker {
        vars,
        prog,
        bound: HashSet::new(),
        scope: Vec::new(),
    };
    for p in &f.params {
        c.bind(*p)?;
    }
    c.shapes(&f.params)?;
    c.body(&f.body).map(|_| ())
}

struct Checker<'a> {
    vars: &'a Vars,
    /// The program, for the signatures of called functions.
    prog: Option<&'a Program>,
    /// Every variable bound so far (single assignment).
    bound: HashSet<Var>,
    /// Variables in scope, as a stack.
    scope: Vec<Var>,
}

impl Checker<'_> {
    fn bind(&mut self, v: Var) -> Result<(), String> {
        self.declare(v)?;
        self.scope.push(v);
        Ok(())
    }

    /// Single assignment: `v` is bound nowhere else.
    fn declare(&mut self, v: Var) -> Result<(), String> {
        if !self.bound.insert(v) {
            return Err(format!("{} ({v:?}) is bound twice", self.vars.name(v)));
        }
        Ok(())
    }

    fn in_scope(&self, v: Var) -> bool {
        self.scope.contains(&v)
    }

    /// The shapes of variables just bound (together: a pattern may bind
    /// an array and its size).
    fn shapes(&self, vs: &[Var]) -> Result<(), String> {
        match vs
            .iter()
            .find_map(|v| super::shapes::fault(self.vars, *v, |n| self.in_scope(n)))
        {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    fn atom(&self, a: &Atom) -> Result<Type, String> {
        match a {
            Atom::Var(v) if !self.in_scope(*v) => Err(format!(
                "{} ({v:?}) is used out of scope",
                self.vars.name(*v)
            )),
            other => Ok(other.ty(self.vars)),
        }
    }

    fn body(&mut self, b: &Body) -> Result<Vec<Type>, String> {
        urchin_base::stack::deep(|| self.body_inner(b))
    }

    fn body_inner(&mut self, b: &Body) -> Result<Vec<Type>, String> {
        let mark = self.scope.len();
        for s in &b.stms {
            let tys = self.exp(&s.exp)?;
            if let Some(tys) = tys {
                if tys.len() != s.pat.len() {
                    return Err(format!(
                        "a statement binds {} variables but its expression has {} results",
                        s.pat.len(),
                        tys.len()
                    ));
                }
                for (v, t) in s.pat.iter().zip(&tys) {
                    if self.vars.ty(*v) != *t && !matches!(self.vars.ty(*v), Type::Acc(..)) {
                        return Err(format!(
                            "{} has type {} but is bound to a value of type {t}",
                            self.vars.name(*v),
                            self.vars.ty(*v)
                        ));
                    }
                }
            }
            for v in &s.pat {
                self.bind(*v)?;
            }
            self.shapes(&s.pat)?;
        }
        let mut out = Vec::new();
        for a in &b.result {
            out.push(self.atom(a)?);
        }
        self.scope.truncate(mark);
        Ok(out)
    }

    /// Checks the operands, binders and nested bodies of an expression
    /// (each body sees its own binders), returning the result types of the
    /// bodies by role.
    fn parts(&mut self, e: &Exp) -> Result<Vec<(Role, Vec<Type>)>, String> {
        let mut err = None;
        operands(e, |v, _| {
            if err.is_none() {
                err = self.atom(&Atom::Var(v)).err();
            }
        });
        struct Binders<'c, 'v> {
            checker: &'c mut Checker<'v>,
            err: Option<String>,
        }
        impl super::visit::Walker<'_> for Binders<'_, '_> {
            fn binder(&mut self, v: &Var) {
                if self.err.is_none() {
                    self.err = self.checker.declare(*v).err();
                }
            }
        }
        let mut b = Binders { checker: self, err };
        walk_exp(e, &mut b);
        if let Some(m) = b.err {
            return Err(m);
        }
        let mut out = Vec::new();
        for n in nested(e) {
            let mark = self.scope.len();
            self.scope.extend(n.scope.binders.iter());
            self.shapes(&self.scope[mark..])?;
            let tys = self.body(n.body)?;
            self.scope.truncate(mark);
            out.push((n.scope.role, tys));
        }
        Ok(out)
    }

    /// The result types of an expression, or `None` where they are not
    /// computed here (checked loosely).
    fn exp(&mut self, e: &Exp) -> Result<Option<Vec<Type>>, String> {
        let bodies = self.parts(e)?;
        let of = |role: Role| -> Vec<Type> {
            bodies
                .iter()
                .find(|(r, _)| *r == role)
                .map(|(_, t)| t.clone())
                .expect("the expression has a body of this role")
        };
        let ty = |a: &Atom| a.ty(self.vars);
        let one = |t: Type| Ok(Some(vec![t]));
        match e {
            Exp::Atom(a) => one(ty(a)),
            Exp::BinOp(op, a, b) => {
                if ty(a) != ty(b) {
                    return Err(format!("{op:?} on {} and {}", ty(a), ty(b)));
                }
                one(if op.is_comparison() {
                    Type::Prim(PrimType::Bool)
                } else {
                    ty(a)
                })
            }
            Exp::UnOp(op, a) => one(Type::Prim(op.result_type(ty(a).elem()))),
            Exp::Convert(t, _) => one(Type::Prim(*t)),
            Exp::Select(c, a, _) => {
                if ty(c) != Type::Prim(PrimType::Bool) {
                    return Err("select on a non-bool".into());
                }
                one(ty(a))
            }
            Exp::ArrayLit(_, t) => one(t.array_of(1)),
            Exp::Index(a, ds) => {
                let fixed = ds.iter().filter(|d| matches!(d, DimIndex::Fix(_))).count() as u32;
                if ds.len() as u32 > self.vars.ty(*a).rank() {
                    return Err(format!("too many indices for {}", self.vars.name(*a)));
                }
                one(self.vars.ty(*a).peel(fixed))
            }
            Exp::Rearrange(perm, a) => {
                let rank = self.vars.ty(*a).rank();
                let mut sorted = perm.clone();
                sorted.sort_unstable();
                if sorted != (0..rank).collect::<Vec<_>>() {
                    return Err(format!(
                        "rearrange {perm:?} of {}, of rank {rank}: not a permutation of its dimensions",
                        self.vars.name(*a)
                    ));
                }
                one(self.vars.ty(*a))
            }
            Exp::Update(a, ..) | Exp::Reverse(a) | Exp::Copy(a) | Exp::Rotate(_, a) => {
                one(self.vars.ty(*a))
            }
            Exp::Size(..) => one(Type::Prim(PrimType::I64)),
            Exp::Iota(_) => one(Type::Array(PrimType::I64, 1)),
            Exp::Replicate(_, v) | Exp::Rep(v) => one(ty(v).array_of(1)),
            Exp::Reshape(shape, a) => one(Type::Array(self.vars.ty(*a).elem(), shape.len() as u32)),
            Exp::Concat(xs) => one(self.vars.ty(xs[0])),
            Exp::If { .. } => {
                let (t, f) = (of(Role::Then), of(Role::Else));
                if t != f {
                    return Err(format!("if branches return {t:?} and {f:?}"));
                }
                Ok(Some(t))
            }
            Exp::Loop { params, .. } => {
                let tys: Vec<Type> = params.iter().map(|(p, _)| self.vars.ty(*p)).collect();
                for (p, i) in params {
                    if self.vars.ty(*p) != ty(i) {
                        return Err(format!(
                            "loop parameter {} initialised with a {}",
                            self.vars.name(*p),
                            ty(i)
                        ));
                    }
                }
                let r = of(Role::LoopBody);
                if r != tys {
                    return Err(format!("loop body returns {r:?} for parameters {tys:?}"));
                }
                Ok(Some(tys))
            }
            Exp::Map { lam, args } => {
                for (p, a) in lam.params.iter().zip(args) {
                    if self.vars.ty(*p) != self.vars.ty(*a).peel(1) {
                        return Err(format!(
                            "map parameter {} does not fit its array",
                            self.vars.name(*p)
                        ));
                    }
                }
                let r = of(Role::MapLambda);
                Ok(Some(r.into_iter().map(|t| t.array_of(1)).collect()))
            }
            Exp::Reduce { .. } => Ok(Some(of(Role::Operator))),
            Exp::Scan { .. } => {
                let r = of(Role::Operator);
                Ok(Some(r.into_iter().map(|t| t.array_of(1)).collect()))
            }
            Exp::Hist { dest, .. } => Ok(Some(dest.iter().map(|d| self.vars.ty(*d)).collect())),
            Exp::Scatter { dest, .. } => Ok(Some(dest.iter().map(|d| self.vars.ty(*d)).collect())),
            Exp::Assert { .. } | Exp::CheckShape { .. } | Exp::Trace { .. } | Exp::Break { .. } => {
                Ok(Some(Vec::new()))
            }
            Exp::Jvp { .. } | Exp::Vjp { .. } | Exp::WithAcc { .. } | Exp::WithVjp { .. } => {
                Ok(None)
            }
            Exp::UpdAcc { acc, .. } => one(self.vars.ty(*acc)),
            Exp::Call {
                func,
                name,
                args,
                ret,
            } => {
                if let Some(p) = self.prog {
                    let f = p.functions.get(func.0 as usize).ok_or_else(|| {
                        format!("a call of `{name}`, which is not in the program")
                    })?;
                    let params: Vec<Type> = f.params.iter().map(|v| self.vars.ty(*v)).collect();
                    let given: Vec<Type> = args.iter().map(ty).collect();
                    if params != given {
                        return Err(format!(
                            "`{name}` takes {params:?} but is called with {given:?}"
                        ));
                    }
                    if p.result_types(f) != *ret {
                        return Err(format!("a call of `{name}` expects results {ret:?}"));
                    }
                }
                Ok(Some(ret.clone()))
            }
        }
    }
}
