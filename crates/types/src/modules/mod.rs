//! The module phase: Futhark's module language, checked and expanded
//! statically into the flat definitions the rest of the pipeline knows.
//!
//! Declarations are processed in order, each in the scope the ones before
//! it made ([`env::Scope`]):
//! - a definition's names are resolved ([`resolve`]) and it is checked by
//!   `types`; its name is bound to a fresh [`Entity`] in the scope (and in
//!   the enclosing module, unless `local`);
//! - a module expression is evaluated to a module value: a module of
//!   definitions is processed like a file; a parametric module is a
//!   closure, whose body is checked once with its parameter's types
//!   abstract (errors are reported even if it is never applied), and is
//!   evaluated anew at each application with the argument bound to the
//!   parameter, so that each application has code of its own
//!   (defunctorisation);
//! - ascription `m : mt` matches the module with the module type and makes
//!   the types it leaves abstract abstract ([`sig`]);
//! - `import` loads a file once per load and gives the module of its
//!   definitions ([`files`]).
//!
//! What comes out is definitions (`CheckedDef`s, by `DefId`) whose uses
//! name each other by id: nothing after this phase knows that modules
//! exist, except to print names.

pub mod env;
mod files;
pub mod resolve;
mod sig;

use crate::env::{DefId, Global, GlobalKind};
use crate::{Printer, TypeEnv};
use env::{Env, Functor, FunctorBody, ModTy, Module, Scope};
pub use files::{Files, Found, Loader};
use resolve::Resolver;
use std::collections::HashSet;
use std::rc::Rc;
use urchin_base::diag::Diagnostic;
use urchin_base::source::{SourceMap, Span};
use urchin_syntax::ast::*;

/// The diagnostics of a failed declaration (a file that does not parse
/// has several).
#[derive(Debug)]
pub struct Errors(pub Vec<Diagnostic>);

impl From<Diagnostic> for Errors {
    fn from(d: Diagnostic) -> Errors {
        Errors(vec![d])
    }
}

impl From<Vec<Diagnostic>> for Errors {
    fn from(ds: Vec<Diagnostic>) -> Errors {
        Errors(ds)
    }
}

pub type R<T> = Result<T, Errors>;

/// Where declarations are: what may be declared there.
#[derive(Clone)]
pub struct Place {
    /// How the names defined here are shown (`m.n`), empty at a file's
    /// top level.
    pub path: Vec<Ident>,
    /// The top level of the program (its main file, or the prompt):
    /// entry points are allowed, and are entry points.
    pub entries: bool,
    /// Inside a module body, where `entry` is an error.
    pub in_module: bool,
    /// Redefining a type is an error (in files and module bodies; at a
    /// prompt a definition may replace another).
    pub no_duplicates: bool,
}

impl Place {
    /// The main file or a prompt.
    pub fn program(no_duplicates: bool) -> Place {
        Place {
            path: Vec::new(),
            entries: true,
            in_module: false,
            no_duplicates,
        }
    }

    /// An imported file.
    fn file() -> Place {
        Place {
            path: Vec::new(),
            entries: false,
            in_module: false,
            no_duplicates: true,
        }
    }

    fn module(&self, name: &Ident) -> Place {
        let mut path = self.path.clone();
        path.push(name.clone());
        Place {
            path,
            entries: false,
            in_module: true,
            no_duplicates: true,
        }
    }

    /// `m.x` for a member `x` of the module here.
    pub fn show(&self, x: &str) -> String {
        let mut s = String::new();
        for p in &self.path {
            s.push_str(p);
            s.push('.');
        }
        s.push_str(x);
        s
    }
}

/// The module phase at work: the checker's state it adds to, the source
/// files it reads, and the files loaded so far.
pub struct Phase<'a> {
    pub tenv: &'a mut TypeEnv,
    pub sources: &'a mut SourceMap,
    pub files: &'a mut Files,
    pub show: Printer,
    /// Inside a parametric module's body checked on its own: definitions
    /// are checked for their types only (each application has code).
    generic: bool,
    /// The definitions made, in order (in module bodies, applications of
    /// parametric modules and imported files too).
    pub defined: Vec<DefId>,
}

