//! Module types: elaborating them, matching modules with them, and the
//! modules that stand for "any module of this type" (a parametric
//! module's parameter while its body is checked on its own).

use super::env::{
    Env, Functor, FunctorBody, ModSpec, ModTy, Module, Scope, Sig, SigSpec, TypeSpec, ValSpec,
};
use super::resolve::Resolver;
use super::{Phase, R};
use crate::elab::Abbreviations;
use crate::env::{Global, GlobalKind, TypeAbbrev};
use std::collections::HashMap;
use std::rc::Rc;
use urchin_base::diag::Diagnostic;
use urchin_base::source::Span;
use urchin_syntax::ast::{
    self, Entity, Ident, Liftedness, ModTypeExp, QualName, TypeArg, TypeDec, TypeExp, TypeParam,
};
use urchin_syntax::pretty;

/// Placeholders (the abstract types of a module type) and what stands for
/// each.
pub type Subst = HashMap<Entity, Entity>;

/// What the placeholders of a module type stand for while a module is
/// matched with it: the module's own types (to check its values' types
/// against), and the types its users see (the same, or abstract types of
/// their own for an ascription).
#[derive(Clone, Default)]
struct Binding {
    check: Subst,
    view: Subst,
}

impl Phase<'_> {
    /// A new abstract type named `name` (qualified), with parameters.
    fn abstract_type(&self, name: String, lifted: Liftedness, params: &[TypeParam]) -> TypeAbbrev {
        TypeAbbrev {
            lifted,
            params: params.to_vec(),
            ty: None,
            abstract_: Some(self.tenv.fresh_abstract(name, lifted)),
        }
    }

    /// Elaborates a module type; `prefix` names its abstract types
    /// (`P` for a parameter `P`, whose types are then `P.t`).
    pub(super) fn mod_type(&mut self, scope: &Scope, t: &ModTypeExp, prefix: &str) -> R<Rc<ModTy>> {
        urchin_base::stack::deep(|| self.mod_type_inner(scope, t, prefix))
    }

    fn mod_type_inner(&mut self, scope: &Scope, t: &ModTypeExp, prefix: &str) -> R<Rc<ModTy>> {
        match t {
            ModTypeExp::Var(q, span) => {
                let ty = self.sig_named(scope, q, *span)?;
                Ok(self.freshen(&ty, prefix))
            }
            ModTypeExp::Specs(specs, _) => Ok(Rc::new(ModTy::Sig(Rc::new(
                self.specs(scope, specs, prefix)?,
            )))),
            ModTypeExp::With(inner, q, params, ty, span) => {
                let base = self.mod_type(scope, inner, prefix)?;
                self.refine(scope, &base, q, params, ty, *span)
            }
            ModTypeExp::Arrow(param, a, b, _) => {
                let name = param.as_ref().map(|(n, _)| n.clone());
                let a = self.mod_type(scope, a, name.as_deref().unwrap_or(prefix))?;
                let mut inner = scope.clone();
                if let Some(n) = &name {
                    inner.env.bind_mod(n.clone(), Module::Struct(skeleton(&a)));
                }
                let b = self.mod_type(&inner, b, prefix)?;
                Ok(Rc::new(ModTy::Functor {
                    param: name.unwrap_or_else(|| "_".into()),
                    param_ty: a,
                    result: b,
                }))
            }
        }
    }

    fn specs(&mut self, scope: &Scope, specs: &[ast::Spec], prefix: &str) -> R<Sig> {
        let mut local = scope.clone();
        let mut sig = Sig::default();
        for spec in specs {
            match spec {
                ast::Spec::Type(t) => {
                    crate::check_distinct_params(&t.params)?;
                    let def = match &t.def {
                        Some(d) => Some(
                            Resolver::new(&local.env, self.tenv.node_ids())
                                .type_with_params(&t.params, d)?,
                        ),
                        None => None,
                    };
                    let placeholder = self.tenv.fresh_entity();
                    let abbrev = match &def {
                        Some(d) => self.tenv.check_type_dec(&TypeDec {
                            name: t.name.clone(),
                            lifted: t.lifted,
                            params: t.params.clone(),
                            ty: d.clone(),
                            span: t.span,
                        })?,
                        None => self.abstract_type(join(prefix, &t.name), t.lifted, &t.params),
                    };
                    self.tenv.globals.define_type(placeholder, abbrev);
                    local.env.bind_type(t.name.clone(), placeholder);
                    add_spec(
                        &mut sig,
                        SigSpec::Type(TypeSpec {
                            name: t.name.clone(),
                            lifted: t.lifted,
                            params: t.params.clone(),
                            def,
                            placeholder,
                            span: t.span,
                        }),
                    );
                }
                ast::Spec::Val(v) => {
                    crate::check_distinct_params(&v.type_params)?;
                    let ty = Resolver::new(&local.env, self.tenv.node_ids())
                        .spec_type(&v.type_params, &v.ty)?;
                    let entity = self.value_placeholder(&v.type_params, &ty)?;
                    local.env.bind_val(v.name.clone(), entity);
                    add_spec(
                        &mut sig,
                        SigSpec::Val(ValSpec {
                            name: v.name.clone(),
                            type_params: v.type_params.clone(),
                            ty,
                            doc: v.doc.clone(),
                            span: v.span,
                            entity,
                        }),
                    );
                }
                ast::Spec::Module(n, _, mt, span) => {
                    let ty = self.mod_type(&local, mt, &join(prefix, n))?;
                    if matches!(*ty, ModTy::Sig(_)) {
                        local.env.bind_mod(n.clone(), Module::Struct(skeleton(&ty)));
                    }
                    add_spec(
                        &mut sig,
                        SigSpec::Module(ModSpec {
                            name: n.clone(),
                            ty,
                            span: *span,
                        }),
                    );
                }
                ast::Spec::Include(mt, span) => {
                    let ty = self.mod_type(&local, mt, prefix)?;
                    let ModTy::Sig(inc) = &*ty else {
                        return Err(Diagnostic::ty(
                            "a parametric module type cannot be included",
                            *span,
                        )
                        .with_help("`include` takes a module type of definitions: `include s`")
                        .into());
                    };
                    local.env.extend(&skeleton(&ty));
                    for s in &inc.specs {
                        add_spec(&mut sig, s.clone());
                    }
                }
            }
        }
        Ok(sig)
    }

    /// A value of a module type's specification, for the sizes of the
    /// specifications after it to name.
    fn value_placeholder(&mut self, tps: &[TypeParam], ty: &TypeExp) -> R<Entity> {
        let scheme = self.tenv.spec_scheme(tps, ty)?;
        let e = self.tenv.fresh_entity();
        self.tenv
            .globals
            .define(e, Global::new(scheme, GlobalKind::Param));
        Ok(e)
    }

    /// `mt with p.t 'a = t`.
    fn refine(
        &mut self,
        scope: &Scope,
        base: &Rc<ModTy>,
        q: &QualName,
        params: &[TypeParam],
        ty: &TypeExp,
        span: Span,
    ) -> R<Rc<ModTy>> {
        let ModTy::Sig(sig) = &**base else {
            return Err(Diagnostic::ty(
                "a parametric module type cannot be refined with `with`",
                span,
            )
            .into());
        };
        let def = Resolver::new(&scope.env, self.tenv.node_ids()).type_with_params(params, ty)?;
        let refined = self.refine_sig(sig, &q.quals, q, params, def, span)?;
        Ok(Rc::new(ModTy::Sig(Rc::new(refined))))
    }

    fn refine_sig(
        &mut self,
        sig: &Sig,
        path: &[Ident],
        q: &QualName,
        params: &[TypeParam],
        def: TypeExp,
        span: Span,
    ) -> R<Sig> {
        let mut out = sig.clone();
        if let Some((m, rest)) = path.split_first() {
            let Some(SigSpec::Module(ms)) = out
                .specs
                .iter_mut()
                .find(|s| matches!(s, SigSpec::Module(ms) if ms.name == *m))
            else {
                return Err(no_such_type(q, span).into());
            };
            let ModTy::Sig(inner) = &*ms.ty else {
                return Err(no_such_type(q, span).into());
            };
            let refined = self.refine_sig(inner, rest, q, params, def, span)?;
            ms.ty = Rc::new(ModTy::Sig(Rc::new(refined)));
            return Ok(out);
        }
        let Some(SigSpec::Type(ts)) = out
            .specs
            .iter_mut()
            .find(|s| matches!(s, SigSpec::Type(ts) if ts.name == q.name))
        else {
            return Err(no_such_type(q, span).into());
        };
        if let Some(d) = &ts.def {
            return Err(Diagnostic::ty(
                format!("`{q}` is not an abstract type of this module type"),
                span,
            )
            .with_label(format!("it is already `{}`", pretty::type_exp(d)))
            .with_help("only an abstract type (`type t`) can be given a definition with `with`")
            .into());
        }
        if !same_kinds(&ts.params, params) {
            return Err(Diagnostic::ty(
                format!(
                    "Cannot refine a type having {} with one having {}",
                    describe_params(&ts.params),
                    describe_params(params)
                ),
                span,
            )
            .with_label(format!(
                "`{q}` is specified with {}",
                describe_params(&ts.params)
            ))
            .with_help("give `with` the same type and size parameters as the specification")
            .into());
        }
        let abbrev = self.tenv.check_type_dec(&TypeDec {
            name: q.name.clone(),
            lifted: ts.lifted,
            params: params.to_vec(),
            ty: def.clone(),
            span,
        })?;
        // The placeholder is this copy's own: the other specifications
        // now see the definition.
        self.tenv.globals.define_type(ts.placeholder, abbrev);
        ts.params = params.to_vec();
        ts.def = Some(def);
        Ok(out)
    }

    /// A copy of a module type with fresh placeholders, named after
    /// `prefix`.
    pub(super) fn freshen(&mut self, ty: &Rc<ModTy>, prefix: &str) -> Rc<ModTy> {
        let mut subst = Subst::new();
        let mut copies = Vec::new();
        collect_placeholders(ty, prefix, &mut |e, name| {
            let fresh = self.tenv.fresh_entity();
            subst.insert(e, fresh);
            copies.push((e, fresh, name));
        });
        for (old, new, name) in copies {
            let Some(abbrev) = self.tenv.globals.type_abbrev(old) else {
                continue;
            };
            let copy = TypeAbbrev {
                lifted: abbrev.lifted,
                params: abbrev.params.clone(),
                ty: abbrev.ty.as_ref().map(|t| rename_types(t, &subst)),
                abstract_: abbrev
                    .abstract_
                    .as_ref()
                    .map(|a| self.tenv.fresh_abstract(name, a.lifted)),
            };
            self.tenv.globals.define_type(new, copy);
        }
        rename_modty(ty, &subst)
    }

    /// `m` seen as a module of type `ty`, checked to be one. `opaque`
    /// (ascription): the abstract types of `ty` are abstract types of
    /// their own, hiding the module's; otherwise (the argument of a
    /// parametric module) they are the module's. `path` names the module
    /// in messages and its abstract types.
    pub(super) fn ascribe(
        &mut self,
        m: &Module,
        ty: &ModTy,
        opaque: bool,
        path: &[Ident],
        span: Span,
    ) -> R<Module> {
        self.match_mod(m, ty, &mut Binding::default(), opaque, path, span)
    }

    fn match_mod(
        &mut self,
        m: &Module,
        ty: &ModTy,
        subst: &mut Binding,
        opaque: bool,
        path: &[Ident],
        span: Span,
    ) -> R<Module> {
        let shown = if path.is_empty() {
            "the module".to_string()
        } else {
            format!("`{}`", path.join("."))
        };
        match (m, ty) {
            (Module::Struct(env), ModTy::Sig(sig)) => {
                Ok(Module::Struct(Rc::new(self.match_sig(env, sig, subst, opaque, path, span)?)))
            }
            (Module::Functor(f), ModTy::Functor { param, param_ty, result }) => {
                let pty = rename_modty(param_ty, &subst.check);
                let any = self.param_module(&pty, param)?;
                // What the module type promises of any application must
                // hold of this one: its parameter's type must accept any
                // module of `pty`, and its result must be a `result`.
                let generic = std::mem::replace(&mut self.generic, true);
                let checked = (|| {
                    let place = super::Place::file();
                    let out = self.apply(f, &any, span, &place)?;
                    let mut inner = subst.clone();
                    let bound = self.bind_param(&pty, &any);
                    inner.check.extend(bound.clone());
                    inner.view.extend(bound);
                    let rty = rename_modty(result, &inner.check);
                    self.match_mod(&out, &rty, &mut inner, true, path, span)
                })();
                self.generic = generic;
                checked?;
                Ok(Module::Functor(Rc::new(Functor {
                    name: f.name.clone(),
                    param: param.clone(),
                    param_ty: rename_modty(param_ty, &subst.view),
                    body: FunctorBody::Ascribed {
                        inner: f.clone(),
                        result: rename_modty(result, &subst.view),
                    },
                })))
            }
            (Module::Functor(f), ModTy::Sig(_)) => Err(Diagnostic::ty(
                format!("{shown} is a parametric module, but its module type asks for a module of definitions"),
                span,
            )
            .with_label(format!("`{}` takes a module `{}`", f.name, f.param))
            .into()),
            (Module::Struct(_), ModTy::Functor { .. }) => Err(Diagnostic::ty(
                format!("{shown} is not a parametric module, but its module type asks for one"),
                span,
            )
            .into()),
        }
    }

    fn match_sig(
        &mut self,
        env: &Env,
        sig: &Sig,
        subst: &mut Binding,
        opaque: bool,
        path: &[Ident],
        span: Span,
    ) -> R<Env> {
        let member = |x: &str| {
            let mut p = path.join(".");
            if !p.is_empty() {
                p.push('.');
            }
            p.push_str(x);
            p
        };
        let mut view = Env::default();
        // The values specified so far, which sizes in later
        // specifications may name.
        let mut values: Vec<(Ident, Entity)> = Vec::new();
        for spec in &sig.specs {
            match spec {
                SigSpec::Type(ts) => {
                    let Some(&actual) = env.types.get(&ts.name) else {
                        return Err(missing("type", &member(&ts.name), ts.span, span).into());
                    };
                    let abbrev =
                        self.tenv.globals.type_abbrev(actual).ok_or_else(|| {
                            Diagnostic::internal("a type without a definition", span)
                        })?;
                    let name = member(&ts.name);
                    if !same_kinds(&ts.params, &abbrev.params) {
                        return Err(type_misfit(&name, ts, &subst.check, span)
                            .with_note(format!(
                                "the module's type has {}, the specification {}",
                                describe_params(&abbrev.params),
                                describe_params(&ts.params)
                            ))
                            .into());
                    }
                    if let Some(why) = lifting_misfit(ts.lifted, abbrev.lifted) {
                        return Err(type_misfit(&name, ts, &subst.check, span)
                            .with_note(why)
                            .into());
                    }
                    let applied = applied_to_params(actual, &ts.params, ts.span);
                    if let Some(def) = &ts.def {
                        let def = rename_types(def, &subst.check);
                        if !self.tenv.same_type(&ts.params, &applied, &def)? {
                            let found = abbrev
                                .ty
                                .as_ref()
                                .filter(|_| abbrev.abstract_.is_none())
                                .map(pretty::type_exp)
                                .unwrap_or_else(|| name.clone());
                            return Err(type_misfit(&name, ts, &subst.check, span)
                                .with_note(format!("the module has `type {} = {found}`", ts.name))
                                .into());
                        }
                    }
                    let seen = if opaque && ts.def.is_none() {
                        if let Some(def) = &abbrev.ty {
                            check_constructive(&name, ts, def, span)?;
                        }
                        let e = self.tenv.fresh_entity();
                        self.tenv.globals.define_type(
                            e,
                            TypeAbbrev {
                                lifted: ts.lifted,
                                params: ts.params.clone(),
                                ty: Some(applied),
                                abstract_: Some(self.tenv.fresh_abstract(name, ts.lifted)),
                            },
                        );
                        e
                    } else {
                        actual
                    };
                    subst.check.insert(ts.placeholder, actual);
                    subst.view.insert(ts.placeholder, seen);
                    view.bind_type(ts.name.clone(), seen);
                }
                SigSpec::Val(vs) => {
                    let name = member(&vs.name);
                    let Some(&actual) = env.vals.get(&vs.name) else {
                        return Err(missing("value", &name, vs.span, span).into());
                    };
                    if opaque {
                        check_size_lifted_value(&name, vs, sig, span)?;
                    }
                    let g = self
                        .tenv
                        .globals
                        .value(actual)
                        .cloned()
                        .ok_or_else(|| Diagnostic::internal("a value without a type", span))?;
                    let spec_ty = rename_types(&vs.ty, &subst.check);
                    let spec = self.tenv.spec_scheme(&vs.type_params, &spec_ty)?;
                    let shown_spec = show_val_spec(vs, &rename_types(&vs.ty, &subst.view));
                    if let Err(m) = self.tenv.fits_spec(&g.scheme, &spec) {
                        return Err(Diagnostic::ty(
                            format!(
                                "value `{name}` does not match its specification `{shown_spec}`"
                            ),
                            span,
                        )
                        .with_secondary(vs.span, "specified here")
                        .with_note(format!("the module type asks for `{}`", m.expected))
                        .with_note(format!("the module has `{}`", m.found))
                        .into());
                    }
                    // Futhark fixes an overloaded type at the definition,
                    // before the module meets its module type.
                    if let Some(fixed) = g.scheme.fixed_overloads() {
                        if let Err(m) = self.tenv.fits_spec(&fixed, &spec) {
                            return Err(Diagnostic::ty(
                                format!(
                                    "value `{name}` does not match its specification `{shown_spec}`: Defaulted to `{}`",
                                    m.found
                                ),
                                span,
                            )
                            .with_secondary(vs.span, "specified here")
                            .with_note(format!(
                                "`{}` is overloaded (`{}`); as in Futhark, its numeric types are fixed where it is defined, to their defaults (`i32`, `f64` for float literals), before the module type is matched",
                                vs.name, g.scheme
                            ))
                            .with_help(format!(
                                "annotate the definition with the types its specification asks for (`{}`)",
                                m.expected
                            ))
                            .into());
                        }
                    }
                    subst.check.insert(vs.entity, actual);
                    values.push((vs.name.clone(), vs.entity));
                    let sizes = match g.kind {
                        GlobalKind::Def(id) => Some(Rc::new(self.spec_sizes(
                            id,
                            vs,
                            &values,
                            &spec_ty,
                            &subst.check,
                            &name,
                            &shown_spec,
                            span,
                        )?)),
                        _ => None,
                    };
                    if let GlobalKind::Def(id) = g.kind {
                        let def = self.tenv.def(id);
                        if let Some(i) = consumes_unasked(&def.source.params, &spec_ty) {
                            return Err(Diagnostic::ty(
                                format!("value `{name}` does not match its specification `{shown_spec}`"),
                                span,
                            )
                            .with_secondary(def.source.params[i].span(), "this parameter is consumed (`*`)")
                            .with_note("the specification does not allow its argument to be consumed: mark it unique there (`*t`), or do not consume it")
                            .into());
                        }
                    }
                    let seen = self
                        .tenv
                        .spec_scheme(&vs.type_params, &rename_types(&vs.ty, &subst.view))?;
                    let e = self.tenv.fresh_entity();
                    self.tenv.globals.define(
                        e,
                        Global {
                            scheme: Rc::new(seen),
                            rep: Some(g.view(true).clone()),
                            kind: g.kind.clone(),
                            sizes,
                        },
                    );
                    subst.view.insert(vs.entity, e);
                    view.bind_val(vs.name.clone(), e);
                }
                SigSpec::Module(ms) => {
                    let mut inner_path = path.to_vec();
                    inner_path.push(ms.name.clone());
                    let Some(actual) = env.mods.get(&ms.name) else {
                        return Err(missing("module", &member(&ms.name), ms.span, span).into());
                    };
                    let seen = self.match_mod(actual, &ms.ty, subst, opaque, &inner_path, span)?;
                    view.bind_mod(ms.name.clone(), seen);
                }
            }
        }
        Ok(view)
    }

    /// The sizes the specification `vs` (its types `spec_ty` the
    /// module's) gives the definition `id`, which must fit them.
    #[allow(clippy::too_many_arguments)]
    fn spec_sizes(
        &self,
        id: crate::env::DefId,
        vs: &ValSpec,
        values: &[(Ident, Entity)],
        spec_ty: &TypeExp,
        rename: &Subst,
        name: &str,
        shown_spec: &str,
        span: Span,
    ) -> R<crate::sizes::SizedSig> {
        let shadowed: Vec<Ident> = vs
            .type_params
            .iter()
            .filter_map(|p| match p {
                TypeParam::Type(n, _, _) => Some(n.clone()),
                TypeParam::Size(..) => None,
            })
            .collect();
        let spelled = self.tenv.globals.expand(spec_ty, &shadowed);
        let def = self.tenv.def(id);
        let (sig, fits) = crate::sizes::spec(
            def,
            &self.tenv.defs,
            &self.tenv.globals,
            rename,
            &crate::sizes::ValSpecType {
                values,
                type_params: &vs.type_params,
                ty: &spelled,
            },
        );
        match fits {
            Ok(()) => Ok(sig),
            Err(m) => Err(Diagnostic::ty(
                format!("value `{name}` does not match its specification `{shown_spec}`"),
                span,
            )
            .with_secondary(vs.span, "specified here")
            .with_note(format!(
                "the module type asks for `{}`, the module has `{}`: Sizes \"{}\" and \"{}\" do not match",
                m.expected, m.found, m.sizes.0, m.sizes.1
            ))
            .with_help("make the definition's sizes those of its specification, or coerce its result with `:>`")
            .into()),
        }
    }

    /// A module of type `ty` with nothing known about it: its abstract
    /// types fresh (named `name.t`), its values without code, its
    /// parametric modules standing for any of their type.
    pub(super) fn param_module(&mut self, ty: &ModTy, name: &str) -> R<Module> {
        match ty {
            ModTy::Sig(sig) => {
                let mut env = Env::default();
                let mut subst = Subst::new();
                for spec in &sig.specs {
                    match spec {
                        SigSpec::Type(ts) => {
                            let e = self.tenv.fresh_entity();
                            let abbrev = match &ts.def {
                                Some(d) => TypeAbbrev {
                                    lifted: ts.lifted,
                                    params: ts.params.clone(),
                                    ty: Some(rename_types(d, &subst)),
                                    abstract_: None,
                                },
                                None => {
                                    self.abstract_type(join(name, &ts.name), ts.lifted, &ts.params)
                                }
                            };
                            self.tenv.globals.define_type(e, abbrev);
                            subst.insert(ts.placeholder, e);
                            env.bind_type(ts.name.clone(), e);
                        }
                        SigSpec::Val(vs) => {
                            let ty = rename_types(&vs.ty, &subst);
                            let scheme = self.tenv.spec_scheme(&vs.type_params, &ty)?;
                            let e = self.tenv.fresh_entity();
                            self.tenv
                                .globals
                                .define(e, Global::new(scheme, GlobalKind::Param));
                            env.bind_val(vs.name.clone(), e);
                        }
                        SigSpec::Module(ms) => {
                            let mty = rename_modty(&ms.ty, &subst);
                            let m = self.param_module(&mty, &join(name, &ms.name))?;
                            subst.extend(self.bind_param(&mty, &m));
                            env.bind_mod(ms.name.clone(), m);
                        }
                    }
                }
                Ok(Module::Struct(Rc::new(env)))
            }
            ModTy::Functor {
                param,
                param_ty,
                result,
            } => Ok(Module::Functor(Rc::new(Functor {
                name: name.into(),
                param: param.clone(),
                param_ty: param_ty.clone(),
                body: FunctorBody::Spec {
                    result: result.clone(),
                },
            }))),
        }
    }

    /// What the placeholders of `ty` stand for in `m`, a module of it.
    pub(super) fn bind_param(&self, ty: &ModTy, m: &Module) -> Subst {
        let mut subst = Subst::new();
        bind_placeholders(ty, m, &mut subst);
        subst
    }
}

