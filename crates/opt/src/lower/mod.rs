//! Lowering: from the elaborated (target) AST to the core IR.
//!
//! Lowering is an abstract interpreter of the source program: expressions
//! evaluate to values (`value::Val`), whose leaves are core atoms. Every
//! function value is known statically: applying it inlines its body
//! (monomorphised at the argument types), so the core IR has no function
//! values, and lambdas survive only as SOAC operands. Recursive
//! definitions, which cannot be inlined, become functions of the program
//! and their applications calls (`calls.rs`). Tuples and records become several variables; an array of
//! tuples is a tuple of arrays. A `rep` stays a lazy `Val::Rep` until
//! something needs its memory: as a `map` argument it is fused away (the
//! replicated value is simply free in the lambda).
//!
//! The submodules split it by concern: `value` (values, patterns, size
//! annotations), `expr` (expressions), `apply` (function values and
//! application), `calls` (recursive definitions as functions),
//! `intrinsic` (intrinsics, SOACs included) and `ad` (the AD operators).

mod ad;
mod apply;
mod calls;
mod expr;
mod intrinsic;
mod sums;
mod value;

use std::collections::HashMap;
use std::rc::Rc;
use urchin_base::diag::Diagnostic;
use urchin_base::source::Span;
use urchin_core::build::Builder;
use urchin_core::ir::{Atom, Body, CallSites, Function, Program, Var, Vars};
use urchin_syntax::ast::*;
use urchin_types::env::{DefId, ValueId};
use urchin_types::scheme::Inst;
use urchin_types::ty::{Base, TyVar, Type};
use urchin_types::{CheckedDef, TypeEnv};

pub use value::leaf_types;
use value::{Env, structure};

pub type LResult<T> = Result<T, Diagnostic>;

/// What the failure of a typed hole says.
pub const HOLE_MESSAGE: &str = "reached a typed hole (`???`)";

/// In a trace's message, where the source location of the traced
/// expression goes (the session fills it in: lowering has no file names).
pub const TRACE_HERE: &str = "{here}";

/// Where the types of the nodes being lowered come from: a checked
/// definition instantiated at concrete types.
#[derive(Clone)]
pub struct Ctx<'t> {
    def: &'t CheckedDef,
    inst: Rc<Inst>,
    /// The definition's parameters and size parameters, bound: where the
    /// sizes the checker found for its uses (`CheckedDef::implicit_sizes`,
    /// `rep_lengths`) are computed, whatever a use's scope shadows.
    sizes: Env<'t>,
}

impl<'t> Ctx<'t> {
    fn type_of(&self, id: NodeId) -> Option<Type> {
        self.def.types.get(&id).map(|t| t.subst(&self.inst))
    }

