//! Application spines (AUTOMAP): rule C-APP's rank variables per
//! argument, and the exact rules of explicit `map`/`mapN`, `rep`, the AD
//! operators and function arguments.

use super::*;

impl Infer<'_> {
    // ---- application spines (AUTOMAP) -----------------------------------

    pub(super) fn arg_type(&mut self, a: Arg) -> Result<Type> {
        match a {
            Arg::Expr(e) => self.infer(e),
            Arg::Synth(i, _) => Ok(self.synth[i].clone()),
        }
    }

    pub(super) fn arg_span(a: Arg) -> Span {
        match a {
            Arg::Expr(e) => e.span,
            Arg::Synth(_, s) => s,
        }
    }

    /// Which explicit map/rep the head is, if it is one and is applied to
    /// enough arguments to be typed by C-MAP / C-REP.
    pub(super) fn explicit_map(&self, head: &Head, nargs: usize) -> Option<Intrinsic> {
        let Head::Expr(e) = head else { return None };
        let ExprKind::Var(q) = &e.kind else {
            return None;
        };
        if q.is_local() && !self.forced.contains(&e.id) && self.lookup_local(&q.name).is_some() {
            return None;
        }
        match self.lookup_global(q, e.id)?.kind {
            GlobalKind::Intrinsic(Intrinsic::Map(n)) if nargs > n => Some(Intrinsic::Map(n)),
            GlobalKind::Intrinsic(Intrinsic::Rep) if nargs >= 1 => Some(Intrinsic::Rep),
            _ => None,
        }
    }

    /// Whether the head is an AD operator (`jvp`, `vjp`, ...): like `map`,
    /// a second-order construct applied exactly; AUTOMAP works inside its
    /// function argument, never around it.
    pub(super) fn exact_head(&self, head: &Head) -> bool {
        let Head::Expr(e) = head else { return false };
        let ExprKind::Var(q) = &e.kind else {
            return false;
        };
        if q.is_local() && self.lookup_local(&q.name).is_some() {
            return false;
        }
        matches!(
            self.lookup_global(q, e.id).map(|g| g.kind),
            Some(GlobalKind::Intrinsic(
                Intrinsic::Jvp
                    | Intrinsic::Jvp2
                    | Intrinsic::Vjp
                    | Intrinsic::Vjp2
                    | Intrinsic::WithVjp
            ))
        )
    }

    pub(super) fn infer_spine(
        &mut self,
        key: SpineKey,
        head: Head,
        args: &[Arg],
        span: Span,
    ) -> Result<Type> {
        if let Some(i) = self.explicit_map(&head, args.len()) {
            return self.infer_explicit_map(key, &head, i, args, span);
        }
        let automap = self.automap && !self.exact_head(&head);
        let desc = describe_head(&head);
        let head_t = match head {
            Head::Expr(e) => self.infer(e)?,
            Head::Op(op) => match self.user_operator(op) {
                Some(q) => self.named_head(&q, key.0, span)?,
                None => self.operator_instance(op, key.0),
            },
            Head::Backtick(q) => self.named_head(q, key.0, span)?,
            Head::Neg => {
                let s = intrinsics::negation();
                self.instantiate(&s, key.0)
            }
            Head::Not => {
                let t = self.class_var(Class::IntOrBool);
                Type::arrow(t.clone(), t)
            }
            Head::Proj(f) => {
                let x = self.full_var();
                let ft = self.project(&x, f, span)?;
                Type::arrow(x, ft)
            }
        };
        // The parameters of an applied lambda take their types from the
        // arguments: `(\x y -> x + y) xs y` maps inside, not around.
        let exact = match head {
            Head::Expr(Expr {
                kind: ExprKind::Lambda(ps, _, _),
                ..
            }) => ps.iter().take_while(|p| !has_ascription(p)).count(),
            _ => 0,
        };
        let mut f = head_t;
        let mut frame: Vec<RankVar> = Vec::new();
        let mut apps = Vec::new();
        for (i, &arg) in args.iter().enumerate() {
            let (p, r) = self.expect_function(&f, &desc, i, args.len(), span)?;
            let at = self.arg_type(arg)?;
            let aspan = Self::arg_span(arg);
            let o = self.origin(
                aspan,
                OriginKind::App {
                    head: desc.clone(),
                    param: p.clone(),
                    arg: at.clone(),
                },
            );
            if automap {
                let (app, m, rr) = self.ranks.add_app(frame.clone(), o);
                self.app_spans.push(aspan);
                if i < exact {
                    self.ranks.equate(&Rank::var(m), &Rank::zero(), o);
                    self.ranks.equate(&Rank::var(rr), &Rank::zero(), o);
                }
                let lhs = Rank::var(m)
                    .plus(&Rank {
                        konst: 0,
                        vars: frame.clone(),
                    })
                    .plus(&p.rank);
                let rhs = Rank::var(rr).plus(&at.rank);
                self.ranks.equate(&lhs, &rhs, o);
                if let Err(m) = self.subst.unify_base(&mut self.ranks, &p.base, &at.base, o) {
                    return Err(self.mismatch_error(m, o));
                }
                // A function argument cannot be mapped over (M = 0); reps
                // of it at the spine's own map levels are fused away and
                // never build an array of functions.
                let ao = self.origin(aspan, OriginKind::ArrayOfFunctions(p.base.clone()));
                self.arrow_checks.push((p.base.clone(), Rank::var(m), ao));
                // Nor can a parameter's array type take a function as its
                // element (`flatten f`): no reading builds an array of them.
                self.arrow_checks.push((p.base.clone(), p.rank.clone(), ao));
                frame.push(m);
                apps.push(app);
            } else {
                self.unify_at(&p, &at, o)?;
            }
            f = r;
        }
        let result = Type::new(
            f.rank.plus(&Rank {
                konst: 0,
                vars: frame,
            }),
            f.base,
        );
        let ro = self.origin(span, OriginKind::ArrayOfFunctions(result.base.clone()));
        self.arrow_checks
            .push((result.base.clone(), result.rank.clone(), ro));
        self.spines.push((key, apps));
        Ok(result)
    }

    /// Splits a function type into parameter and result, making it one if
    /// it is still a variable. `argno` arguments of `given` are applied
    /// already.
    pub(super) fn expect_function(
        &mut self,
        f: &Type,
        desc: &str,
        argno: usize,
        given: usize,
        span: Span,
    ) -> Result<(Type, Type)> {
        match self.subst.resolve_ref(&f.base) {
            Base::Arrow(p, r) => Ok(((**p).clone(), (**r).clone())),
            // A literal or an operand of arithmetic: its class rules out
            // a function, and its type variable means nothing to a user.
            Base::Var(v) if !matches!(self.subst.class_of(*v), Class::Any | Class::Fields(_)) => {
                let class = self.subst.class_of(*v).describe();
                let shown = self.show(f);
                let what = if shown.starts_with('[') {
                    let elem = shown.trim_start_matches("[]");
                    format!("has type `{shown}`, where `{elem}` is {class}")
                } else {
                    format!("has {class}")
                };
                Err(self.not_a_function(desc, argno, given, span, &what))
            }
            Base::Var(_) => {
                let p = self.full_var();
                let r = self.full_var();
                let shape = Type::arrow(p.clone(), r.clone());
                self.expect(
                    &shape,
                    f,
                    span,
                    &format!("{desc} is applied to an argument but is not known to be a function"),
                )?;
                Ok((p, r))
            }
            _ => {
                let shown = format!("has type `{}`", self.show(f));
                Err(self.not_a_function(desc, argno, given, span, &shown))
            }
        }
    }

    /// `desc` (of type `what`) applied to `given` arguments, more than the
    /// `argno` it takes.
    pub(super) fn not_a_function(
        &self,
        desc: &str,
        argno: usize,
        given: usize,
        span: Span,
        what: &str,
    ) -> Diagnostic {
        let message = if argno == 0 {
            format!("{desc} is not a function, so it cannot be applied to an argument")
        } else {
            format!("{desc} is applied to {given} arguments, but takes {argno}")
        };
        if argno > 0 {
            let s = if argno == 1 { "" } else { "s" };
            let d = Diagnostic::ty(message, span).with_label(format!(
                "after {argno} argument{s} the result {what}: not a function"
            ));
            // Futhark's `unflatten` once took the sizes as arguments.
            return match desc.trim_matches('"') {
                "unflatten" | "unflatten_3d" => d.with_help(
                    "it takes only the array, whose size gives the shape: \
                     `unflatten (xs :> [2 * 3]i32) : [2][3]i32`",
                ),
                _ => d,
            };
        }
        let help = if what.starts_with("has type `[") {
            "to index an array, write `xs[i]`"
        } else {
            "write an operator between the two, or parentheses around an argument that is itself an application"
        };
        Diagnostic::ty(message, span)
            .with_label(format!("{desc} {what}"))
            .with_help(help)
    }

    /// C-MAP (`mapN f a1 .. aN`: each `ai : []pi` exactly) and C-REP.
    pub(super) fn infer_explicit_map(
        &mut self,
        key: SpineKey,
        head: &Head,
        which: Intrinsic,
        args: &[Arg],
        span: Span,
    ) -> Result<Type> {
        let Head::Expr(h) = head else {
            unreachable!("explicit_map only accepts expression heads");
        };
        // The head's own type (its plain scheme), for the record.
        let ht = self.infer(h)?;
        let result = match which {
            Intrinsic::Rep => {
                if args.len() > 1 {
                    return Err(Diagnostic::ty(
                        "`rep` is applied to too many arguments",
                        span,
                    ));
                }
                let t = self.arg_type(args[0])?;
                let r = t.array(1);
                let (p, res) = self.expect_function(&ht, "rep", 0, args.len(), span)?;
                let o = self.origin(span, OriginKind::Note("internal: rep".into()));
                self.unify_at(&p, &t, o)?;
                self.unify_at(&res, &r, o)?;
                r
            }
            Intrinsic::Map(n) => {
                if args.len() > n + 1 {
                    let arrays = |k: usize| {
                        if k == 1 {
                            "an array".to_string()
                        } else {
                            format!("{k} arrays")
                        }
                    };
                    let k = args.len() - 1;
                    return Err(Diagnostic::ty(
                        format!(
                            "{} is applied to {} arguments, but takes {}",
                            describe_head(head),
                            args.len(),
                            n + 1
                        ),
                        span,
                    )
                    .with_label(format!(
                        "{} takes a function and {}",
                        describe_head(head),
                        arrays(n)
                    ))
                    .with_help(format!(
                        "to map a function of {k} arguments over {}, write `map{k}`",
                        arrays(k)
                    )));
                }
                let ft = self.arg_type(args[0])?;
                let params: Vec<Type> = (0..n).map(|_| self.full_var()).collect();
                let res = self.full_var();
                let fshape = params
                    .iter()
                    .rev()
                    .fold(res.clone(), |acc, p| Type::arrow(p.clone(), acc));
                self.expect(
                    &fshape,
                    &ft,
                    Self::arg_span(args[0]),
                    &format!(
                        "{} needs a function of {n} argument{}",
                        describe_head(head),
                        if n == 1 { "" } else { "s" }
                    ),
                )?;
                for (i, p) in params.iter().enumerate() {
                    let at = self.arg_type(args[i + 1])?;
                    self.expect(
                        &p.array(1),
                        &at,
                        Self::arg_span(args[i + 1]),
                        "an explicit `map` needs an array of the function's parameter type",
                    )?;
                }
                let r = res.array(1);
                let plain = Type::arrow(
                    fshape,
                    params
                        .iter()
                        .rev()
                        .fold(r.clone(), |acc, p| Type::arrow(p.array(1), acc)),
                );
                let po = self.origin(
                    span,
                    OriginKind::Note(format!("{} has the wrong type", describe_head(head))),
                );
                self.unify_at(&ht, &plain, po)?;
                let o = self.origin(span, OriginKind::ArrayOfFunctions(r.base.clone()));
                self.arrow_checks.push((r.base.clone(), r.rank.clone(), o));
                r
            }
            _ => unreachable!("explicit_map returns Map or Rep"),
        };
        self.spines.push((key, Vec::new()));
        Ok(result)
    }
}