fn bind_placeholders(ty: &ModTy, m: &Module, subst: &mut Subst) {
    let (ModTy::Sig(sig), Module::Struct(env)) = (ty, m) else {
        return;
    };
    for spec in &sig.specs {
        match spec {
            SigSpec::Type(ts) => {
                if let Some(e) = env.types.get(&ts.name) {
                    subst.insert(ts.placeholder, *e);
                }
            }
            SigSpec::Module(ms) => {
                if let Some(inner) = env.mods.get(&ms.name) {
                    bind_placeholders(&ms.ty, inner, subst);
                }
            }
            SigSpec::Val(_) => {}
        }
    }
}

/// Adds a specification; one of the same name (and kind) before it is
/// replaced, and what named its type names the new one (as when a module
/// type is included twice).
fn add_spec(sig: &mut Sig, spec: SigSpec) {
    let same = |s: &SigSpec| {
        s.name() == spec.name() && std::mem::discriminant(s) == std::mem::discriminant(&spec)
    };
    if let Some(i) = sig.specs.iter().position(same) {
        let old = sig.specs.remove(i);
        if let (SigSpec::Type(old), SigSpec::Type(new)) = (&old, &spec) {
            let subst: Subst = [(old.placeholder, new.placeholder)].into_iter().collect();
            let renamed = rename_sig(sig, &subst);
            *sig = renamed;
        }
    }
    sig.specs.push(spec);
}