    /// `v`, the value of a local at its use `id`: a polymorphic local
    /// function's body is lowered at the types of the use, which extend
    /// the instantiation its definition was lowered under.
    fn local_instance(&self, id: NodeId, v: &value::Val<'t>) -> value::Val<'t> {
        let (Some(at), value::Val::Fun(c)) = (self.def.local_insts.get(&id), v) else {
            return v.clone();
        };
        let apply::Closure::LocalFun { f, env, ctx } = &**c else {
            return v.clone();
        };
        let mut inst = (*ctx.inst).clone();
        for (i, b) in at {
            let i = *i as usize;
            while inst.tys.len() <= i {
                inst.tys.push(Base::Var(TyVar(inst.tys.len() as u32)));
            }
            inst.tys[i] = Type::scalar(b.clone()).subst(&self.inst).base;
        }
        value::Val::Fun(Rc::new(apply::Closure::LocalFun {
            f,
            env: env.clone(),
            ctx: Ctx {
                def: ctx.def,
                inst: Rc::new(inst),
                sizes: ctx.sizes.clone(),
            },
        }))
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

/// The lowering state. Its one lifetime covers the type environment and the
/// program's variable table alike (both outlive the lowering).
pub struct Lower<'t> {
    tenv: &'t TypeEnv,
    /// Where the statements go; nested bodies are opened and closed on it.
    b: Builder<'t>,
    /// Values computed at the REPL that the code refers to, and the
    /// parameters standing for them.
    pub externals: Vec<(ValueId, Vec<Var>)>,
    external_types: &'t dyn Fn(ValueId) -> Option<Type>,
    /// While a definition's parameters are bound: the size expressions
    /// that name sizes later parameters bind (`value::Deferred`).
    deferred: Option<Vec<value::Deferred<'t>>>,
    /// While a definition's parameters are bound: the value the first
    /// parameter of each type parameter's type was given
    /// (`value::same_instance`).
    instances: Option<Vec<value::Instance<'t>>>,
    /// The functions made from recursive definitions.
    calls: calls::Calls<'t>,
    /// Scalars computed by a call of a definition on scalars: its name
    /// and arguments, so that a size parameter `[inc n]` is read off an
    /// argument whose size was computed as `inc m` (`value::solve_size`).
    call_results: HashMap<Var, (&'t str, Vec<Atom>)>,
    /// The chains of calls the statements are lowered inside (the
    /// builder's `ctx` is the current one).
    sites: CallSites,
    /// Whether `#[break]` becomes a breakpoint (`Exp::Break`): only where
    /// the REPL can stop; elsewhere it is ignored, as compiled Futhark
    /// ignores it.
    breakpoints: bool,
    /// Where breakpoints are kept: the variables in scope at the
    /// application being lowered, and at each inlined call around it
    /// (innermost last), so a breakpoint can show its callers'.
    site_env: Env<'t>,
    frame_envs: Vec<Env<'t>>,
    /// Set while an entry point's own parameters are bound, whose
    /// arguments come from outside: a size they break is an invalid
    /// argument, as Futhark's compiled programs say.
    binding_entry: bool,
}

fn no_externals(_: ValueId) -> Option<Type> {
    None
}

impl<'t> Lower<'t> {
    pub fn new(tenv: &'t TypeEnv, vars: &'t mut Vars) -> Lower<'t> {
        Lower {
            tenv,
            b: Builder::new(vars),
            externals: Vec::new(),
            external_types: &no_externals,
            deferred: None,
            instances: None,
            calls: calls::Calls::default(),
            call_results: HashMap::new(),
            sites: CallSites::default(),
            breakpoints: false,
            binding_entry: false,
            site_env: Env::default(),
            frame_envs: Vec::new(),
        }
    }

    pub fn with_externals(
        tenv: &'t TypeEnv,
        vars: &'t mut Vars,
        types: &'t dyn Fn(ValueId) -> Option<Type>,
    ) -> Lower<'t> {
        Lower {
            external_types: types,
            ..Lower::new(tenv, vars)
        }
    }

    /// Lowers into a nested body: `f` returns the body's results and a
    /// value to pass on.
    fn body<R>(
        &mut self,
        f: impl FnOnce(&mut Self) -> LResult<(Vec<Atom>, R)>,
    ) -> LResult<(Body, R)> {
        let outer = self.b.open_body();
        let r = f(self);
        let mut body = self.b.close_body(outer, Vec::new());
        let (result, x) = r?;
        body.result = result;
        Ok((body, x))
    }

    /// Lowers `f` inside a call of `callee` at `site`: the statements it
    /// builds carry the call in their context, so that a run-time error
    /// lists it (`CallSites`).
    fn in_call<R>(&mut self, callee: &str, site: Span, f: impl FnOnce(&mut Self) -> R) -> R {
        let caller = self.b.ctx;
        self.b.ctx = self.sites.enter(caller, site, callee);
        if self.breakpoints {
            self.frame_envs.push(self.site_env.clone());
        }
        let r = f(self);
        if self.breakpoints {
            self.frame_envs.pop();
        }
        self.b.ctx = caller;
        r
    }

    /// The functions of the program of `main` (the entry point or
    /// expression lowered) and the recursive functions it calls, and the
    /// call chains of their statements.
    fn program(self, main: Function) -> LResult<(Vec<Function>, CallSites)> {
        let mut functions = vec![main];
        for f in self.calls.functions {
            functions.push(f.ok_or_else(|| {
                Self::internal("a recursive function left unfinished", Span::default())
            })?);
        }
        Ok((functions, self.sites))
    }

    fn internal(msg: impl Into<String>, span: Span) -> Diagnostic {
        Diagnostic::internal(format!("in lowering: {}", msg.into()), span)
    }

    /// Lowers an entry point (or any monomorphic definition) to a function.
    pub fn entry(&mut self, id: DefId) -> LResult<(Function, Signature)> {
        let def: &'t CheckedDef = self.tenv.def(id);
        let inst = Rc::new(Inst::default());
        // A function result is more parameters, as in Futhark: `entry f =
        // jvp g` takes the point and the tangent.
        let (more, result) = def.ret.subst(&inst).arrows();
        let declared = def.params.len();
        let params: Vec<Type> = def
            .params
            .iter()
            .map(|t| t.subst(&inst))
            .chain(more)
            .collect();
        let mut fparams = Vec::new();
        let mut args = Vec::new();
        for (k, t) in params.iter().enumerate() {
            let name = def
                .target
                .params
                .get(k)
                .and_then(|p| p.binders().first().map(|(n, _)| n.to_string()))
                .unwrap_or_else(|| "arg".into());
            let vars: Vec<Var> = leaf_types(t)
                .into_iter()
                .map(|lt| self.b.fresh(name.as_str(), lt))
                .collect();
            fparams.extend(vars.iter().copied());
            args.push(structure(t, &mut vars.iter().map(|v| Atom::Var(*v))));
        }
        let (body, ()) = self.body(|l| {
            let more = args.split_off(declared);
            l.check_entry_args(def, &args);
            // The entry point is not called from anywhere in the program.
            l.binding_entry = true;
            let v = l.apply_def(def, inst.clone(), Env::default(), args, def.source.span);
            l.binding_entry = false;
            let mut v = v?;
            if !more.is_empty() {
                v = l.apply(&v, more, def.target.body.span)?;
            }
            Ok((l.leaves(&v, def.target.body.span)?, ()))
        })?;
        let sig = Signature { params, result };
        Ok((
            Function {
                name: def.name.to_string().into(),
                params: fparams,
                body,
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
            sizes: Env::default(),
        };
        let (body, ()) = self.body(|l| {
            let v = l.expr(&ctx, &Env::default(), &def.target.body)?;
            Ok((l.leaves(&v, def.target.body.span)?, ()))
        })?;
        let mut params = Vec::new();
        for (_, vs) in &self.externals {
            params.extend(vs.iter().copied());
        }
        Ok((
            Function {
                name: "it".into(),
                params,
                body,
            },
            def.ret.subst(&inst),
        ))
    }
}

/// The program of the functions lowering made, with their variables.
fn assemble(vars: Vars, (functions, calls): (Vec<Function>, CallSites)) -> Program {
    Program {
        vars,
        functions,
        calls,
    }
}

/// Lowers an entry point of the environment into a program of one
/// function.
pub fn lower_entry(tenv: &TypeEnv, id: DefId) -> LResult<(Program, Signature)> {
    let mut vars = Vars::new();
    let mut l = Lower::new(tenv, &mut vars);
    let (f, sig) = l.entry(id)?;
    let parts = l.program(f)?;
    Ok((assemble(vars, parts), sig))
}

/// Lowers a REPL expression; returns the program, the type of its value
/// and the REPL values it takes as parameters (in order). `breakpoints`
/// keeps each `#[break]` as an `Exp::Break`.
pub fn lower_expression(
    tenv: &TypeEnv,
    def: &CheckedDef,
    inst: Inst,
    externals: &dyn Fn(ValueId) -> Option<Type>,
    breakpoints: bool,
) -> LResult<(Program, Type, Vec<ValueId>)> {
    let mut vars = Vars::new();
    let mut l = Lower::with_externals(tenv, &mut vars, externals);
    l.breakpoints = breakpoints;
    let (f, t) = l.expression(def, inst)?;
    let ids = l.externals.iter().map(|(id, _)| *id).collect();
    let parts = l.program(f)?;
    Ok((assemble(vars, parts), t, ids))
}

/// What a failed size coercion `e :> t` is about (Futhark's message says
/// the value "cannot match shape of type").
pub fn coercion_what(t: &TypeExp) -> String {
    format!(
        "a size coercion: the value cannot match shape of type `{}`",
        urchin_syntax::pretty::type_exp(t)
    )
}
