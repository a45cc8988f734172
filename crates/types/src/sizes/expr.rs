//! The shape of each kind of expression.

use super::*;

impl<'a> Walker<'a> {
    pub(super) fn fun(&mut self, f: FunVal<'a>) -> Shape {
        self.funs.push(f);
        Shape::Fun((self.funs.len() - 1) as u32)
    }

    /// The function value of definition `d`, named at `e`.
    fn def_fun(&mut self, d: Rc<CheckedDef>, e: &Expr) -> Shape {
        self.fun(FunVal {
            callee: Callee::Def(d, Site::of(e)),
            args: Vec::new(),
        })
    }

    pub(super) fn expr(&mut self, e: &'a Expr) -> Result<Shape> {
        let s = urchin_base::stack::deep(|| self.expr_inner(e))?;
        self.check_needs(e)?;
        Ok(s)
    }

    pub(super) fn expr_inner(&mut self, e: &'a Expr) -> Result<Shape> {
        if let Some(sp) = spine::spine_of(e) {
            return self.spine(e, sp);
        }
        let s = match &e.kind {
            ExprKind::Literal(Literal::Int { value, .. })
                if self.def.types.get(&e.id) == Some(&Type::prim(PrimType::I64)) =>
            {
                Shape::Size(i64::try_from(*value).map_or(Size::Unknown, Size::Const))
            }
            ExprKind::Literal(_) | ExprKind::ProjSection(_) => self.fallback(Some(e.id)),
            ExprKind::Hole => {
                let s = self.fallback(Some(e.id));
                self.needing(s, Needer::Hole, e.span)
            }
            ExprKind::StringLit(s) => {
                let len = i64::try_from(s.len()).map_or(Size::Unknown, Size::Const);
                Shape::array(vec![len], Shape::Leaf(Type::prim(PrimType::U8)))
            }
            ExprKind::Var(q) => self.var(e, q),
            ExprKind::OpValue(op) if !self.def.local_ops.contains(&e.id) => self.fun(FunVal {
                callee: Callee::Intrinsic(Intrinsic::Operator(op.clone()), op.symbol().into()),
                args: Vec::new(),
            }),
            ExprKind::OpValue(_) => self.fallback(Some(e.id)),
            ExprKind::OpSection { left, right, .. } => {
                // The section's type has its operand's sizes.
                let known = self.known.clone();
                for x in left.iter().chain(right) {
                    let s = self.expr(x)?;
                    self.known_before(&s, &known, Needer::Section, e.span, x.span)?;
                }
                self.fallback(Some(e.id))
            }
            ExprKind::ArrayLit(es) => {
                let mut elem: Option<Shape> = None;
                for x in es {
                    let s = self.expr(x)?;
                    // The elements have one size (where two are known to
                    // differ, the literal fails when it runs).
                    elem = Some(match elem {
                        None => s,
                        Some(prev) => match self.unify(&prev, &s) {
                            Ok(m) => m,
                            Err(_) => {
                                self.join(&prev, &s, "the size of an element of an array literal")
                            }
                        },
                    });
                }
                let len = i64::try_from(es.len()).map_or(Size::Unknown, Size::Const);
                let elem = match elem {
                    Some(e) => e,
                    None => self.empty_rows(e.id, e.span),
                };
                Shape::array(vec![len], elem)
            }
            ExprKind::Tuple(es) => Shape::Tuple(
                es.iter()
                    .map(|x| self.expr(x))
                    .collect::<Result<Vec<_>>>()?,
            ),
            ExprKind::Record(fields) => {
                let mut fs = Vec::new();
                for (n, x) in fields {
                    fs.push((n.clone(), self.expr(x)?));
                }
                fs.sort_by(|a, b| a.0.cmp(&b.0));
                Shape::Record(fs)
            }
            ExprKind::Project(x, f) => {
                let s = self.expr(x)?;
                project(&s, f)
            }
            ExprKind::RecordUpdate(r, _, v) => {
                self.expr(v)?;
                self.expr(r)?
            }
            ExprKind::UnOp(_, x) => {
                self.expr(x)?;
                self.fallback(Some(e.id))
            }
            ExprKind::BinOp(_, _, a, b) => {
                self.expr(a)?;
                self.expr(b)?;
                self.fallback(Some(e.id))
            }
            ExprKind::Lambda(ps, ret, body) => {
                let c = Closure {
                    name: "this function".into(),
                    params: ps,
                    ret: ret.as_deref(),
                    body,
                    env: self.env.clone(),
                };
                self.fun(FunVal {
                    callee: Callee::Closure(Rc::new(c)),
                    args: Vec::new(),
                })
            }
            ExprKind::Let(p, v, body) => {
                let s = self.expr(v)?;
                let mark = self.env.len();
                self.bind_checked(
                    p,
                    &s,
                    v.span,
                    "the value does not have the type of its pattern",
                )?;
                let r = self.expr(body)?;
                self.env.truncate(mark);
                r
            }
            ExprKind::LetSizes(ns, p, v, body) => {
                let s = self.expr(v)?;
                let mark = self.env.len();
                let flex: Vec<Size> = ns.iter().map(|_| self.flexible()).collect();
                for ((n, _), f) in ns.iter().zip(&flex) {
                    self.bind(n.clone(), Shape::Size(f.clone()));
                }
                let annotated = self.pat_shape(p, None, Mode::Let);
                let merged = self.expect(
                    &annotated,
                    &s,
                    v.span,
                    "the value does not have the type of its pattern",
                )?;
                for ((n, span), f) in ns.iter().zip(&flex) {
                    if let Size::Flex(j) = self.resolve(f) {
                        if self
                            .needs
                            .iter()
                            .any(|n| n.needer == Needer::EmptyArray && n.flex.contains(&j))
                        {
                            return Err(Diagnostic::ty(
                                format!("Ambiguous size \"{n}\": it is the size of the rows of an empty array"),
                                *span,
                            )
                            .with_help("give the empty array a type with the sizes of its rows (`[] : [0][3]i64`)"));
                        }
                    }
                    if let Size::Flex(i) = self.resolve(f) {
                        let r = self.rigid(n.clone(), None);
                        self.flex[i as usize] = Some(Size::Rigid(r));
                    }
                }
                let merged = self.resolve_shape(&merged);
                let resolved: Vec<(Ident, Shape)> = self.env[mark..]
                    .iter()
                    .map(|(n, s)| (n.clone(), self.resolve_shape(s)))
                    .collect();
                self.env.truncate(mark);
                self.env.extend(resolved);
                self.bind_pat(p, &merged);
                let r = self.expr(body)?;
                self.env.truncate(mark);
                r
            }
            ExprKind::LetFun(f) => {
                let c = Closure {
                    name: format!("\"{}\"", f.name).into(),
                    params: &f.params,
                    ret: f.ret.as_ref(),
                    body: &f.value,
                    env: self.env.clone(),
                };
                let s = self.fun(FunVal {
                    callee: Callee::Closure(Rc::new(c)),
                    args: Vec::new(),
                });
                let mark = self.env.len();
                self.bind(f.name.clone(), s);
                let r = self.expr(&f.body)?;
                self.env.truncate(mark);
                r
            }
            ExprKind::If(c, t, f) => {
                self.expr(c)?;
                let (a, then_known) = self.branch(t)?;
                let (b, else_known) = self.branch(f)?;
                self.known.extend(then_known.into_iter().chain(else_known));
                self.join(
                    &a,
                    &b,
                    "a size that differs between the branches of an `if`",
                )
            }
            ExprKind::Match(x, cases) => {
                let s = self.expr(x)?;
                self.matched(&s);
                let mut out: Option<Shape> = None;
                let mut known = Vec::new();
                for c in cases {
                    let mark = self.env.len();
                    let annotated = self.pat_shape(&c.pat, None, Mode::Let);
                    let merged = self.annotate(&annotated, &s).unwrap_or_else(|_| s.clone());
                    self.bind_pat(&c.pat, &merged);
                    let (r, computed) = self.branch(&c.body)?;
                    known.extend(computed);
                    self.env.truncate(mark);
                    out = Some(match out {
                        None => r,
                        Some(prev) => self.join(
                            &prev,
                            &r,
                            "a size that differs between the cases of a `match`",
                        ),
                    });
                }
                self.known.extend(known);
                out.unwrap_or(Shape::Any)
            }
            ExprKind::Loop(l) => self.loop_(l)?,
            ExprKind::Index(x, idxs) => {
                let s = self.expr(x)?;
                let slices = self.indices(idxs)?;
                match s {
                    Shape::Array(ds, elem) if ds.len() >= idxs.len() => {
                        let mut dims = Vec::new();
                        for (d, sl) in ds.iter().zip(&slices) {
                            match sl {
                                None => {}
                                Some(Some(n)) => dims.push(n.clone()),
                                Some(None) => dims.push(d.clone()),
                            }
                        }
                        dims.extend(ds[idxs.len()..].iter().cloned());
                        Shape::array(dims, *elem)
                    }
                    _ => self.fallback(Some(e.id)),
                }
            }
            ExprKind::Update(x, idxs, v) => {
                let s = self.expr(x)?;
                self.indices(idxs)?;
                self.expr(v)?;
                s
            }
            ExprKind::Ascript(x, te) => {
                let s = self.expr(x)?;
                let annotated = self.convert(te, Mode::Let);
                self.expect(
                    &annotated,
                    &s,
                    x.span,
                    "the expression does not have the type of its annotation",
                )?
            }
            ExprKind::Coerce(x, te) => {
                let v = self.expr(x)?;
                let t = self.convert(te, Mode::Let);
                self.coerce_reps(&v, &t);
                t
            }
            ExprKind::Attr(_, x) | ExprKind::OpenIn(_, x) => self.expr(x)?,
            ExprKind::Range(r) => self.range(r, e.span)?,
            ExprKind::Constr(c, es) => {
                let shapes = es
                    .iter()
                    .map(|x| self.expr(x))
                    .collect::<Result<Vec<_>>>()?;
                match self.fallback(Some(e.id)) {
                    Shape::Sum(mut cs) => {
                        for (d, ss) in &mut cs {
                            if d == c {
                                if ss.len() == shapes.len() {
                                    *ss = shapes.clone();
                                }
                                continue;
                            }
                            // (The other constructors' sizes are the
                            // context's to give.)
                            for s in ss.iter_mut() {
                                let mut dims = Vec::new();
                                s.dims(&mut dims);
                                if dims.is_empty() {
                                    continue;
                                }
                                *s = self.needing(s.clone(), Needer::Constructor, e.span);
                            }
                        }
                        Shape::Sum(cs)
                    }
                    s => s,
                }
            }
            ExprKind::Apply(..) => self.fallback(Some(e.id)),
        };
        Ok(self.typed(s, e.id))
    }