/// The names a module type lets the specifications after it use: its
/// types (placeholders), values and modules.
fn skeleton(ty: &ModTy) -> Rc<Env> {
    let mut env = Env::default();
    if let ModTy::Sig(sig) = ty {
        for spec in &sig.specs {
            match spec {
                SigSpec::Type(ts) => env.bind_type(ts.name.clone(), ts.placeholder),
                SigSpec::Val(vs) => env.bind_val(vs.name.clone(), vs.entity),
                SigSpec::Module(ms) => {
                    if matches!(*ms.ty, ModTy::Sig(_)) {
                        env.bind_mod(ms.name.clone(), Module::Struct(skeleton(&ms.ty)));
                    }
                }
            }
        }
    }
    Rc::new(env)
}

fn collect_placeholders(ty: &ModTy, prefix: &str, f: &mut impl FnMut(Entity, String)) {
    match ty {
        ModTy::Sig(sig) => {
            for spec in &sig.specs {
                match spec {
                    SigSpec::Type(ts) => f(ts.placeholder, join(prefix, &ts.name)),
                    SigSpec::Module(ms) => collect_placeholders(&ms.ty, &join(prefix, &ms.name), f),
                    SigSpec::Val(_) => {}
                }
            }
        }
        ModTy::Functor {
            param_ty,
            result,
            param,
        } => {
            collect_placeholders(param_ty, param, f);
            collect_placeholders(result, prefix, f);
        }
    }
}

