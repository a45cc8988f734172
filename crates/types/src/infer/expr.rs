//! Constraints of expressions other than applications: literals, `let`,
//! `if`, `match`, loops, local functions, indexing and updates.

use super::*;

impl Infer<'_> {
    // ---- expressions --------------------------------------------------

    /// `t`, unless it has more than [`MAX_TYPE_SIZE`] parts. Tuples and
    /// records are the only way a type grows past the size of the text:
    /// `let x = (x, x)` doubles it.
    pub(super) fn small_enough(&self, t: Type, span: Span) -> Result<Type> {
        if self.subst.size_within(&t, MAX_TYPE_SIZE) {
            return Ok(t);
        }
        Err(Diagnostic::new(
            urchin_base::diag::Phase::Limit,
            "this value's type is too large",
        )
        .at(span)
        .with_label(format!("its type has more than {MAX_TYPE_SIZE} parts"))
        .with_help("a tuple or record of a tuple or record doubles its type: use an array"))
    }

    pub fn infer(&mut self, e: &Expr) -> Result<Type> {
        urchin_base::stack::deep(|| self.infer_inner(e))
    }

    pub fn infer_inner(&mut self, e: &Expr) -> Result<Type> {
        if self.ranks.interrupt.requested() {
            return Err(Diagnostic::new(urchin_base::diag::Phase::Other, "interrupted").at(e.span));
        }
        let t = self.infer_kind(e)?;
        self.record(e.id, &t);
        Ok(t)
    }

    pub(super) fn infer_kind(&mut self, e: &Expr) -> Result<Type> {
        match &e.kind {
            ExprKind::Literal(l) => Ok(match self.negated_literals.get(&e.id).copied() {
                Some(span) => self.literal_type(l, true, span),
                None => self.literal_type(l, false, e.span),
            }),
            ExprKind::Var(q) => {
                if q.is_local() && !self.forced.contains(&e.id) {
                    if let Some(t) = self.instantiate_local(&q.name, e.id) {
                        if self.is_recursive(&q.name) {
                            self.recursive_uses.push(e.id);
                        }
                        return Ok(t);
                    }
                }
                self.global_use(q, e.id, e.span)
            }
            ExprKind::OpValue(op) => match self.user_operator(op) {
                Some(q) => self.named_head(&q, e.id, e.span),
                None => Ok(self.operator_instance(op, e.id)),
            },
            ExprKind::OpSection { op, left, right } => {
                let y = self.full_var();
                let synth = self.push_synth(y.clone());
                let args = match (left, right) {
                    (Some(l), None) => vec![Arg::Expr(l), Arg::Synth(synth, e.span)],
                    (None, Some(r)) => vec![Arg::Synth(synth, e.span), Arg::Expr(r)],
                    _ => {
                        return Err(Diagnostic::ty(
                            "a section needs exactly one operand",
                            e.span,
                        ));
                    }
                };
                let head = match op {
                    BinOpKind::Backtick(q) | BinOpKind::Symbol(q) => Head::Backtick(q),
                    _ => Head::Op(op),
                };
                let r = self.infer_spine((e.id, 0), head, &args, e.span)?;
                Ok(Type::arrow(y, r))
            }
            ExprKind::ProjSection(fields) => {
                let x = self.full_var();
                let mut cur = x.clone();
                for f in fields {
                    cur = self.project(&cur, f, e.span)?;
                }
                Ok(Type::arrow(x, cur))
            }
            ExprKind::ArrayLit(es) => {
                let elem = match es.first() {
                    Some(first) => self.infer(first)?,
                    None => self.full_var(),
                };
                for x in es.iter().skip(1) {
                    let t = self.infer(x)?;
                    self.expect(
                        &elem,
                        &t,
                        x.span,
                        "array elements must all have the same type",
                    )?;
                }
                let t = elem.array(1);
                let o = self.origin(e.span, OriginKind::ArrayOfFunctions(t.base.clone()));
                self.arrow_checks.push((t.base.clone(), t.rank.clone(), o));
                Ok(t)
            }
            ExprKind::Tuple(es) => {
                let mut ts = Vec::new();
                for x in es {
                    ts.push(self.infer(x)?);
                }
                self.small_enough(Type::scalar(Base::Tuple(ts)), e.span)
            }
            ExprKind::Record(fields) => {
                let mut ts: Vec<(Ident, Type)> = Vec::new();
                for (n, x) in fields {
                    let t = self.infer(x)?;
                    if ts.iter().any(|(m, _)| m == n) {
                        return Err(Diagnostic::ty(
                            format!("field `{n}` is given twice"),
                            x.span,
                        ));
                    }
                    ts.push((n.clone(), t));
                }
                self.small_enough(Type::record(ts), e.span)
            }
            ExprKind::Project(..) => {
                let sp = spine::projection(e).expect("a projection");
                let args: Vec<Arg> = sp.args.iter().map(|a| Arg::Expr(a)).collect();
                self.infer_spine((e.id, 0), sp.head, &args, e.span)
            }
            ExprKind::RecordUpdate(r, path, v) => {
                let t = self.infer(r)?;
                let mut cur = t.clone();
                for f in path {
                    cur = self.project(&cur, f, e.span)?;
                }
                let vt = self.infer(v)?;
                self.expect(
                    &cur,
                    &vt,
                    v.span,
                    "the new value must have the field's type",
                )?;
                Ok(t)
            }
            ExprKind::Apply(..) | ExprKind::BinOp(..) | ExprKind::UnOp(..) => {
                if let ExprKind::UnOp(UnOpKind::Neg, x) = &e.kind
                    && matches!(x.kind, ExprKind::Literal(Literal::Int { .. }))
                {
                    self.negated_literals.insert(x.id, e.span);
                }
                match spine::spine_of(e) {
                    Some(sp) => {
                        let args: Vec<Arg> = sp.args.iter().map(|a| Arg::Expr(a)).collect();
                        self.infer_spine((e.id, 0), sp.head, &args, e.span)
                    }
                    None => self.infer_compose(e),
                }
            }
            ExprKind::Lambda(params, ret, body) => {
                let saved = self.locals.len();
                let mut pts = Vec::new();
                for p in params {
                    let t = self.pat_type(p)?;
                    self.bind_pat(p, &t)?;
                    pts.push(t);
                }
                let mut bt = self.infer(body)?;
                if let Some(ret) = ret {
                    let rt = self.convert(ret)?;
                    self.expect(
                        &rt,
                        &bt,
                        body.span,
                        "Function body does not have expected type",
                    )?;
                    bt = rt;
                }
                self.locals.truncate(saved);
                Ok(pts.into_iter().rev().fold(bt, |acc, p| Type::arrow(p, acc)))
            }
            ExprKind::Let(p, v, body) => {
                if let Pat::Ascribed(_, te, _) = p {
                    self.literal_sizes(te, v)?;
                }
                let vt = self.infer(v)?;
                let saved = self.locals.len();
                self.bind_pat(p, &vt)?;
                let bt = self.infer(body)?;
                self.locals.truncate(saved);
                Ok(bt)
            }
            ExprKind::LetFun(f) => {
                Self::check_bindable(&f.name, f.name_span)?;
                let (ft, explicit) = self.infer_local_function(f)?;
                let saved = self.locals.len();
                let vars = self.generalisable(&ft, &explicit);
                if vars.is_empty() {
                    self.bind(f.name.clone(), ft);
                } else {
                    self.locals
                        .push((f.name.clone(), Local::Poly(ft, vars.into())));
                }
                let bt = self.infer(&f.body)?;
                self.locals.truncate(saved);
                Ok(bt)
            }
            ExprKind::If(c, t, f) => {
                let ct = self.infer(c)?;
                self.expect(
                    &Type::prim(PrimType::Bool),
                    &ct,
                    c.span,
                    "the condition must be a `bool`",
                )?;
                let tt = self.infer(t)?;
                let ft = self.infer(f)?;
                self.expect(
                    &tt,
                    &ft,
                    f.span,
                    "both branches of an `if` must have the same type",
                )?;
                self.no_function.push((
                    tt.clone(),
                    e.span,
                    "the result of an `if` may not be of function type",
                ));
                Ok(tt)
            }
            ExprKind::Loop(l) => self.infer_loop(l, e.span),
            ExprKind::Index(a, idxs) => {
                let at = self.infer(a)?;
                self.infer_index(&at, idxs, e.span).map(|(r, _)| r)
            }
            ExprKind::Update(a, idxs, v) => {
                let at = self.infer(a)?;
                self.infer_update(&at, idxs, v, e.span)?;
                Ok(at)
            }
            ExprKind::Ascript(x, te) => {
                self.literal_sizes(te, x)?;
                self.annotated(x, te, "the expression does not have the annotated type")
            }
            ExprKind::Attr(_, x) => self.infer(x),
            ExprKind::Range(r) => self.infer_range(r),
            ExprKind::StringLit(_) => Ok(Type::prim(PrimType::U8).array(1)),
            ExprKind::Hole => Ok(self.full_var()),
            // The module phase has resolved the names inside.
            ExprKind::OpenIn(_, x) => self.infer(x),
            ExprKind::Constr(c, args) => {
                let mut payload = Vec::new();
                for a in args {
                    payload.push(self.infer(a)?);
                }
                Ok(self.class_var(Class::Constrs(vec![(c.clone(), payload)])))
            }
            ExprKind::Match(x, cases) => self.infer_match(x, cases, e.span),
            ExprKind::Coerce(x, te) => self.annotated(
                x,
                te,
                "a size coercion `:>` changes only sizes, not the type",
            ),
            ExprKind::LetSizes(ns, p, v, body) => {
                let vt = self.infer(v)?;
                let saved = self.locals.len();
                let mut used = Vec::new();
                crate::size_names_in_pat(p, false, &mut used);
                for (n, span) in ns {
                    if !used.contains(n) {
                        return Err(Diagnostic::ty(
                            format!("Size [{n}] unused in pattern: `{n}` is the size of no array the pattern binds"),
                            *span,
                        )
                        .with_help(format!(
                            "name it as the size of an array in the pattern: `let [{n}] (xs: [{n}]t) = ...`"
                        )));
                    }
                    self.bind_size(n.clone());
                }
                self.bind_pat(p, &vt)?;
                let bt = self.infer(body)?;
                self.locals.truncate(saved);
                Ok(bt)
            }
        }
    }

    /// `a..b...c` and the other ranges: integers of one type.
    pub(super) fn infer_range(&mut self, r: &Range) -> Result<Type> {
        let t = self.class_var(Class::Int);
        for x in [Some(&r.start), r.second.as_ref(), Some(&r.end)]
            .into_iter()
            .flatten()
        {
            let xt = self.infer(x)?;
            self.expect(
                &t,
                &xt,
                x.span,
                "the bounds of a range must be integers of one type",
            )?;
        }
        Ok(t.array(1))
    }

    /// The name a user definition gives a built-in operator symbol, if one
    /// shadows it (`def (+) ...`, a parameter `(+)`).
    pub(super) fn user_operator(&self, op: &BinOpKind) -> Option<QualName> {
        let q = op.name();
        if matches!(op, BinOpKind::Backtick(_) | BinOpKind::Symbol(_)) {
            return Some(q);
        }
        // (A module-level definition of an operator is made a `Symbol` by
        // the module phase.)
        self.lookup_local(&q.name).is_some().then_some(q)
    }

    /// A name used as a function head (backticks, a user-defined operator):
    /// a local, or else a global, recorded at `node`.
    pub(super) fn named_head(&mut self, q: &QualName, node: NodeId, span: Span) -> Result<Type> {
        if q.is_local() {
            if let Some(t) = self.instantiate_local(&q.name, node) {
                self.local_ops.insert(node);
                return Ok(t);
            }
        }
        self.global_use(q, node, span)
    }

    /// The type of a use (at `node`) of the module-level value `q`.
    fn global_use(&mut self, q: &QualName, node: NodeId, span: Span) -> Result<Type> {
        match self.lookup_global(q, node) {
            Some(g) => {
                self.resolved.push((node, g.kind.clone()));
                self.saw_abstract |= g.rep.is_some();
                Ok(self.instantiate(g.view(self.transparent), node))
            }
            None => Err(self.unknown_name(q, span)),
        }
    }

    /// How many parameters a value of type `t` takes, as far as is known
    /// now (0 for anything that is not a function; there are no arrays of
    /// functions).
    pub fn arrow_arity(&self, t: &Type) -> usize {
        let mut n = 0;
        // (An array of functions is no function: it is an error later.)
        let mut b = (t.rank.konst == 0).then(|| self.subst.resolve_ref(&t.base));
        while let Some(Base::Arrow(_, r)) = b {
            n += 1;
            b = (r.rank.konst == 0).then(|| self.subst.resolve_ref(&r.base));
        }
        n
    }

    /// `x : te` or `x :> te` (sizes are not part of types).
    pub(super) fn annotated(&mut self, x: &Expr, te: &TypeExp, what: &str) -> Result<Type> {
        let t = self.infer(x)?;
        let at = self.convert(te)?;
        self.expect(&at, &t, x.span, what)?;
        Ok(at)
    }

    pub(super) fn infer_match(&mut self, x: &Expr, cases: &[Case], span: Span) -> Result<Type> {
        let xt = self.infer(x)?;
        let mut result: Option<Type> = None;
        for c in cases {
            let saved = self.locals.len();
            self.bind_pat_in(&c.pat, &xt)?;
            let bt = self.infer(&c.body)?;
            self.locals.truncate(saved);
            match &result {
                None => result = Some(bt),
                Some(rt) => self.expect(
                    rt,
                    &bt,
                    c.body.span,
                    "all cases of a `match` must have the same type",
                )?,
            }
        }
        let Some(rt) = result else {
            return Err(Diagnostic::ty("a `match` needs at least one case", span));
        };
        self.no_function.push((
            rt.clone(),
            span,
            "the result of a `match` may not be of function type",
        ));
        self.pattern_checks.push(PatternCheck {
            pats: cases.iter().map(|c| c.pat.clone()).collect(),
            ty: xt,
            span,
            is_match: true,
        });
        Ok(rt)
    }

    pub(super) fn push_synth(&mut self, t: Type) -> usize {
        self.synth.push(t);
        self.synth.len() - 1
    }

    /// `f >-> g` is `\x -> g (f x)`; `g <-< f` likewise.
    pub(super) fn infer_compose(&mut self, e: &Expr) -> Result<Type> {
        let ExprKind::BinOp(op, _, l, r) = &e.kind else {
            unreachable!("spine_of returns None only for compositions");
        };
        let (first, second) = match op {
            BinOpKind::ComposeRight => (l, r),
            _ => (r, l),
        };
        let x = self.full_var();
        let sx = self.push_synth(x.clone());
        let (h1, mut a1) = spine::flatten_head(first);
        let mut args1: Vec<Arg> = a1.drain(..).map(Arg::Expr).collect();
        args1.push(Arg::Synth(sx, first.span));
        let t1 = self.infer_spine((e.id, 0), h1, &args1, first.span)?;
        let s1 = self.push_synth(t1);
        let (h2, mut a2) = spine::flatten_head(second);
        let mut args2: Vec<Arg> = a2.drain(..).map(Arg::Expr).collect();
        args2.push(Arg::Synth(s1, second.span));
        let t2 = self.infer_spine((e.id, 1), h2, &args2, second.span)?;
        Ok(Type::arrow(x, t2))
    }

    /// A local function's type, and the variables its explicit type
    /// parameters stand for.
    pub(super) fn infer_local_function(&mut self, f: &LetFun) -> Result<(Type, Vec<TyVar>)> {
        crate::check_size_params(&f.name, &f.type_params, &f.params, None)?;
        let saved_locals = self.locals.len();
        let saved_tparams = self.type_params.len();
        let mut tparams = Vec::new();
        for tp in &f.type_params {
            match tp {
                TypeParam::Size(n, _) => self.bind_size(n.clone()),
                // A type parameter is an unknown, generalised with the
                // others after the body (`generalisable`).
                TypeParam::Type(n, _, span) => {
                    let t = self.full_var();
                    if let Base::Var(var) = t.base {
                        tparams.push(crate::scope::Param {
                            name: n.clone(),
                            span: *span,
                            var,
                        });
                    }
                    self.type_params.push((n.clone(), t));
                }
            }
        }
        let mut pts = Vec::new();
        for p in &f.params {
            let t = self.pat_type(p)?;
            self.bind_pat(p, &t)?;
            pts.push(t);
        }
        let mut bt = self.infer(&f.value)?;
        if let Some(ret) = &f.ret {
            let rt = self.convert(ret)?;
            self.expect(
                &rt,
                &bt,
                f.value.span,
                "Function body does not have expected type",
            )?;
            bt = rt;
        }
        crate::scope::check(self, &f.name, &tparams)?;
        self.locals.truncate(saved_locals);
        self.type_params.truncate(saved_tparams);
        let t = pts.into_iter().rev().fold(bt, |acc, p| Type::arrow(p, acc));
        Ok((t, tparams.iter().map(|p| p.var).collect()))
    }

    /// The type of field `f` of a value of type `t` (rank 0; AUTOMAP maps
    /// a projection from an array, see [`Head::Proj`]).
    pub(super) fn project(&mut self, t: &Type, f: &Ident, span: Span) -> Result<Type> {
        let o = self.origin(
            span,
            OriginKind::Note(format!(
                "field `{f}` is taken from an array; use `map (.{f})` to take it from every element"
            )),
        );
        self.equate_rank(&t.rank, &Rank::zero(), o);
        match self.subst.resolve_ref(&t.base) {
            Base::Record(fs) => match fs.iter().find(|(n, _)| n == f) {
                Some((_, ft)) => Ok(ft.clone()),
                None => Err(Diagnostic::ty(format!("there is no field `{f}`"), span)
                    .with_label(format!("this has type `{}`", self.show(t)))),
            },
            Base::Tuple(ts) => match f.parse::<usize>().ok().and_then(|i| ts.get(i)) {
                Some(ft) => Ok(ft.clone()),
                None => Err(Diagnostic::ty(format!("there is no component `{f}`"), span)
                    .with_label(format!("this has type `{}`", self.show(t)))),
            },
            Base::Var(_) => {
                let ft = self.full_var();
                let v = self
                    .subst
                    .fresh(Class::Fields(vec![(f.clone(), ft.clone())]), None);
                let o = self.origin(
                    span,
                    OriginKind::Note(format!("the value has no field `{f}`")),
                );
                match self
                    .subst
                    .unify_base(&mut self.ranks, &t.base, &Base::Var(v), o)
                {
                    Ok(()) => Ok(ft),
                    Err(m) => Err(self.mismatch_error(m, o)),
                }
            }
            _ => Err(
                Diagnostic::ty(format!("cannot take field `{f}` of a non-record"), span)
                    .with_label(format!("this has type `{}`", self.show(t))),
            ),
        }
    }

    /// The result type of indexing a value of type `at`, and the number of
    /// dimensions the indices address.
    pub(super) fn infer_index(
        &mut self,
        at: &Type,
        idxs: &[IndexExp],
        span: Span,
    ) -> Result<(Type, usize)> {
        let mut slices = 0;
        for ix in idxs {
            match ix {
                IndexExp::Single(i) => {
                    let it = self.infer(i)?;
                    let int = self.class_var(Class::Int);
                    self.expect(&int, &it, i.span, "indices must be integers")?;
                }
                IndexExp::Slice { start, end, stride } => {
                    slices += 1;
                    for part in [start, end, stride].into_iter().flatten() {
                        let it = self.infer(part)?;
                        let int = self.class_var(Class::Int);
                        self.expect(&int, &it, part.span, "slice bounds must be integers")?;
                    }
                }
            }
        }
        // rank(a) = n + rest, rest >= 0
        let rest = self.ranks.fresh(RankKind::Aux);
        let o = self.origin(
            span,
            OriginKind::Note(format!(
                "{} {} given, but the array has fewer dimensions",
                idxs.len(),
                if idxs.len() == 1 {
                    "index is"
                } else {
                    "indices are"
                }
            )),
        );
        let n = idxs.len() as u32;
        self.equate_rank(&at.rank, &Rank::var(rest).add_const(n), o);
        Ok((
            Type::new(Rank::var(rest).add_const(slices), at.base.clone()),
            idxs.len(),
        ))
    }

    pub(super) fn infer_update(
        &mut self,
        at: &Type,
        idxs: &[IndexExp],
        v: &Expr,
        span: Span,
    ) -> Result<()> {
        let (elem, _) = self.infer_index(at, idxs, span)?;
        let vt = self.infer(v)?;
        self.expect(
            &elem,
            &vt,
            v.span,
            "the new value must have the type of what it replaces",
        )
    }

    pub(super) fn infer_loop(&mut self, l: &LoopExp, span: Span) -> Result<Type> {
        let init_t = match &l.init {
            Some(init) => self.infer(init)?,
            None => self.pattern_as_value(&l.pat)?,
        };
        let pt = self.pat_type(&l.pat)?;
        self.expect(
            &pt,
            &init_t,
            l.init.as_ref().map(|i| i.span).unwrap_or(span),
            "the initial value does not fit the loop parameter",
        )?;
        self.no_function.push((
            pt.clone(),
            l.pat.span(),
            "a loop parameter may not be of function type",
        ));
        let saved = self.locals.len();
        match &l.form {
            LoopForm::For(i, _, bound) => {
                let bt = self.infer(bound)?;
                let it = self.class_var(Class::Int);
                self.expect(
                    &it,
                    &bt,
                    bound.span,
                    "a `for` loop's bound must be an integer",
                )?;
                self.bind_pat(&l.pat, &pt)?;
                self.bind(i.clone(), it);
            }
            LoopForm::ForIn(p, xs) => {
                let xt = self.infer(xs)?;
                let elem = self.full_var();
                self.expect(&elem.array(1), &xt, xs.span, "`for x in xs` needs an array")?;
                self.bind_pat(&l.pat, &pt)?;
                self.bind_pat(p, &elem)?;
            }
            LoopForm::While(c) => {
                self.bind_pat(&l.pat, &pt)?;
                let ct = self.infer(c)?;
                self.expect(
                    &Type::prim(PrimType::Bool),
                    &ct,
                    c.span,
                    "a `while` condition must be a `bool`",
                )?;
            }
        }
        let bt = self.infer(&l.body)?;
        self.expect(
            &pt,
            &bt,
            l.body.span,
            "the loop body must return a value of the loop parameter's type",
        )?;
        self.locals.truncate(saved);
        Ok(pt)
    }

    /// The type of the value a pattern names, for `loop p for ...` without
    /// an initial value: each variable of the pattern must be in scope.
    pub(super) fn pattern_as_value(&mut self, p: &Pat) -> Result<Type> {
        match p {
            Pat::Id(x, s) => match self.lookup_local(x) {
                Some(t) => Ok(t),
                None => Err(self.unknown_name(&QualName::plain(x.clone()), *s)),
            },
            Pat::Tuple(ps, _) => {
                let mut ts = Vec::new();
                for p in ps {
                    ts.push(self.pattern_as_value(p)?);
                }
                Ok(Type::scalar(Base::Tuple(ts)))
            }
            Pat::Record(fs, s) => {
                let mut ts = Vec::new();
                for (n, p) in fs {
                    let t = match p {
                        Some(p) => self.pattern_as_value(p)?,
                        None => match self.lookup_local(n) {
                            Some(t) => t,
                            None => return Err(self.unknown_name(&QualName::plain(n.clone()), *s)),
                        },
                    };
                    ts.push((n.clone(), t));
                }
                Ok(Type::record(ts))
            }
            Pat::Ascribed(inner, _, _) => self.pattern_as_value(inner),
            Pat::Wildcard(s) | Pat::Literal(_, _, s) | Pat::Constr(_, _, s) => Err(Diagnostic::ty(
                "this loop parameter has no initial value",
                *s,
            )
            .with_help("write `loop p = initial for ...`")),
        }
    }
}
