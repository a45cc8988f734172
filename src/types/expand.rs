//! Spelling out type abbreviations in the target program: `ints [n]`
//! becomes `[n]i32`, so that the sizes an abbreviation fixes or names are
//! bound and checked where it is used, like sizes written out.

use super::env::{Globals, key};
use crate::elab::Abbreviations;
use crate::syntax::ast::*;

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
    /// The abbreviations being expanded (a redefinition at the REPL can
    /// make one refer to itself; such a use stays as it is).
    open: Vec<String>,
}

impl Expander<'_> {
    fn ty(&mut self, t: &TypeExp, shadowed: &[Ident]) -> TypeExp {
        let mut go = |t: &TypeExp| self.ty(t, shadowed);
        match t {
            TypeExp::Prim(..) => t.clone(),
            TypeExp::Named(q, args, span) => self.named(q, args, *span, shadowed),
            TypeExp::Array(d, inner, s) => TypeExp::Array(d.clone(), Box::new(go(inner)), *s),
            TypeExp::Tuple(ts, s) => TypeExp::Tuple(ts.iter().map(go).collect(), *s),
            TypeExp::Record(fs, s) => {
                TypeExp::Record(fs.iter().map(|(n, t)| (n.clone(), go(t))).collect(), *s)
            }
            TypeExp::Arrow(n, a, b, s) => {
                TypeExp::Arrow(n.clone(), Box::new(go(a)), Box::new(go(b)), *s)
            }
            TypeExp::Unique(inner, s) => TypeExp::Unique(Box::new(go(inner)), *s),
            TypeExp::Sum(cs, s) => TypeExp::Sum(
                cs.iter()
                    .map(|(c, ts)| (c.clone(), ts.iter().map(&mut go).collect()))
                    .collect(),
                *s,
            ),
            TypeExp::Exists(ns, inner, s) => TypeExp::Exists(ns.clone(), Box::new(go(inner)), *s),
        }
    }

    fn named(
        &mut self,
        q: &QualName,
        args: &[TypeArg],
        span: crate::source::Span,
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
        let name = key(q);
        if (q.qual.is_none() && shadowed.contains(&q.name)) || self.open.contains(&name) {
            return unexpanded();
        }
        let Some(abbrev) = self.globals.lookup_type(&name) else {
            return unexpanded();
        };
        let (mut types, mut sizes) = (Vec::new(), Vec::new());
        for p in &abbrev.params {
            match p {
                TypeParam::Type(n, _, _) => types.push(n.clone()),
                TypeParam::Size(n, _) => sizes.push(n.clone()),
            }
        }
        let type_args: Vec<&TypeExp> = args
            .iter()
            .filter_map(|a| match a {
                TypeArg::Type(t) => Some(t),
                TypeArg::Size(_) => None,
            })
            .collect();
        let size_args: Vec<&Dim> = args
            .iter()
            .filter_map(|a| match a {
                TypeArg::Size(d) => Some(d),
                TypeArg::Type(_) => None,
            })
            .collect();
        if type_args.len() != types.len() || size_args.len() != sizes.len() {
            // The checker reports the wrong number of arguments.
            return unexpanded();
        }
        // The body in its own scope, where its parameters shadow.
        self.open.push(name);
        let body = self.ty(&abbrev.ty, &types);
        self.open.pop();
        let subst = Subst {
            types: types.into_iter().zip(type_args).collect(),
            sizes: sizes.into_iter().zip(size_args).collect(),
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
        let go = |t: &TypeExp| self.ty(t);
        match t {
            TypeExp::Prim(..) => t.clone(),
            TypeExp::Named(q, args, s) => {
                if let (None, true) = (&q.qual, args.is_empty()) {
                    if let Some((_, t)) = self.types.iter().find(|(n, _)| *n == q.name) {
                        return (*t).clone();
                    }
                }
                let args = args
                    .iter()
                    .map(|a| match a {
                        TypeArg::Type(t) => TypeArg::Type(go(t)),
                        TypeArg::Size(d) => TypeArg::Size(self.dim(d)),
                    })
                    .collect();
                TypeExp::Named(q.clone(), args, *s)
            }
            TypeExp::Array(d, inner, s) => TypeExp::Array(self.dim(d), Box::new(go(inner)), *s),
            TypeExp::Tuple(ts, s) => TypeExp::Tuple(ts.iter().map(go).collect(), *s),
            TypeExp::Record(fs, s) => {
                TypeExp::Record(fs.iter().map(|(n, t)| (n.clone(), go(t))).collect(), *s)
            }
            TypeExp::Arrow(n, a, b, s) => {
                TypeExp::Arrow(n.clone(), Box::new(go(a)), Box::new(go(b)), *s)
            }
            TypeExp::Unique(inner, s) => TypeExp::Unique(Box::new(go(inner)), *s),
            TypeExp::Sum(cs, s) => TypeExp::Sum(
                cs.iter()
                    .map(|(c, ts)| (c.clone(), ts.iter().map(go).collect()))
                    .collect(),
                *s,
            ),
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
                TypeExp::Exists(ns.clone(), Box::new(inner.ty(body)), *s)
            }
        }
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
            Dim::Exp(e) if self.sizes.iter().any(|(n, _)| mentions(e, n)) => Dim::Any,
            _ => d.clone(),
        }
    }
}

/// Whether `e` mentions the variable `n`.
fn mentions(e: &Expr, n: &str) -> bool {
    matches!(&e.kind, ExprKind::Var(q) if q.qual.is_none() && &*q.name == n)
        || crate::syntax::children(e)
            .into_iter()
            .any(|c| mentions(c, n))
}