/// A module type with the placeholders of `subst` replaced.
pub(super) fn rename_modty(ty: &ModTy, subst: &Subst) -> Rc<ModTy> {
    Rc::new(match ty {
        ModTy::Sig(sig) => ModTy::Sig(Rc::new(rename_sig(sig, subst))),
        ModTy::Functor {
            param,
            param_ty,
            result,
        } => ModTy::Functor {
            param: param.clone(),
            param_ty: rename_modty(param_ty, subst),
            result: rename_modty(result, subst),
        },
    })
}

fn rename_sig(sig: &Sig, subst: &Subst) -> Sig {
    Sig {
        specs: sig
            .specs
            .iter()
            .map(|s| match s {
                SigSpec::Type(ts) => SigSpec::Type(TypeSpec {
                    def: ts.def.as_ref().map(|d| rename_types(d, subst)),
                    placeholder: subst
                        .get(&ts.placeholder)
                        .copied()
                        .unwrap_or(ts.placeholder),
                    ..ts.clone()
                }),
                SigSpec::Val(vs) => SigSpec::Val(ValSpec {
                    ty: rename_types(&vs.ty, subst),
                    ..vs.clone()
                }),
                SigSpec::Module(ms) => SigSpec::Module(ModSpec {
                    ty: rename_modty(&ms.ty, subst),
                    ..ms.clone()
                }),
            })
            .collect(),
    }
}