impl<'a> Phase<'a> {
    pub fn new(
        tenv: &'a mut TypeEnv,
        sources: &'a mut SourceMap,
        files: &'a mut Files,
        show: Printer,
    ) -> Phase<'a> {
        Phase {
            tenv,
            sources,
            files,
            show,
            generic: false,
            defined: Vec::new(),
        }
    }

    /// Processes declarations in `scope`, binding what they define there
    /// and (unless `local`) in `exports`.
    pub fn decs(
        &mut self,
        scope: &mut Scope,
        exports: &mut Env,
        decs: &[Dec],
        place: &Place,
    ) -> R<()> {
        let mut types: HashSet<Ident> = HashSet::new();
        for d in decs {
            if self.tenv.interrupt.requested() {
                return Err(
                    Diagnostic::new(urchin_base::diag::Phase::Other, "interrupted")
                        .at(d.span())
                        .into(),
                );
            }
            self.dec(scope, exports, d, place, &mut types)?;
        }
        Ok(())
    }

    fn dec(
        &mut self,
        scope: &mut Scope,
        exports: &mut Env,
        d: &Dec,
        place: &Place,
        types: &mut HashSet<Ident>,
    ) -> R<()> {
        match d {
            Dec::Val(v) => {
                let e = self.val_dec(scope, v, place)?;
                scope.env.bind_val(v.name.clone(), e);
                exports.bind_val(v.name.clone(), e);
            }
            Dec::Type(t) => {
                if place.no_duplicates && !types.insert(t.name.clone()) {
                    return Err(duplicate("type", &t.name, t.span).into());
                }
                let resolved = Resolver::new(&scope.env, self.tenv.node_ids()).type_dec(t)?;
                let abbrev = self.tenv.check_type_dec(&resolved)?;
                let e = self.tenv.fresh_entity();
                self.tenv.globals.define_type(e, abbrev);
                scope.env.bind_type(t.name.clone(), e);
                exports.bind_type(t.name.clone(), e);
            }
            Dec::Module(m) => {
                let body = module_body(m);
                let value = self.mod_exp(scope, &body, &place.module(&m.name))?;
                scope.env.bind_mod(m.name.clone(), value.clone());
                exports.bind_mod(m.name.clone(), value);
            }
            Dec::ModType(m) => {
                if place.no_duplicates && !types.insert(format!("module type {}", m.name).into()) {
                    return Err(duplicate("module type", &m.name, m.span).into());
                }
                let ty = self.mod_type(scope, &m.ty, &place.show(&m.name))?;
                scope.env.bind_sig(m.name.clone(), ty.clone());
                exports.bind_sig(m.name.clone(), ty);
            }
            Dec::Open(m, span) => {
                let env = self.struct_of(scope, m, place, *span)?;
                scope.env.extend(&env);
                exports.extend(&env);
            }
            Dec::Import(path, span) => {
                let env = self.import(scope, path, *span)?;
                scope.env.extend(&env);
            }
            Dec::Local(inner, _) => {
                let mut hidden = Env::default();
                self.dec(scope, &mut hidden, inner, place, types)?;
            }
        }
        Ok(())
    }

    /// A value definition: resolved and checked (for its type only in a
    /// parametric module's body checked on its own).
    fn val_dec(&mut self, scope: &Scope, v: &ValDec, place: &Place) -> R<Entity> {
        if place.in_module && v.keyword == DefKeyword::Entry {
            return Err(Diagnostic::ty("Entry points may not be declared inside modules", v.name_span)
                .with_label("an entry point must be at the top level of the program")
                .with_help(format!(
                    "define it with `def` here and add an entry point at the top level: `entry {} = {}`",
                    v.name,
                    place.show(&v.name)
                ))
                .into());
        }
        let resolved = Resolver::new(&scope.env, self.tenv.node_ids()).val_dec(v)?;
        let e = self.tenv.fresh_entity();
        self.tenv
            .globals
            .set_in_scope(scope.env.vals.keys().cloned());
        let global = if self.generic {
            let scheme = self.tenv.check_def_type(&resolved, self.show)?;
            Global::new(scheme, GlobalKind::Param)
        } else {
            let entry = place.entries && v.is_entry();
            let (id, global) = self.tenv.check_def(&resolved, self.show, entry)?;
            self.defined.push(id);
            global
        };
        self.tenv.globals.define(e, global);
        Ok(e)
    }

    /// The members of a module to open: an error for a parametric one.
    fn struct_of(&mut self, scope: &Scope, m: &ModExp, place: &Place, span: Span) -> R<Rc<Env>> {
        match self.mod_exp(scope, m, place)? {
            Module::Struct(env) => Ok(env),
            Module::Functor(f) => Err(Diagnostic::ty(
                format!(
                    "module `{}` is a parametric module and cannot be opened",
                    f.name
                ),
                span,
            )
            .with_help("apply it to a module first, and open the result")
            .into()),
        }
    }

    /// Evaluates a module expression; `place` names what it defines.
    pub fn mod_exp(&mut self, scope: &Scope, m: &ModExp, place: &Place) -> R<Module> {
        urchin_base::stack::deep(|| self.mod_exp_inner(scope, m, place))
    }

    fn mod_exp_inner(&mut self, scope: &Scope, m: &ModExp, place: &Place) -> R<Module> {
        match m {
            ModExp::Var(q, span) => Ok(self.module_named(scope, q, *span)?),
            ModExp::Struct(decs, _) => {
                let mut inner = scope.clone();
                let mut exports = Env::default();
                self.decs(&mut inner, &mut exports, decs, place)?;
                Ok(Module::Struct(Rc::new(exports)))
            }
            ModExp::Import(path, span) => Ok(Module::Struct(self.import(scope, path, *span)?)),
            ModExp::Ascribe(inner, t, span) => {
                let value = self.mod_exp(scope, inner, place)?;
                let ty = self.mod_type(scope, t, &place.show(""))?;
                self.ascribe(&value, &ty, true, &place.path, *span)
            }
            ModExp::Apply(f, arg, span) => {
                let anonymous = Place {
                    path: place.path.clone(),
                    ..place.clone()
                };
                let fv = self.mod_exp(scope, f, &anonymous)?;
                let av = self.mod_exp(scope, arg, &anonymous)?;
                match fv {
                    Module::Functor(f) => self.apply(&f, &av, *span, place),
                    Module::Struct(_) => Err(Diagnostic::ty(
                        "this module is not a parametric module",
                        f.span(),
                    )
                    .with_label("it is applied here, but has no parameter")
                    .with_help("only a module declared with a parameter (`module f (p: mt) = ...`) can be applied")
                    .into()),
                }
            }
            ModExp::Lambda(param, result, body, _) => {
                let name: Rc<str> = place.path.join(".").into();
                let param_ty = self.mod_type(scope, &param.ty, &param.name)?;
                let f = Rc::new(Functor {
                    name: if name.is_empty() {
                        "<parametric module>".into()
                    } else {
                        name
                    },
                    param: param.name.clone(),
                    param_ty,
                    body: FunctorBody::Code {
                        result: result.as_deref().cloned(),
                        body: body.clone(),
                        scope: Rc::new(scope.clone()),
                    },
                });
                self.check_generic(&f, place)?;
                Ok(Module::Functor(f))
            }
        }
    }

    /// A parametric module's body checked once, its parameter a module of
    /// the parameter's type whose types are abstract and whose values have
    /// no code: what any application can rely on.
    fn check_generic(&mut self, f: &Rc<Functor>, place: &Place) -> R<()> {
        let param = self.param_module(&f.param_ty, &f.param)?;
        let generic = std::mem::replace(&mut self.generic, true);
        let r = self.instantiate(f, param, Span::default(), place);
        self.generic = generic;
        r.map(|_| ())
    }

    /// `f arg`: the argument matched with the parameter's type, then the
    /// body evaluated with the parameter bound to it.
    fn apply(&mut self, f: &Rc<Functor>, arg: &Module, span: Span, place: &Place) -> R<Module> {
        let param = self
            .ascribe(
                arg,
                &f.param_ty,
                false,
                std::slice::from_ref(&f.param),
                span,
            )
            .map_err(|e| in_application(e, &f.name, span))?;
        self.instantiate(f, param, span, place)
    }

    /// The body of `f` with its parameter bound to `param` (already seen
    /// as the parameter's type).
    fn instantiate(
        &mut self,
        f: &Rc<Functor>,
        param: Module,
        span: Span,
        place: &Place,
    ) -> R<Module> {
        match &f.body {
            FunctorBody::Code {
                result,
                body,
                scope,
            } => {
                let mut inner = (**scope).clone();
                let mut seen = Vec::new();
                self.defs_of(&param, &mut seen);
                let added: Vec<DefId> = seen
                    .into_iter()
                    .filter(|d| self.tenv.opaque.insert(*d))
                    .collect();
                inner.env.bind_mod(f.param.clone(), param);
                let value = self.mod_exp(&inner, body, place);
                for d in &added {
                    self.tenv.opaque.remove(d);
                }
                let value = value?;
                match result {
                    Some(t) => {
                        let ty = self.mod_type(&inner, t, &place.show(""))?;
                        self.ascribe(&value, &ty, true, &place.path, span)
                    }
                    None => Ok(value),
                }
            }
            FunctorBody::Spec { result } => {
                let subst = self.bind_param(&f.param_ty, &param);
                let ty = sig::rename_modty(result, &subst);
                self.param_module(&ty, &place.path.join("."))
            }
            FunctorBody::Ascribed { inner, result } => {
                let value = self.instantiate(inner, param.clone(), span, place)?;
                let subst = self.bind_param(&f.param_ty, &param);
                let ty = sig::rename_modty(result, &subst);
                self.ascribe(&value, &ty, true, &place.path, span)
            }
        }
    }

    /// The definitions `m`'s values are, in it and its submodules.
    fn defs_of(&self, m: &Module, out: &mut Vec<DefId>) {
        let Module::Struct(env) = m else { return };
        for e in env.vals.values() {
            if let Some(Global {
                kind: GlobalKind::Def(d),
                ..
            }) = self.tenv.globals.value(*e)
            {
                out.push(*d);
            }
        }
        for sub in env.mods.values() {
            self.defs_of(sub, out);
        }
    }

    /// The module a name refers to.
    fn module_named(&self, scope: &Scope, q: &QualName, span: Span) -> Result<Module, Diagnostic> {
        let resolver = Resolver::new(&scope.env, self.tenv.node_ids());
        if q.quals.is_empty() {
            return match resolver.value(&q.name) {
                resolve::Meaning::Module(m) => Ok(m.clone()),
                _ => Err(unknown_module(&q.to_string(), span)),
            };
        }
        let env = resolver.module(&q.quals, span)?;
        env.mods
            .get(&q.name)
            .cloned()
            .ok_or_else(|| unknown_module(&q.to_string(), span))
    }

    /// A module type named in scope.
    fn sig_named(&self, scope: &Scope, q: &QualName, span: Span) -> Result<Rc<ModTy>, Diagnostic> {
        let env = if q.quals.is_empty() {
            Rc::new(scope.env.clone())
        } else {
            Resolver::new(&scope.env, self.tenv.node_ids()).module(&q.quals, span)?
        };
        env.sigs.get(&q.name).cloned().ok_or_else(|| {
            Diagnostic::ty(format!("Unknown module type \"{q}\""), span)
                .with_label("not defined")
                .with_help("define it before this point: `module type s = { ... }`")
        })
    }
}