    /// The rows of the empty array literal `id`: sizes only context can
    /// give.
    pub(super) fn empty_rows(&mut self, id: NodeId, span: Span) -> Shape {
        let Some(t) = self.def.types.get(&id) else {
            return Shape::Any;
        };
        if !t.rank.vars.is_empty() || t.rank.konst == 0 {
            return Shape::Any;
        }
        let row = Type::new(Rank::konst(t.rank.konst - 1), t.base.clone());
        let rows = Shape::of_type(&row, &mut || Size::Unknown);
        self.needing(rows, Needer::EmptyArray, span)
    }

    /// For each index, `None` if it is a single index, else the size of
    /// the slice: `Some(None)` for the whole dimension.
    pub(super) fn indices(&mut self, idxs: &'a [IndexExp]) -> Result<Vec<Option<Option<Size>>>> {
        let mut out = Vec::new();
        for i in idxs {
            match i {
                IndexExp::Single(x) => {
                    self.expr(x)?;
                    out.push(None);
                }
                IndexExp::Slice { start, end, stride } => {
                    for x in [start, end, stride].into_iter().flatten() {
                        self.expr(x)?;
                    }
                    let from_zero = start.as_deref().is_none_or(|s| is_int(s, 0));
                    let unit = stride.as_deref().is_none_or(|s| is_int(s, 1));
                    let size = match (start, end, stride) {
                        (None, None, None) => None,
                        (_, Some(end), _) if from_zero && unit => Some(self.size_exp(end)),
                        _ => Some(Size::Unknown),
                    };
                    out.push(Some(size));
                }
            }
        }
        Ok(out)
    }

