//! What the REPL shows of modules: `:browse M`, `:info M`, the names a
//! declaration brought into scope, and the qualified names completion
//! offers.

use super::{Bound, Repl, complete};
use std::rc::Rc;
use urchin_syntax::ast::{Liftedness, QualName, TypeExp, TypeParam};
use urchin_syntax::pretty;
use urchin_types::env::TypeAbbrev;
use urchin_types::modules::env::{Env, FunctorBody, ModTy, Module, SigSpec};

/// The names `now` binds that `before` does not (or binds to something
/// else), per name space in definition order.
pub(super) fn new_names(before: &Env, now: &Env) -> Vec<Bound> {
    let mut out = Vec::new();
    for (n, e) in &now.vals {
        if before.vals.get(n) != Some(e) {
            out.push(Bound::Value(n.to_string()));
        }
    }
    for (n, e) in &now.types {
        if before.types.get(n) != Some(e) {
            out.push(Bound::Type(n.to_string()));
        }
    }
    for (n, m) in &now.mods {
        if !before.mods.get(n).is_some_and(|b| same_module(b, m)) {
            out.push(Bound::Module(n.to_string()));
        }
    }
    for (n, t) in &now.sigs {
        if !before.sigs.get(n).is_some_and(|b| Rc::ptr_eq(b, t)) {
            out.push(Bound::ModType(n.to_string()));
        }
    }
    out
}

fn same_module(a: &Module, b: &Module) -> bool {
    match (a, b) {
        (Module::Struct(x), Module::Struct(y)) => Rc::ptr_eq(x, y),
        (Module::Functor(x), Module::Functor(y)) => Rc::ptr_eq(x, y),
        _ => false,
    }
}

impl Repl {
    /// `type t 'a = ...`, or `type t 'a` for an abstract type.
    pub(super) fn type_line(&self, name: &str, a: &TypeAbbrev) -> String {
        let mut line = type_head(name, a.lifted, &a.params);
        if let (None, Some(def)) = (&a.abstract_, &a.ty) {
            line.push_str(&format!(" = {}", pretty::type_exp(&self.writable(def))));
        }
        line
    }

    /// `t` with the type names that cannot be written at the prompt
    /// spelled out: in a parametric module's application (`module v64 =
    /// mk_vec f64`), `F.t` is the parameter's, and shows as `f64`.
    fn writable(&self, t: &TypeExp) -> TypeExp {
        let TypeExp::Named(q, args, span) = t else {
            return t.map_children(|c| self.writable(c));
        };
        let Some(e) = q.entity else {
            return t.clone();
        };
        let bare = TypeExp::Named(
            QualName {
                entity: None,
                ..q.clone()
            },
            Vec::new(),
            *span,
        );
        let here = self.session.resolver().ty(&bare);
        if matches!(&here, Ok(TypeExp::Named(p, ..)) if p.entity == Some(e)) {
            return t.clone();
        }
        match self.session.types.globals.type_abbrev(e) {
            Some(a) if a.abstract_.is_none() && a.params.is_empty() && args.is_empty() => {
                match &a.ty {
                    Some(def) => self.writable(def),
                    None => t.clone(),
                }
            }
            _ => t.clone(),
        }
    }
}

fn type_head(name: &str, lifted: Liftedness, params: &[TypeParam]) -> String {
    let kw = match lifted {
        Liftedness::Plain => "type",
        Liftedness::SizeLifted => "type~",
        Liftedness::Lifted => "type^",
    };
    let mut line = format!("{kw} {name}");
    for p in params {
        match p {
            TypeParam::Type(n, _, _) => line.push_str(&format!(" '{n}")),
            TypeParam::Size(n, _) => line.push_str(&format!(" [{n}]")),
        }
    }
    line
}

