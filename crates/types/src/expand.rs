//! Spelling out type abbreviations in the target program: `ints [n]`
//! becomes `[n]i32`, so that the sizes an abbreviation fixes or names are
//! bound and checked where it is used, like sizes written out. Abstract
//! types are spelled out too: the target is checked with what they hide.

use super::env::{Globals, split_args};
use crate::elab::Abbreviations;
use urchin_syntax::ast::*;

impl Abbreviations for Globals {
    fn expand(&self, t: &TypeExp, shadowed: &[Ident]) -> TypeExp {
        Expander {
            globals: self,
            open: Vec::new(),
        }
        .ty(t, shadowed)
    }
}

struct Expander<'g> {
    globals: &'g Globals,
    /// The abbreviations being expanded (kept as a guard: a definition
    /// never refers to itself, its name not being in scope in it).
    open: Vec<Entity>,
}

impl Expander<'_> {
    fn ty(&mut self, t: &TypeExp, shadowed: &[Ident]) -> TypeExp {
        match t {
            TypeExp::Named(q, args, span) => self.named(q, args, *span, shadowed),
            _ => t.map_children(|c| self.ty(c, shadowed)),
        }
    }

    fn named(
        &mut self,
        q: &QualName,
        args: &[TypeArg],
        span: urchin_base::source::Span,
        shadowed: &[Ident],
    ) -> TypeExp {
        let args: Vec<TypeArg> = args
            .iter()
            .map(|a| match a {
                TypeArg::Type(t) => TypeArg::Type(self.ty(t, shadowed)),
                TypeArg::Size(d) => TypeArg::Size(d.clone()),
            })
            .collect();
        let unexpanded = || TypeExp::Named(q.clone(), args.clone(), span);
        let Some(entity) = q.entity else {
            return unexpanded();
        };
        if (q.is_unqualified() && shadowed.contains(&q.name)) || self.open.contains(&entity) {
            return unexpanded();
        }
        let Some(abbrev) = self.globals.type_abbrev(entity) else {
            return unexpanded();
        };
        let Some(def) = &abbrev.ty else {
            return unexpanded();
        };
        let (types, sizes) = abbrev.param_names();
        let types: Vec<Ident> = types.into_iter().cloned().collect();
        let (type_args, size_args) = split_args(&args);
        if type_args.len() != types.len() || size_args.len() != sizes.len() {
            // The checker reports the wrong number of arguments.
            return unexpanded();
        }
        // The body in its own scope, where its parameters shadow.
        self.open.push(entity);
        let body = self.ty(def, &types);
        self.open.pop();
        let subst = Subst {
            types: types.into_iter().zip(type_args).collect(),
            sizes: sizes.into_iter().cloned().zip(size_args).collect(),
        };
        subst.ty(&body)
    }
}

/// The parameters of an abbreviation replaced by its arguments.
struct Subst<'a> {
    types: Vec<(Ident, &'a TypeExp)>,
    sizes: Vec<(Ident, &'a Dim)>,
}

impl Subst<'_> {
    fn ty(&self, t: &TypeExp) -> TypeExp {
        match t {
            TypeExp::Named(q, args, _) if q.is_local() && args.is_empty() => {
                if let Some((_, t)) = self.types.iter().find(|(n, _)| *n == q.name) {
                    return (*t).clone();
                }
            }
            // Existential sizes shadow the parameters of the same name.
            TypeExp::Exists(ns, body, s) => {
                let inner = Subst {
                    types: self.types.clone(),
                    sizes: self
                        .sizes
                        .iter()
                        .filter(|(n, _)| !ns.contains(n))
                        .cloned()
                        .collect(),
                };
                return TypeExp::Exists(ns.clone(), Box::new(inner.ty(body)), *s);
            }
            _ => {}
        }
        t.map_sizes(|d| self.dim(d)).map_children(|c| self.ty(c))
    }

    fn dim(&self, d: &Dim) -> Dim {
        match d {
            Dim::Named(n) => match self.sizes.iter().find(|(m, _)| m == n) {
                Some((_, d)) => (*d).clone(),
                None => d.clone(),
            },
            // A size computed from the parameters is not checked where the
            // abbreviation is used (substituting into expressions is not
            // done).
            Dim::Exp(e) if self.sizes.iter().any(|(n, _)| e.mentions(n)) => Dim::Any,
            _ => d.clone(),
        }
    }
}