/// A type with the type names of `subst` replaced.
pub(super) fn rename_types(t: &TypeExp, subst: &Subst) -> TypeExp {
    urchin_base::stack::deep(|| match t {
        TypeExp::Named(q, args, span) => {
            let q = match q.entity.and_then(|e| subst.get(&e)) {
                Some(e) => q.resolved(*e),
                None => q.clone(),
            };
            let args = args
                .iter()
                .map(|a| match a {
                    TypeArg::Type(t) => TypeArg::Type(rename_types(t, subst)),
                    TypeArg::Size(d) => TypeArg::Size(d.clone()),
                })
                .collect();
            TypeExp::Named(q, args, *span)
        }
        _ => t.map_children(|c| rename_types(c, subst)),
    })
}

/// The type `e` applied to a specification's parameters: `t 'a [n]` is
/// `e a [n]`.
fn applied_to_params(e: Entity, params: &[TypeParam], span: Span) -> TypeExp {
    let args = params
        .iter()
        .map(|p| match p {
            TypeParam::Type(n, _, s) => {
                TypeArg::Type(TypeExp::Named(QualName::plain(n.clone()), Vec::new(), *s))
            }
            TypeParam::Size(n, _) => TypeArg::Size(ast::Dim::Named(n.clone())),
        })
        .collect();
    TypeExp::Named(QualName::plain("t").resolved(e), args, span)
}