    pub(super) fn range(&mut self, r: &'a Range, span: Span) -> Result<Shape> {
        self.expr(&r.start)?;
        if let Some(s) = &r.second {
            self.expr(s)?;
        }
        self.expr(&r.end)?;
        // The ranges whose length is their end (language reference).
        let known = match (r.kind, &r.second) {
            (RangeKind::UpTo, None) => is_int(&r.start, 0),
            (RangeKind::UpTo, Some(s)) => is_int(&r.start, 0) && is_int(s, 1),
            (RangeKind::Inclusive, Some(s)) => is_int(&r.start, 1) && is_int(s, 2),
            _ => false,
        };
        let size = if known {
            self.size_exp(&r.end)
        } else {
            let text = urchin_syntax::pretty::expr(&Expr::unchecked(
                ExprKind::Range(Box::new(r.clone())),
                span,
            ));
            self.computed(format!("the unknown length of range `{text}`"))
        };
        Ok(Shape::array(vec![size], Shape::Any))
    }

    pub(super) fn var(&mut self, e: &Expr, q: &QualName) -> Shape {
        if self.inserted.is_some_and(|i| i.contains(&e.id)) && &*q.name == "rep" {
            return self.fun(FunVal {
                callee: Callee::Rep(e.id),
                args: Vec::new(),
            });
        }
        if q.is_local() {
            if let Some(s) = self.lookup(&q.name) {
                return s;
            }
        }
        // A module-level value that is a size is that size by its name
        // (as in Futhark, not by its value).
        let s = self.global_var(e, q);
        match (s, q.entity) {
            (Shape::Size(_), Some(ent)) => Shape::Size(self.global_size(ent, &q.to_string())),
            (s, _) => s,
        }
    }