/// A module type as written: `{ type t val f : t -> t }`, indented by
/// `indent` after its first line.
pub(super) fn show_modty(ty: &ModTy, indent: usize) -> String {
    let pad = " ".repeat(indent + 2);
    match ty {
        ModTy::Sig(sig) => {
            if sig.specs.is_empty() {
                return "{}".into();
            }
            let mut out = String::from("{\n");
            for spec in &sig.specs {
                out.push_str(&pad);
                match spec {
                    SigSpec::Type(t) => {
                        out.push_str(&type_head(&t.name, t.lifted, &t.params));
                        if let Some(d) = &t.def {
                            out.push_str(&format!(" = {}", pretty::type_exp(d)));
                        }
                    }
                    SigSpec::Val(v) => {
                        let name = if urchin_syntax::ast::is_symbol_name(&v.name) {
                            format!("({})", v.name)
                        } else {
                            v.name.to_string()
                        };
                        out.push_str(&format!("val {name}"));
                        for p in &v.type_params {
                            match p {
                                TypeParam::Type(n, _, _) => out.push_str(&format!(" '{n}")),
                                TypeParam::Size(n, _) => out.push_str(&format!(" [{n}]")),
                            }
                        }
                        out.push_str(&format!(" : {}", pretty::type_exp(&v.ty)));
                    }
                    SigSpec::Module(m) => out.push_str(&format!(
                        "module {} : {}",
                        m.name,
                        show_modty(&m.ty, indent + 2)
                    )),
                }
                out.push('\n');
            }
            out.push_str(&" ".repeat(indent));
            out.push('}');
            out
        }
        ModTy::Functor {
            param,
            param_ty,
            result,
        } => format!(
            "({param}: {}) -> {}",
            show_modty(param_ty, indent),
            show_modty(result, indent)
        ),
    }
}

impl Repl {
    /// A module as `:info` and `:browse` show it among other names: its
    /// members, or a parametric module's type.
    pub(super) fn module_lines(&self, name: &str, m: &Module) -> Vec<String> {
        match m {
            Module::Struct(_) => {
                let mut lines = vec![format!("module {name} = {{")];
                lines.extend(
                    self.module_members(name, m)
                        .into_iter()
                        .map(|l| format!("  {l}")),
                );
                lines.push("}".into());
                lines
            }
            Module::Functor(_) => self.module_members(name, m),
        }
    }

    /// The members of a module, qualified by `prefix` (`:browse M`).
    pub(super) fn module_members(&self, prefix: &str, m: &Module) -> Vec<String> {
        let env = match m {
            Module::Struct(env) => env,
            Module::Functor(f) => {
                let result = match &f.body {
                    FunctorBody::Code { result: None, .. } => "{ ... }".to_string(),
                    FunctorBody::Code {
                        result: Some(t), ..
                    } => pretty::mod_type(t),
                    FunctorBody::Spec { result } | FunctorBody::Ascribed { result, .. } => {
                        show_modty(result, 0)
                    }
                };
                return vec![format!(
                    "module {prefix} : ({}: {}) -> {result}",
                    f.param,
                    show_modty(&f.param_ty, 0)
                )];
            }
        };
        let q = |n: &str| format!("{prefix}.{n}");
        let globals = &self.session.types.globals;
        let mut lines = Vec::new();
        for (n, e) in &env.vals {
            if let Some(g) = globals.value(*e) {
                let shown = if urchin_syntax::ast::is_symbol_name(n) {
                    format!("({})", q(n))
                } else {
                    q(n)
                };
                lines.push(self.shown_line(&shown, &self.global_type(n, g)));
            }
        }
        for (n, e) in &env.types {
            if let Some(a) = globals.type_abbrev(*e) {
                lines.push(self.type_line(&q(n), &a));
            }
        }
        for (n, inner) in &env.mods {
            lines.push(match inner {
                Module::Struct(_) => format!("module {}", q(n)),
                Module::Functor(_) => self.module_members(&q(n), inner).join("\n"),
            });
        }
        for (n, t) in &env.sigs {
            lines.push(format!("module type {} = {}", q(n), show_modty(t, 0)));
        }
        lines
    }

    /// Every name that can be completed: what is in scope (members of
    /// modules qualified), the built-ins and the keywords.
    pub fn names(&self) -> Vec<String> {
        let mut names = self.session.names_in_scope();
        names.extend(complete::KEYWORDS.iter().map(|k| k.to_string()));
        names.sort();
        names.dedup();
        names
    }
}