/// Whether two parameter lists have the same kinds of parameters, in
/// order.
fn same_kinds(a: &[TypeParam], b: &[TypeParam]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            matches!(
                (x, y),
                (TypeParam::Size(..), TypeParam::Size(..))
                    | (TypeParam::Type(..), TypeParam::Type(..))
            )
        })
}

fn describe_params(ps: &[TypeParam]) -> String {
    let types = ps
        .iter()
        .filter(|p| matches!(p, TypeParam::Type(..)))
        .count();
    let sizes = ps.len() - types;
    let count = |n: usize, what: &str| match n {
        1 => format!("1 {what} parameter"),
        n => format!("{n} {what} parameters"),
    };
    match (types, sizes) {
        (0, 0) => "no parameters".into(),
        (t, 0) => count(t, "type"),
        (0, s) => count(s, "size"),
        (t, s) => format!("{} and {}", count(t, "type"), count(s, "size")),
    }
}

/// Why a type of liftedness `found` cannot implement an abstract type of
/// liftedness `spec`.
fn lifting_misfit(spec: Liftedness, found: Liftedness) -> Option<String> {
    match (spec, found) {
        (Liftedness::Plain, Liftedness::Lifted) | (Liftedness::SizeLifted, Liftedness::Lifted) => Some(
            "the module's type is lifted (`type^`: it may hold functions), but the specification asks for a non-lifted type".into(),
        ),
        (Liftedness::Plain, Liftedness::SizeLifted) => Some(
            "the module's type is size-lifted (`type~`: its sizes may vary), but the specification asks for a non-lifted type (`type`)".into(),
        ),
        _ => None,
    }
}