    fn global_var(&mut self, e: &Expr, q: &QualName) -> Shape {
        // A value seen through a module type has the sizes it gives.
        // (Not where a use must give a size parameter: lowering binds
        // those in the definition, by its own names.)
        let viewed = q
            .entity
            .and_then(|ent| self.globals.value(ent)?.sizes.clone())
            .filter(|sig| sig.from_context.is_empty());
        if let Some(sig) = viewed {
            let name = format!("\"{q}\"");
            return if sig.params.is_empty() {
                self.constant(&sig, &name, None)
            } else {
                self.fun(FunVal {
                    callee: Callee::Sig(sig, Rc::from([]), name.into()),
                    args: Vec::new(),
                })
            };
        }
        match self.def.resolved.get(&e.id) {
            Some(GlobalKind::Def(id)) => match self.defs.get(id.0 as usize) {
                Some(d) if d.target.params.is_empty() => match &d.sizes {
                    Some(sig) => {
                        let name = format!("\"{}\"", d.name);
                        self.constant(sig, &name, Some((Site::of(e), &d.name)))
                    }
                    None => Shape::Any,
                },
                Some(d) => self.def_fun(d.clone(), e),
                // A recursive use.
                None => match self.own.clone() {
                    Some(sig) if id.0 as usize == self.defs.len() => self.fun(FunVal {
                        callee: Callee::Sig(sig, Rc::from([]), format!("\"{}\"", q.name).into()),
                        args: Vec::new(),
                    }),
                    _ => self.fallback(Some(e.id)),
                },
            },
            Some(GlobalKind::Intrinsic(Intrinsic::Rep)) => self.fun(FunVal {
                callee: Callee::Rep(e.id),
                args: Vec::new(),
            }),
            Some(GlobalKind::Intrinsic(op)) if op.arity() > 0 => self.fun(FunVal {
                callee: Callee::Intrinsic(op.clone(), q.name.to_string().into()),
                args: Vec::new(),
            }),
            _ => self.fallback(Some(e.id)),
        }
    }

    /// A constant's shape: its sizes are those of its one value, which
    /// are not known statically when existential.
    fn constant(&mut self, sig: &SizedSig, name: &str, site: Option<(Site, &Ident)>) -> Shape {
        let unknown: Vec<Option<Size>> = sig
            .existential
            .iter()
            .map(|e| e.then_some(Size::Unknown))
            .collect();
        self.instantiate(sig, &unknown, name, &[], site)
            .unwrap_or(Shape::Any)
    }

    pub(super) fn spine(&mut self, e: &'a Expr, sp: spine::Spine<'a>) -> Result<Shape> {
        let f = match sp.head {
            Head::Expr(h) => self.expr(h)?,
            Head::Op(op) if !self.def.local_ops.contains(&e.id) => self.fun(FunVal {
                callee: Callee::Intrinsic(Intrinsic::Operator(op.clone()), op.symbol().into()),
                args: Vec::new(),
            }),
            Head::Backtick(q) => {
                let s = match self.def.resolved.get(&e.id) {
                    Some(GlobalKind::Def(id)) => self
                        .defs
                        .get(id.0 as usize)
                        .map(|d| self.def_fun(d.clone(), e)),
                    _ if q.is_local() => self.lookup(&q.name),
                    _ => None,
                };
                s.unwrap_or(Shape::Any)
            }
            Head::Proj(f) => {
                let s = self.expr(sp.args[0])?;
                return Ok(self.typed(project(&s, f), e.id));
            }
            Head::Op(_) | Head::Neg | Head::Not => Shape::Any,
        };
        let mut args = Vec::new();
        let mut marks = Vec::new();
        // (`f a <| x`: `x` is evaluated after `f a`, whose type has its
        // sizes.)
        let piped = (sp.form == spine::Form::PipeLeft).then(|| sp.args.len() - 1);
        for (i, a) in sp.args.iter().enumerate() {
            let known = self.known.clone();
            if Some(i) == piped {
                self.arguments_reversed(&marks);
            } else {
                marks.push((self.needs.len(), self.known.len()));
            }
            let shape = self.expr(a)?;
            if Some(i) == piped {
                let head = match sp.head {
                    Head::Expr(h) => h.span,
                    _ => e.span,
                };
                self.known_before(&shape, &known, Needer::Piped, head, a.span)?;
            }
            let shape = match shape {
                Shape::Leaf(t) if t == Type::prim(PrimType::I64) => Shape::Size(self.term(a)),
                s => s,
            };
            args.push(Arg {
                shape,
                span: a.span,
            });
        }
        if piped.is_none() {
            self.arguments_reversed(&marks);
        }
        let r = self.call(f, args, e.span)?;
        Ok(self.typed(r, e.id))
    }
}
