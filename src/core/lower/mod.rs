//! Lowering: from the elaborated (target) AST to the core IR.
//!
//! Lowering is an abstract interpreter of the source program: expressions
//! evaluate to values (`value::Val`), whose leaves are core atoms. Because the language
//! has no recursion, every function value is known statically: applying it
//! inlines its body (monomorphised at the argument types), so the core IR
//! has no calls and no function values, and lambdas survive only as SOAC
//! operands. Tuples and records become several variables; an array of
//! tuples is a tuple of arrays. A `rep` stays a lazy `Val::Rep` until
//! something needs its memory: as a `map` argument it is fused away (the
//! replicated value is simply free in the lambda).
//!
//! The submodules split it by concern: `value` (values, patterns, size
//! annotations), `expr` (expressions), `apply` (function values and
//! application), `intrinsic` (intrinsics, SOACs included) and `ad` (the AD
//! operators).

mod ad;
mod apply;
mod expr;
mod intrinsic;
mod value;

use super::ir::{self, Atom, Body, Exp, Function, Program, Stm, Var, Vars};
use crate::diag::Diagnostic;
use crate::source::Span;
use crate::syntax::ast::*;
use crate::types::env::{DefId, ValueId};
use crate::types::scheme::Inst;
use crate::types::ty::Type;
use crate::types::{CheckedDef, TypeEnv};
use std::rc::Rc;

pub use value::leaf_types;
use value::{Env, structure};

pub type LResult<T> = Result<T, Diagnostic>;

/// Where the types of the nodes being lowered come from: a checked
/// definition instantiated at concrete types.
#[derive(Clone)]
pub struct Ctx<'t> {
    def: &'t CheckedDef,
    inst: Rc<Inst>,
}

impl<'t> Ctx<'t> {
    fn type_of(&self, id: NodeId) -> Option<Type> {
        self.def.types.get(&id).map(|t| t.subst(&self.inst))
    }

    fn inst_of(&self, id: NodeId) -> Rc<Inst> {
        Rc::new(
            self.def
                .insts
                .get(&id)
                .map(|i| i.then(&self.inst))
                .unwrap_or_default(),
        )
    }
}

/// The flattened types of a function's parameters and results, in source
/// terms, for converting values in and out.
#[derive(Clone, Debug)]
pub struct Signature {
    pub params: Vec<Type>,
    pub result: Type,
}

pub struct Lower<'t> {
    tenv: &'t TypeEnv,
    pub vars: Vars,
    stms: Vec<Stm>,
    /// Values computed at the REPL that the code refers to, and the
    /// parameters standing for them.
    pub externals: Vec<(ValueId, Vec<Var>)>,
    external_types: &'t dyn Fn(ValueId) -> Option<Type>,
}

fn no_externals(_: ValueId) -> Option<Type> {
    None
}

impl<'t> Lower<'t> {
    pub fn new(tenv: &'t TypeEnv) -> Lower<'t> {
        Lower {
            tenv,
            vars: Vars::new(),
            stms: Vec::new(),
            externals: Vec::new(),
            external_types: &no_externals,
        }
    }

    pub fn with_externals(
        tenv: &'t TypeEnv,
        types: &'t dyn Fn(ValueId) -> Option<Type>,
    ) -> Lower<'t> {
        Lower {
            external_types: types,
            ..Lower::new(tenv)
        }
    }

    fn emit(&mut self, exp: Exp, tys: &[ir::Type], name: &str, span: Span) -> Vec<Var> {
        let pat: Vec<Var> = tys.iter().map(|t| self.vars.fresh(name, *t)).collect();
        self.stms.push(Stm {
            pat: pat.clone(),
            exp,
            span,
        });
        pat
    }

    fn emit1(&mut self, exp: Exp, ty: ir::Type, name: &str, span: Span) -> Atom {
        Atom::Var(self.emit(exp, &[ty], name, span)[0])
    }