fn type_misfit(name: &str, ts: &TypeSpec, subst: &Subst, span: Span) -> Diagnostic {
    let kw = match ts.lifted {
        Liftedness::Plain => "type",
        Liftedness::SizeLifted => "type~",
        Liftedness::Lifted => "type^",
    };
    let mut spec = format!("{kw} {}", ts.name);
    for p in &ts.params {
        match p {
            TypeParam::Type(n, _, _) => spec.push_str(&format!(" '{n}")),
            TypeParam::Size(n, _) => spec.push_str(&format!(" [{n}]")),
        }
    }
    if let Some(d) = &ts.def {
        spec.push_str(&format!(" = {}", pretty::type_exp(&rename_types(d, subst))));
    }
    Diagnostic::ty(
        format!("type `{name}` does not match its specification `{spec}`"),
        span,
    )
    .with_secondary(ts.span, "specified here")
}

fn missing(what: &str, name: &str, spec_span: Span, span: Span) -> Diagnostic {
    Diagnostic::ty(
        format!("the module has no {what} `{name}`, which its module type specifies"),
        span,
    )
    .with_secondary(spec_span, "specified here")
    .with_help(format!("define `{name}` in the module"))
}

fn no_such_type(q: &QualName, span: Span) -> Diagnostic {
    Diagnostic::ty(format!("this module type has no type `{q}`"), span)
        .with_help("`with` refines a type the module type specifies")
}

fn show_val_spec(vs: &ValSpec, ty: &TypeExp) -> String {
    let mut s = format!("val {}", vs.name);
    for p in &vs.type_params {
        match p {
            TypeParam::Type(n, _, _) => s.push_str(&format!(" '{n}")),
            TypeParam::Size(n, _) => s.push_str(&format!(" [{n}]")),
        }
    }
    s.push_str(&format!(" : {}", pretty::type_exp(ty)));
    s
}

/// The first parameter a definition consumes (`*t`) whose specification
/// does not allow it.
fn consumes_unasked(params: &[ast::Pat], spec: &TypeExp) -> Option<usize> {
    let mut t = spec;
    for (i, p) in params.iter().enumerate() {
        let TypeExp::Arrow(_, a, b, _) = t else {
            return None;
        };
        if pat_consumes(p) && !has_unique(a) {
            return Some(i);
        }
        t = b;
    }
    None
}

fn pat_consumes(p: &ast::Pat) -> bool {
    match p {
        ast::Pat::Ascribed(inner, t, _) => has_unique(t) || pat_consumes(inner),
        ast::Pat::Tuple(ps, _) | ast::Pat::Constr(_, ps, _) => ps.iter().any(pat_consumes),
        ast::Pat::Record(fs, _) => fs.iter().filter_map(|(_, p)| p.as_ref()).any(pat_consumes),
        ast::Pat::Id(..) | ast::Pat::Wildcard(_) | ast::Pat::Literal(..) => false,
    }
}

