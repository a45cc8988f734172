//! Recursive definitions: they cannot be inlined, so each becomes a
//! function of the core IR, and its applications calls (`Exp::Call`).
//!
//! A function is made per *specialisation*: a definition at one
//! instantiation of its type and, for a higher-order one, with the
//! function values its call site passes. Futhark requires a recursive
//! call to pass its function parameters unchanged (and a recursive
//! function not to return one), so the function values are fixed for the
//! whole recursion and are inlined into the body like any other; the
//! recursive uses inside the body call the specialisation being built.
//! Specialisations without function parameters are shared by all call
//! sites.
//!
//! The body is lowered where it is first needed, so it may read
//! variables of the call site (through the closures it inlines, or REPL
//! values): once it is built, those free variables become extra
//! parameters (renamed inside the body), which every call passes.

use super::apply::Closure;
use super::value::{Env, Val, leaf_types, structure};
use super::{LResult, Lower};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use std::sync::Arc;
use urchin_base::diag::Diagnostic;
use urchin_base::source::Span;
use urchin_core::ir::{Atom, Body, CallCtx, Exp, FunId, Function, Type, Var};
use urchin_core::visit::{free_in_body, nested_mut, rename_body};
use urchin_types::CheckedDef;
use urchin_types::scheme::Inst;

/// A specialisation of a recursive definition.
pub(super) struct Spec<'t> {
    def: &'t CheckedDef,
    inst: Rc<Inst>,
    /// The function values passed, by parameter position.
    funs: Vec<(usize, Rc<Closure<'t>>)>,
    func: FunId,
    /// The function's name: the definition's, numbered from the second
    /// specialisation on (`f`, `f_2`, ...).
    name: Arc<str>,
    /// The core types of the results.
    ret: Vec<Type>,
    /// The call site's variables the body reads, passed after the
    /// arguments' leaves (known once the body is built).
    captured: Option<Vec<Var>>,
}

/// The recursive functions of the program being lowered.
#[derive(Default)]
pub(super) struct Calls<'t> {
    specs: Vec<Spec<'t>>,
    /// Specialisations whose bodies are being lowered, innermost last
    /// (indices into `specs`).
    active: Vec<usize>,
    /// The functions, in `FunId` order from 1 (0 is the entry point).
    pub functions: Vec<Option<Function>>,
}

fn contains_fun(v: &Val) -> bool {
    match v {
        Val::Fun(_) => true,
        Val::Leaf(_) => false,
        Val::Node(cs) => cs.iter().any(|(_, c)| contains_fun(c)),
        Val::Rep(inner, _) => contains_fun(inner),
    }
}

/// Appends `extra` to the arguments of every call of `func` in `body`.
fn extend_calls(body: &mut Body, func: FunId, extra: &[Atom]) {
    for s in &mut body.stms {
        if let Exp::Call { func: f, args, .. } = &mut s.exp
            && *f == func
        {
            args.extend_from_slice(extra);
        }
        for nb in nested_mut(&mut s.exp) {
            extend_calls(nb, func, extra);
        }
    }
}

