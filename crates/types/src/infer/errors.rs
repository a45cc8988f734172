//! The checker's type errors: what a failed constraint says, by the
//! origin of the constraint (an argument, an annotation, a branch), with
//! the classes of the type variables it shows.

use super::*;

impl Infer<'_> {
    /// A note saying what the constrained type variables a message shows
    /// stand for (`a` is a numeric type), as `:type` does.
    pub(super) fn where_classes(&self, d: Diagnostic, namer: &Namer) -> Diagnostic {
        let mut named = Namer::default();
        let parts: Vec<String> = namer
            .tyvars()
            .iter()
            .filter_map(|v| match self.subst.state(*v) {
                VarState::Unbound {
                    class, rigid: None, ..
                } if !matches!(class, Class::Any | Class::Fields(_) | Class::Constrs(_)) => {
                    Some(format!("`{}` is {}", named.tyvar(*v), class.describe()))
                }
                _ => {
                    named.tyvar(*v);
                    None
                }
            })
            .collect();
        if parts.is_empty() {
            d
        } else {
            d.with_note(format!("where {}", parts.join(", ")))
        }
    }

    /// The diagnostic for a contradiction in the constraints of `origin`.
    pub fn origin_error(&self, o: usize) -> Diagnostic {
        let Some(origin) = self.origins.get(o) else {
            return Diagnostic::new(
                urchin_base::diag::Phase::Type,
                "the ranks of this definition are inconsistent",
            );
        };
        let mut namer = Namer::default();
        match &origin.kind {
            OriginKind::App { head, param, arg } => {
                let p = self.show_with(param, &mut namer);
                let a = self.show_with(arg, &mut namer);
                let d =
                    Diagnostic::ty(format!("Cannot apply {head} to this argument"), origin.span)
                        .with_label(format!("this has type `{a}`"))
                        .with_note(format!("{head} expects an argument of type `{p}`"));
                self.where_classes(d, &namer).with_help(
                    "no number of implicit `map`s or `rep`s makes these fit; check the argument, \
                         or write the `map`s you mean explicitly",
                )
            }
            OriginKind::Expect {
                expected,
                found,
                what,
            } => {
                let e = self.show_with(expected, &mut namer);
                let f = self.show_with(found, &mut namer);
                let d = Diagnostic::ty(format!("type mismatch: {what}"), origin.span)
                    .with_label(format!("this has type `{f}`"))
                    .with_note(format!("expected `{e}`"));
                self.where_classes(d, &namer)
            }
            OriginKind::ArrayOfFunctions(b) => crate::lifted::array_of_lifted(
                &self.show(&Type::scalar(b.clone())),
                Liftedness::Lifted,
                origin.span,
            )
            .with_help(
                "apply the function to all its arguments, or use an explicit `map` over a lambda",
            ),
            OriginKind::ArrayOfLifted(name) => {
                crate::lifted::array_of_lifted(name, Liftedness::Lifted, origin.span).with_note(
                    format!("`{name}` is declared `type^`: it may be a function type"),
                )
            }
            OriginKind::Note(msg) => Diagnostic::ty(msg.clone(), origin.span),
        }
    }

    pub fn mismatch_error(&self, m: Mismatch, o: usize) -> Diagnostic {
        let mut base = self.origin_error(o);
        if let Some(d) = self.mismatch_detail(o) {
            base = base.with_note(d);
        }
        // Implicit `map`s and `rep`s change ranks, not what elements are:
        // for types that differ in that, they are beside the point.
        if let OriginKind::App { head, param, arg } = &self.origins[o].kind {
            let prim = |t: &Type| match self.subst.apply(t).base {
                Base::Prim(p) if p != PrimType::Bool => Some(p),
                _ => None,
            };
            // `f64.sqrt -1` subtracts, in Futhark as here: a function
            // on the left of `-` is almost always that.
            let subtracted_function = *head == describe_head(&Head::Op(&BinOpKind::Sub))
                && matches!(self.subst.apply(arg).base, Base::Arrow(..));
            base.help = Some(match (prim(param), prim(arg)) {
                _ if subtracted_function => "`f -1` subtracts 1 from the function `f`, as in Futhark; to apply a function to a negative number, put the number in parentheses: `f (-1)`".into(),
                (Some(p), Some(a)) => format!(
                    "convert the argument to `{p}`: `{p}.{a} (...)`, or check the function it is passed to"
                ),
                _ => "check the argument, or the function it is passed to".into(),
            });
        }
        match m {
            Mismatch::Shape => base,
            Mismatch::Occurs => base.with_note("Occurs check: this would need an infinite type"),
            Mismatch::Rigid(n) => base.with_note(format!(
                "the type parameter `{n}` stands for any type and cannot be assumed to be more specific"
            )),
            Mismatch::NoEquality(n) => base.with_note(format!(
                "the type parameter `{n}` stands for any type, and equality is not defined for every type (not for functions)"
            )),
            Mismatch::Class(c, b) => {
                // A value known only by its constructors is a sum type.
                let b = match b {
                    Base::Var(v) => match self.subst.class_of(v) {
                        Class::Constrs(cs) => Base::Sum(cs),
                        _ => b,
                    },
                    b => b,
                };
                // Futhark's words for a value used as a record (`s.x`).
                if let Base::Record(fs) = &b {
                    let names: Vec<String> = fs.iter().map(|(n, _)| format!("`{n}`")).collect();
                    return base.with_note(format!(
                        "Cannot unify {} with type that must be a record (one with the field{} {})",
                        c.describe(),
                        if names.len() == 1 { "" } else { "s" },
                        names.join(", ")
                    ));
                }
                let shown = self.show(&Type::scalar(b.clone()));
                let what = if matches!(b, Base::Sum(_)) { "the sum type " } else { "" };
                base.with_note(format!("{what}`{shown}` is not {}", c.describe()))
            }
            Mismatch::MissingField(f) => base.with_note(format!("there is no field `{f}`")),
            Mismatch::MissingConstr(c) => base.with_note(format!(
                "the constructor `#{c}` is not part of the other type, or has another number of payload values"
            )),
        }
    }

    /// What differs between two record or sum types that `origin` says
    /// must be one, in Futhark's words: their unshared fields or
    /// constructors, or constructors whose payloads differ in arity.
    pub(super) fn mismatch_detail(&self, o: usize) -> Option<String> {
        let (a, b) = match &self.origins.get(o)?.kind {
            OriginKind::App { param, arg, .. } => (param, arg),
            OriginKind::Expect {
                expected, found, ..
            } => (expected, found),
            _ => return None,
        };
        let fields = |t: &Type| match self.subst.resolve(&t.base) {
            Base::Record(fs) => Some((false, fs.into_iter().map(|(n, t)| (n, vec![t])).collect())),
            Base::Sum(cs) => Some((true, cs)),
            Base::Var(v) => match self.subst.class_of(v) {
                Class::Constrs(cs) => Some((true, cs)),
                _ => None,
            },
            _ => None,
        };
        if let Some(d) = self.tuple_field_detail(a, b) {
            return Some(d);
        }
        let (sum, fa): (bool, Vec<(Ident, Vec<Type>)>) = fields(a)?;
        let (sum_b, fb) = fields(b)?;
        if sum != sum_b {
            return None;
        }
        let prefix = if sum { "#" } else { "" };
        // A sum type known only by some constructors may have more: only
        // those it has that a known one lacks are certainly unshared.
        let open = |t: &Type| matches!(self.subst.resolve(&t.base), Base::Var(_));
        let extra = |xs: &[(Ident, Vec<Type>)], ys: &[(Ident, Vec<Type>)]| {
            xs.iter()
                .filter(|(n, _)| !ys.iter().any(|(m, _)| m == n))
                .map(|(n, _)| format!("{prefix}{n}"))
                .collect::<Vec<_>>()
        };
        let mut unshared = match (open(a), open(b)) {
            (false, false) => [extra(&fa, &fb), extra(&fb, &fa)].concat(),
            (true, false) => extra(&fa, &fb),
            (false, true) => extra(&fb, &fa),
            (true, true) => Vec::new(),
        };
        unshared.sort();
        if !unshared.is_empty() {
            return Some(match sum {
                true => format!("Unshared constructors: {}.", unshared.join(", ")),
                false => format!("unshared fields: {}.", unshared.join(", ")),
            });
        }
        let (c, x, y) = fa.iter().find_map(|(n, ts)| {
            let us = &fb.iter().find(|(m, _)| m == n)?.1;
            (sum && us.len() != ts.len()).then_some((n, ts.len(), us.len()))
        })?;
        Some(format!(
            "the payloads of `#{c}` differ in arity: {x} and {y} values"
        ))
    }

    /// The first field of two tuples of one length whose known types
    /// differ, as `field 0 is \`i32\` here and \`i8\` there`.
    pub(super) fn tuple_field_detail(&self, a: &Type, b: &Type) -> Option<String> {
        let (Base::Tuple(xs), Base::Tuple(ys)) =
            (self.subst.resolve(&a.base), self.subst.resolve(&b.base))
        else {
            return None;
        };
        if xs.len() != ys.len() || a.rank != b.rank {
            return None;
        }
        let known = |t: &Type| matches!(self.subst.resolve(&t.base), Base::Prim(_));
        let (i, (x, y)) = xs
            .iter()
            .zip(&ys)
            .enumerate()
            .find(|(_, (x, y))| known(x) && known(y) && self.show(x) != self.show(y))?;
        Some(format!(
            "field {i} of the tuple differs: `{}` against `{}`",
            self.show(x),
            self.show(y)
        ))
    }
}