    fn ty(&self, a: Atom) -> ir::Type {
        a.ty(&self.vars)
    }

    /// Runs `f` collecting its statements into a separate body.
    fn scoped<R>(&mut self, f: impl FnOnce(&mut Self) -> LResult<R>) -> LResult<(Vec<Stm>, R)> {
        let saved = std::mem::take(&mut self.stms);
        let r = f(self);
        let inner = std::mem::replace(&mut self.stms, saved);
        Ok((inner, r?))
    }

    fn internal(msg: impl Into<String>, span: Span) -> Diagnostic {
        Diagnostic::new(
            crate::diag::Phase::Type,
            format!("internal error in lowering: {}", msg.into()),
        )
        .at(span)
    }

    /// Lowers an entry point (or any monomorphic definition) to a function.
    pub fn entry(&mut self, id: DefId) -> LResult<(Function, Signature)> {
        let def: &'t CheckedDef = self.tenv.def(id);
        let inst = Rc::new(Inst::default());
        let params: Vec<Type> = def.params.iter().map(|t| t.subst(&inst)).collect();
        let mut fparams = Vec::new();
        let mut args = Vec::new();
        for (p, t) in def.target.params.iter().zip(&params) {
            let name = p
                .binders()
                .first()
                .map(|(n, _)| n.to_string())
                .unwrap_or_else(|| "arg".into());
            let vars: Vec<Var> = leaf_types(t)
                .into_iter()
                .map(|lt| self.vars.fresh(name.as_str(), lt))
                .collect();
            fparams.extend(vars.iter().copied());
            args.push(structure(t, &mut vars.iter().map(|v| Atom::Var(*v))));
        }
        let (stms, result) = self.scoped(|l| {
            let v = l.apply_def(def, inst.clone(), args, def.source.span)?;
            l.leaves(&v, def.target.body.span)
        })?;
        let sig = Signature {
            params,
            result: def.ret.subst(&inst),
        };
        Ok((
            Function {
                name: def.name.to_string().into(),
                params: fparams,
                body: Body { stms, result },
            },
            sig,
        ))
    }

    /// Lowers a checked expression (a REPL input) instantiated at `inst`.
    pub fn expression(&mut self, def: &'t CheckedDef, inst: Inst) -> LResult<(Function, Type)> {
        let inst = Rc::new(inst);
        let ctx = Ctx {
            def,
            inst: inst.clone(),
        };
        let (stms, result) = self.scoped(|l| {
            let v = l.expr(&ctx, &Env::default(), &def.target.body)?;
            l.leaves(&v, def.target.body.span)
        })?;
        let mut params = Vec::new();
        for (_, vs) in &self.externals {
            params.extend(vs.iter().copied());
        }
        Ok((
            Function {
                name: "it".into(),
                params,
                body: Body { stms, result },
            },
            def.ret.subst(&inst),
        ))
    }
}

/// Lowers an entry point of the environment into a program of one
/// function.
pub fn lower_entry(tenv: &TypeEnv, id: DefId) -> LResult<(Program, Signature)> {
    let mut l = Lower::new(tenv);
    let (f, sig) = l.entry(id)?;
    Ok((
        Program {
            vars: l.vars,
            functions: vec![f],
        },
        sig,
    ))
}

/// Lowers a REPL expression; returns the program, the type of its value
/// and the REPL values it takes as parameters (in order).
pub fn lower_expression(
    tenv: &TypeEnv,
    def: &CheckedDef,
    inst: Inst,
    externals: &dyn Fn(ValueId) -> Option<Type>,
) -> LResult<(Program, Type, Vec<ValueId>)> {
    let mut l = Lower::with_externals(tenv, externals);
    let (f, t) = l.expression(def, inst)?;
    let ids = l.externals.iter().map(|(id, _)| *id).collect();
    Ok((
        Program {
            vars: l.vars,
            functions: vec![f],
        },
        t,
        ids,
    ))
}