/// Whether a type marks something unique (`*`), outside function types.
fn has_unique(t: &TypeExp) -> bool {
    match t {
        TypeExp::Unique(..) => true,
        TypeExp::Arrow(..) => false,
        TypeExp::Array(_, inner, _) | TypeExp::Exists(_, inner, _) => has_unique(inner),
        TypeExp::Tuple(ts, _) => ts.iter().any(has_unique),
        TypeExp::Record(fs, _) => fs.iter().any(|(_, t)| has_unique(t)),
        TypeExp::Named(..) | TypeExp::Prim(..) | TypeExp::Sum(..) => false,
    }
}

/// Futhark's rule for a type made abstract: each of its size parameters
/// must be the size of an array in its definition (not only of a
/// function's parameter or result), so that a value of it has the sizes.
fn check_constructive(
    name: &str,
    ts: &TypeSpec,
    def: &TypeExp,
    span: Span,
) -> Result<(), Diagnostic> {
    for p in &ts.params {
        let TypeParam::Size(n, _) = p else { continue };
        if !constructive(def, n) {
            return Err(Diagnostic::ty(
                format!("the size parameter `[{n}]` of `{name}` is not used constructively in its definition"),
                span,
            )
            .with_secondary(ts.span, "made abstract here")
            .with_note(format!("the module defines it as `{}`", pretty::type_exp(def)))
            .with_help(format!(
                "an abstract type's size parameter must be the size of an array in it (`[{n}]t`), not only inside a function type"
            )));
        }
    }
    Ok(())
}

/// Whether `n` is the size of an array in `t`, outside function types.
fn constructive(t: &TypeExp, n: &Ident) -> bool {
    match t {
        TypeExp::Array(ast::Dim::Named(m), inner, _) => m == n || constructive(inner, n),
        TypeExp::Array(_, inner, _) | TypeExp::Unique(inner, _) => constructive(inner, n),
        TypeExp::Exists(ns, inner, _) => !ns.contains(n) && constructive(inner, n),
        TypeExp::Tuple(ts, _) => ts.iter().any(|t| constructive(t, n)),
        TypeExp::Record(fs, _) => fs.iter().any(|(_, t)| constructive(t, n)),
        TypeExp::Sum(cs, _) => cs.iter().flat_map(|(_, ts)| ts).any(|t| constructive(t, n)),
        TypeExp::Named(_, args, _) => args.iter().any(|a| match a {
            TypeArg::Size(ast::Dim::Named(m)) => m == n,
            TypeArg::Size(_) => false,
            TypeArg::Type(t) => constructive(t, n),
        }),
        TypeExp::Arrow(..) | TypeExp::Prim(..) => false,
    }
}

/// Futhark's restriction on ascription: a value whose type is, outside
/// function types, a size-lifted abstract type (`type~`) of the module
/// type would have sizes no type says.
fn check_size_lifted_value(
    name: &str,
    vs: &ValSpec,
    sig: &Sig,
    span: Span,
) -> Result<(), Diagnostic> {
    let size_lifted: Vec<Entity> = sig
        .specs
        .iter()
        .filter_map(|s| match s {
            SigSpec::Type(ts) if ts.def.is_none() && ts.lifted == Liftedness::SizeLifted => {
                Some(ts.placeholder)
            }
            _ => None,
        })
        .collect();
    fn top(t: &TypeExp, ls: &[Entity]) -> bool {
        match t {
            TypeExp::Named(q, args, _) => {
                q.entity.is_some_and(|e| ls.contains(&e))
                    || args
                        .iter()
                        .any(|a| matches!(a, TypeArg::Type(t) if top(t, ls)))
            }
            TypeExp::Arrow(..) | TypeExp::Prim(..) => false,
            TypeExp::Array(_, inner, _)
            | TypeExp::Unique(inner, _)
            | TypeExp::Exists(_, inner, _) => top(inner, ls),
            TypeExp::Tuple(ts, _) => ts.iter().any(|t| top(t, ls)),
            TypeExp::Record(fs, _) => fs.iter().any(|(_, t)| top(t, ls)),
            TypeExp::Sum(cs, _) => cs.iter().flat_map(|(_, ts)| ts).any(|t| top(t, ls)),
        }
    }
    if top(&vs.ty, &size_lifted) {
        return Err(Diagnostic::ty(
            format!(
                "Value \"{}\" (`{name}`) cannot be of a size-lifted abstract type outside a function",
                vs.name
            ),
            span,
        )
        .with_secondary(vs.span, "specified here")
        .with_help("a `type~` may stand for arrays of any size: make the value a function (`val empty : () -> dict`), or the type `type`"));
    }
    Ok(())
}

fn join(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_string()
    } else {
        format!("{prefix}.{name}")
    }
}