/// `module m (p: mt) : r = e` as a module expression: `\(p: mt) : r -> e`,
/// or `e : r` without parameters.
fn module_body(m: &ModDec) -> ModExp {
    if m.params.is_empty() {
        return match &m.sig {
            Some(t) => ModExp::Ascribe(Box::new(m.body.clone()), Box::new(t.clone()), m.span),
            None => m.body.clone(),
        };
    }
    let mut sig = m.sig.clone().map(Box::new);
    m.params.iter().rev().fold(m.body.clone(), |body, p| {
        ModExp::Lambda(Box::new(p.clone()), sig.take(), Box::new(body), m.span)
    })
}

fn duplicate(what: &str, name: &str, span: Span) -> Diagnostic {
    Diagnostic::ty(format!("Duplicate definition of {what} `{name}`"), span)
        .with_label("defined before in this module")
        .with_help("give it another name, or remove one of the definitions")
}

fn unknown_module(name: &str, span: Span) -> Diagnostic {
    Diagnostic::ty(format!("Unknown module \"{name}\""), span)
        .with_label("no module of this name is in scope here")
        .with_help("a module must be defined before it is used")
}

/// An error in matching an argument, said to be in that application.
fn in_application(mut e: Errors, functor: &str, span: Span) -> Errors {
    if let Some(d) = e.0.first_mut() {
        let note = format!("in the application of `{functor}`");
        *d = std::mem::replace(d, Diagnostic::ty("", span)).with_secondary(span, note);
    }
    e
}