impl<'t> Lower<'t> {
    /// A recursive definition applied to all its parameters: a call of its
    /// specialisation (built first if this is an outside call site). `own`:
    /// a recursive use inside the definition's body.
    pub(super) fn call_recursive(
        &mut self,
        def: &'t CheckedDef,
        inst: Rc<Inst>,
        args: Vec<Val<'t>>,
        own: bool,
        span: Span,
    ) -> LResult<Val<'t>> {
        let mut funs = Vec::new();
        let mut data = Vec::new();
        for (k, a) in args.iter().enumerate() {
            match a {
                Val::Fun(c) => funs.push((k, c.clone())),
                a if contains_fun(a) => {
                    return Err(Diagnostic::ty(
                        format!(
                            "the recursive function `{}` is given a tuple or record holding a function",
                            def.name
                        ),
                        span,
                    )
                    .with_help("pass the function as a parameter of its own"));
                }
                a => data.extend(self.leaves(a, span)?),
            }
        }
        let k = if own {
            self.own_spec(def, &funs, span)?
        } else {
            self.outside_spec(def, inst, args, funs, span)?
        };
        let spec = &self.calls.specs[k];
        let (func, ret_tys) = (spec.func, spec.ret.clone());
        if let Some(captured) = &spec.captured {
            data.extend(captured.iter().map(|v| Atom::Var(*v)));
        }
        let name = spec.name.clone();
        let results = self.b.at(span, &def.name).exps(
            &ret_tys,
            Exp::Call {
                func,
                name,
                args: data,
                ret: ret_tys.clone(),
            },
        );
        let ret = def.ret.subst(&self.calls.specs[k].inst);
        Ok(structure(&ret, &mut results.into_iter().map(Atom::Var)))
    }

    /// The specialisation a recursive use inside `def`'s body calls: the
    /// one being built, which must get the same function values.
    fn own_spec(
        &mut self,
        def: &'t CheckedDef,
        funs: &[(usize, Rc<Closure<'t>>)],
        span: Span,
    ) -> LResult<usize> {
        let k = *self
            .calls
            .active
            .last()
            .ok_or_else(|| Self::internal("a recursive use outside its definition", span))?;
        let spec = &self.calls.specs[k];
        if !std::ptr::eq(spec.def, def) {
            return Err(Diagnostic::ty(
                format!(
                    "`{}` calls itself from inside a function passed to the recursive function `{}`",
                    def.name, spec.def.name
                ),
                span,
            )
            .with_help("call it directly in its own body, or write the inner recursion as a `loop`"));
        }
        let same = spec.funs.len() == funs.len()
            && spec
                .funs
                .iter()
                .zip(funs)
                .all(|((i, f), (j, g))| i == j && Rc::ptr_eq(f, g));
        if !same {
            let name = |k: usize| match def.target.params.get(k).map(|p| p.binders()) {
                Some(b) if !b.is_empty() => format!("`{}`", b[0].0),
                _ => format!("parameter {}", k + 1),
            };
            let which = funs
                .iter()
                .map(|(k, _)| *k)
                .chain(spec.funs.iter().map(|(k, _)| *k))
                .next()
                .unwrap_or(0);
            return Err(Diagnostic::ty(
                format!(
                    "the recursive call of `{}` must pass its function parameter {} unchanged",
                    def.name,
                    name(which)
                ),
                span,
            )
            .with_label("a different function is passed here")
            .with_help(
                "as in Futhark, a recursive call passes each function parameter as the parameter itself; pass other functions through a non-recursive helper",
            ));
        }
        Ok(k)
    }

    /// The specialisation an outside call site calls, built if needed.
    fn outside_spec(
        &mut self,
        def: &'t CheckedDef,
        inst: Rc<Inst>,
        args: Vec<Val<'t>>,
        funs: Vec<(usize, Rc<Closure<'t>>)>,
        span: Span,
    ) -> LResult<usize> {
        let shared = self
            .calls
            .specs
            .iter()
            .position(|s| std::ptr::eq(s.def, def) && s.funs.is_empty() && *s.inst == *inst);
        if let (true, Some(k)) = (funs.is_empty(), shared) {
            if self.calls.specs[k].captured.is_none() {
                return Err(Self::internal(
                    "a call of a function whose body is being built",
                    span,
                ));
            }
            return Ok(k);
        }
        let ret_ty = def.ret.subst(&inst);
        if ret_ty.has_function() {
            return Err(Diagnostic::ty(
                format!("the recursive function `{}` returns a function", def.name),
                span,
            )
            .with_help("as in Futhark, a recursive function cannot return a function: give it more parameters instead"));
        }
        let func = FunId(self.calls.functions.len() as u32 + 1);
        self.calls.functions.push(None);
        let k = self.calls.specs.len();
        let name: Arc<str> = match self
            .calls
            .specs
            .iter()
            .filter(|s| std::ptr::eq(s.def, def))
            .count()
        {
            0 => def.name.to_string().into(),
            n => format!("{}_{}", def.name, n + 1).into(),
        };
        self.calls.specs.push(Spec {
            def,
            inst: inst.clone(),
            funs,
            func,
            name: name.clone(),
            ret: leaf_types(&ret_ty),
            captured: None,
        });
        // Parameters shaped like the arguments; function values as given.
        let mut params = Vec::new();
        let mut body_args = Vec::with_capacity(args.len());
        for a in &args {
            match a {
                Val::Fun(_) => body_args.push(a.clone()),
                a => {
                    let (v, ps) = self.fresh_like(a, "p", span)?;
                    params.extend(ps);
                    body_args.push(v);
                }
            }
        }
        self.calls.active.push(k);
        // The body is the function's own, whoever calls it: its chains of
        // calls start from it, and each call adds its caller's at run time.
        let caller = std::mem::replace(&mut self.b.ctx, CallCtx::TOP);
        let built = self.body(|l| {
            let r = urchin_base::stack::deep(|| {
                l.inline_def(def, inst.clone(), Env::default(), body_args, span)
            })?;
            Ok((l.leaves(&r, span)?, ()))
        });
        self.b.ctx = caller;
        self.calls.active.pop();
        let (mut body, ()) = built?;
        // What the body reads from outside becomes parameters.
        let mut free = HashSet::new();
        free_in_body(&body, &mut free);
        for p in &params {
            free.remove(p);
        }
        let mut captured: Vec<Var> = free.into_iter().collect();
        captured.sort();
        let extra: Vec<Atom> = captured.iter().map(|v| Atom::Var(*v)).collect();
        extend_calls(&mut body, func, &extra);
        let mut subst = HashMap::new();
        for v in &captured {
            let p = self.b.vars.copy_of(*v);
            subst.insert(*v, Atom::Var(p));
            params.push(p);
        }
        rename_body(&mut body, &subst);
        self.calls.functions[func.0 as usize - 1] = Some(Function { name, params, body });
        self.calls.specs[k].captured = Some(captured);
        Ok(k)
    }
}
