//! Type expressions as types (sizes checked for their type only), and
//! patterns: their types and the names they bind.

use super::*;

impl Infer<'_> {
    // ---- type expressions ---------------------------------------------

    pub fn convert(&mut self, te: &TypeExp) -> Result<Type> {
        Ok(match te {
            TypeExp::Prim(p, _) => Type::prim(*p),
            TypeExp::Named(q, args, span) => {
                if q.is_local() && args.is_empty() {
                    if let Some((_, t)) =
                        self.type_params.iter().rev().find(|(n, _)| **n == *q.name)
                    {
                        return Ok(t.clone());
                    }
                    if let Some(p) = PrimType::from_name(&q.name) {
                        return Ok(Type::prim(p));
                    }
                }
                let Some(abbrev) = self.globals.lookup_type(q) else {
                    return Err(Diagnostic::ty(format!("Unknown type \"{q}\""), *span)
                        .with_label("not defined"));
                };
                let (tparams, sizes) = abbrev.param_names();
                let (targs, _) = crate::env::split_args(args);
                if tparams.len() != targs.len() {
                    return Err(Diagnostic::ty(
                        format!(
                            "type `{q}` takes {} type argument{}, given {}",
                            tparams.len(),
                            if tparams.len() == 1 { "" } else { "s" },
                            targs.len()
                        ),
                        *span,
                    ));
                }
                let mut converted = Vec::new();
                for a in targs {
                    converted.push(self.convert(a)?);
                }
                for a in args {
                    if let TypeArg::Size(d) = a {
                        self.size(d, *span)?;
                    }
                }
                if let Some(a) = abbrev.opaque(self.transparent) {
                    self.saw_abstract = true;
                    return Ok(Type::scalar(Base::Abstract(a.clone(), converted)));
                }
                let Some(body) = &abbrev.ty else {
                    return Err(Diagnostic::internal(
                        format!("the type `{q}` is abstract and hides nothing"),
                        *span,
                    ));
                };
                let saved = self.type_params.len();
                for (n, t) in tparams.into_iter().zip(converted) {
                    self.type_params.push((n.clone(), t));
                }
                // The abbreviation's size parameters are names in its sizes.
                let saved_locals = self.locals.len();
                for n in sizes {
                    self.bind_size(n.clone());
                }
                let r = self.convert(body);
                self.locals.truncate(saved_locals);
                self.type_params.truncate(saved);
                r?
            }
            TypeExp::Array(d, t, span) => {
                self.size(d, *span)?;
                self.convert(t)?.array(1)
            }
            TypeExp::Tuple(ts, _) => {
                let mut parts = Vec::new();
                for t in ts {
                    parts.push(self.convert(t)?);
                }
                if parts.len() == 1 {
                    parts.pop().expect("one part")
                } else {
                    Type::scalar(Base::Tuple(parts))
                }
            }
            TypeExp::Record(fs, span) => {
                let mut fields: Vec<(Ident, Type)> = Vec::new();
                for (n, t) in fs {
                    if fields.iter().any(|(m, _)| m == n) {
                        return Err(Diagnostic::ty(
                            format!("Duplicate field `{n}` in record type"),
                            *span,
                        ));
                    }
                    let t = self.convert(t)?;
                    fields.push((n.clone(), t));
                }
                Type::record(fields)
            }
            TypeExp::Arrow(_, a, b, _) => Type::arrow(self.convert(a)?, self.convert(b)?),
            TypeExp::Unique(t, _) => self.convert(t)?,
            TypeExp::Sum(cs, span) => {
                if cs.len() > MAX_CONSTRUCTORS {
                    return Err(Diagnostic::ty(
                        format!(
                            "a sum type may have at most {MAX_CONSTRUCTORS} constructors; this one has {}",
                            cs.len()
                        ),
                        *span,
                    )
                    .with_help("group constructors under others with payloads"));
                }
                let mut constrs: Vec<(Ident, Vec<Type>)> = Vec::new();
                for (c, ts) in cs {
                    if constrs.iter().any(|(d, _)| d == c) {
                        return Err(Diagnostic::ty(
                            format!("constructor `#{c}` appears twice"),
                            *span,
                        ));
                    }
                    let mut payload = Vec::new();
                    for t in ts {
                        payload.push(self.convert(t)?);
                    }
                    constrs.push((c.clone(), payload));
                }
                Type::sum(constrs)
            }
            TypeExp::Exists(ns, t, _) => {
                let saved = self.locals.len();
                for n in ns {
                    self.bind_size(n.clone());
                }
                let r = self.convert(t);
                self.locals.truncate(saved);
                r?
            }
        })
    }

    /// Sizes are checked at run time, but an array literal given a type
    /// with constant sizes (`def v: vec = [1, 2]` with `type vec = [3]f64`)
    /// can be checked here, as Futhark does.
    pub fn literal_sizes(&self, te: &TypeExp, e: &Expr) -> Result<()> {
        use crate::elab::Abbreviations;
        let shadowed: Vec<Ident> = self.type_params.iter().map(|(n, _)| n.clone()).collect();
        check_literal_sizes(&self.globals.expand(te, &shadowed), e)
    }

    /// Checks a size `[e]` (in a type at `span`): an `i64` (sizes are not
    /// part of types; they are checked at run time). A size named by a
    /// variable makes it an `i64` (`def f n (xs: [n]i32)`).
    pub(super) fn size(&mut self, d: &Dim, span: Span) -> Result<()> {
        if let Dim::Named(n) = d
            && let Some(t) = self.lookup_local(n)
        {
            return self.expect_size(n, &t, span);
        }
        let Dim::Exp(e) = d else { return Ok(()) };
        // No implicit maps in a size: it is a scalar.
        let automap = std::mem::replace(&mut self.automap, false);
        let t = self.infer(e);
        self.automap = automap;
        self.expect(
            &Type::prim(PrimType::I64),
            &t?,
            e.span,
            "a size must be an `i64`",
        )
    }

    // ---- patterns -------------------------------------------------------

    /// A fresh type with the structure the pattern demands.
    pub fn pat_type(&mut self, p: &Pat) -> Result<Type> {
        Ok(match p {
            Pat::Id(..) | Pat::Wildcard(_) => self.full_var(),
            Pat::Tuple(ps, _) => {
                let mut ts = Vec::new();
                for p in ps {
                    ts.push(self.pat_type(p)?);
                }
                Type::scalar(Base::Tuple(ts))
            }
            Pat::Record(fs, _) => {
                let mut fields = Vec::new();
                for (n, p) in fs {
                    let t = match p {
                        Some(p) => self.pat_type(p)?,
                        None => self.full_var(),
                    };
                    fields.push((n.clone(), t));
                }
                Type::record(fields)
            }
            Pat::Ascribed(inner, te, span) => {
                let t = self.convert(te)?;
                let it = self.pat_type(inner)?;
                self.expect(
                    &t,
                    &it,
                    *span,
                    "the pattern does not fit its type annotation",
                )?;
                t
            }
            Pat::Literal(l, neg, span) => self.literal_type(l, *neg, *span),
            Pat::Constr(c, ps, _) => {
                let mut payload = Vec::new();
                for p in ps {
                    payload.push(self.pat_type(p)?);
                }
                self.class_var(Class::Constrs(vec![(c.clone(), payload)]))
            }
        })
    }

    /// The payload types of constructor `c` in a type known to have it.
    pub(super) fn payload_of(&self, t: &Type, c: &Ident) -> Vec<Type> {
        let constrs = match self.subst.resolve(&t.base) {
            Base::Sum(cs) => cs,
            Base::Var(v) => match self.subst.class_of(v) {
                Class::Constrs(cs) => cs,
                _ => Vec::new(),
            },
            _ => Vec::new(),
        };
        constrs
            .into_iter()
            .find(|(d, _)| d == c)
            .map(|(_, ts)| ts)
            .expect("unification with the pattern's type added the constructor")
    }

    pub(super) fn literal_type(&mut self, l: &Literal, negative: bool, span: Span) -> Type {
        let t = match l {
            Literal::Int {
                suffix: Some(p), ..
            }
            | Literal::Float {
                suffix: Some(p), ..
            } => Type::prim(*p),
            Literal::Int { suffix: None, .. } => self.class_var(Class::Num),
            Literal::Float { suffix: None, .. } => self.class_var(Class::Float),
            Literal::Bool(_) => Type::prim(PrimType::Bool),
        };
        let magnitude = match l {
            Literal::Int { value, .. } => Some(Magnitude::Int(*value)),
            Literal::Float { value, .. } => Some(Magnitude::Float(*value)),
            Literal::Bool(_) => None,
        };
        if let Some(magnitude) = magnitude {
            self.num_literals.push(NumLiteral {
                magnitude,
                negative,
                suffixed: matches!(
                    l,
                    Literal::Int {
                        suffix: Some(_),
                        ..
                    } | Literal::Float {
                        suffix: Some(_),
                        ..
                    }
                ),
                span,
                ty: t.clone(),
            });
        }
        t
    }

    /// Binds the variables of `p`, which matches a value of type `t`, and
    /// must match every such value (a binding, not a `case`).
    pub fn bind_pat(&mut self, p: &Pat, t: &Type) -> Result<()> {
        if may_refute(p) {
            self.pattern_checks.push(PatternCheck {
                pats: vec![p.clone()],
                ty: t.clone(),
                span: p.span(),
                is_match: false,
            });
        }
        self.bind_pat_in(p, t)
    }

    pub(super) fn bind_pat_in(&mut self, p: &Pat, t: &Type) -> Result<()> {
        match p {
            Pat::Id(x, span) => {
                Self::check_bindable(x, *span)?;
                self.bind(x.clone(), t.clone());
                Ok(())
            }
            Pat::Wildcard(_) => Ok(()),
            Pat::Tuple(..) | Pat::Record(..) => {
                let shape = self.pat_type(p)?;
                self.expect(&shape, t, p.span(), "the value does not fit this pattern")?;
                match (p, &self.subst.apply(&shape).base) {
                    (Pat::Tuple(ps, _), Base::Tuple(ts)) => {
                        for (p, t) in ps.iter().zip(ts.clone()) {
                            self.bind_pat_in(p, &t)?;
                        }
                    }
                    (Pat::Record(fs, _), Base::Record(ts)) => {
                        for (n, p) in fs {
                            let ft = ts
                                .iter()
                                .find(|(m, _)| m == n)
                                .map(|(_, t)| t.clone())
                                .expect("the record type was built from these fields");
                            match p {
                                Some(p) => self.bind_pat_in(p, &ft)?,
                                None => self.bind(n.clone(), ft),
                            }
                        }
                    }
                    _ => unreachable!("pat_type builds a tuple or record for these patterns"),
                }
                Ok(())
            }
            Pat::Ascribed(inner, te, span) => {
                let at = self.convert(te)?;
                self.expect(&at, t, *span, "the value does not fit the type annotation")?;
                self.bind_pat_in(inner, t)
            }
            Pat::Literal(_, _, span) => {
                let shape = self.pat_type(p)?;
                self.expect(&shape, t, *span, "the value does not fit this pattern")
            }
            Pat::Constr(c, ps, span) => {
                let shape = self.pat_type(p)?;
                self.expect(&shape, t, *span, "the value does not fit this pattern")?;
                let payload = self.payload_of(&shape, c);
                for (p, t) in ps.iter().zip(payload) {
                    self.bind_pat_in(p, &t)?;
                }
                Ok(())
            }
        }
    }
}
