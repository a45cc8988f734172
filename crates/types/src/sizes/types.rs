//! The shapes of types and patterns: a type expression or an inferred
//! type read as a [`Shape`] (its anonymous sizes as its [`Mode`] says),
//! the names a pattern binds, and the messages that show shapes.

use super::*;

impl<'a> Walker<'a> {
    pub(super) fn of_type(&mut self, t: &Type, mode: Mode) -> Shape {
        let shape = Shape::of_type(t, &mut || Size::Unknown);
        if mode != Mode::Param {
            return shape;
        }
        // Each anonymous dimension of a parameter is inferred.
        shape.map_sizes(&mut |s| match s {
            Size::Unknown => self.flexible(),
            s => s.clone(),
        })
    }

    /// `shape` with its unknown parts read from the type `t`.
    pub(super) fn fill(&mut self, shape: Shape, t: &Type, mode: Mode) -> Shape {
        match shape {
            Shape::Any => self.of_type(t, mode),
            Shape::Array(ds, e) => {
                let k = ds.len() as u32;
                if t.rank.konst < k {
                    return Shape::Array(ds, e);
                }
                // (An array of a type variable's values: the rest of its
                // rank is the variable's.)
                let rank = Rank {
                    konst: t.rank.konst - k,
                    vars: t.rank.vars.clone(),
                };
                let elem = Type::new(rank, t.base.clone());
                let e = self.fill(*e, &elem, mode);
                Shape::array(ds, e)
            }
            Shape::Tuple(ss) => match (&t.base, t.rank == Rank::zero()) {
                (Base::Tuple(ts), true) if ts.len() == ss.len() => Shape::Tuple(
                    ss.into_iter()
                        .zip(ts)
                        .map(|(s, t)| self.fill(s, t, mode))
                        .collect(),
                ),
                _ => Shape::Tuple(ss),
            },
            Shape::Record(fs) => match (&t.base, t.rank == Rank::zero()) {
                (Base::Record(ts), true) if ts.len() == fs.len() => Shape::Record(
                    fs.into_iter()
                        .zip(ts)
                        .map(|((n, s), (_, t))| (n, self.fill(s, t, mode)))
                        .collect(),
                ),
                _ => Shape::Record(fs),
            },
            s => s,
        }
    }

    /// The shape of node `id`'s type, its sizes unknown.
    pub(super) fn fallback(&mut self, id: Option<NodeId>) -> Shape {
        match id.and_then(|id| self.def.types.get(&id)) {
            Some(t) => Shape::of_type(t, &mut || Size::Unknown),
            None => Shape::Any,
        }
    }

    /// `shape` with the unknown parts of node `id`'s type filled in.
    pub(super) fn typed(&mut self, shape: Shape, id: NodeId) -> Shape {
        match self.def.types.get(&id) {
            Some(t) => {
                let t = t.clone();
                self.fill(shape, &t, Mode::Let)
            }
            None => shape,
        }
    }

    /// A type expression's shape; names of sizes not in scope are bound.
    pub(super) fn convert(&mut self, te: &TypeExp, mode: Mode) -> Shape {
        match te {
            TypeExp::Prim(p, _) => Shape::Leaf(Type::prim(*p)),
            TypeExp::Array(d, t, _) => {
                let s = self.dim(d, mode);
                let elem = self.convert(t, mode);
                Shape::array(vec![s], elem)
            }
            TypeExp::Tuple(ts, _) => {
                Shape::Tuple(ts.iter().map(|t| self.convert(t, mode)).collect())
            }
            TypeExp::Record(fs, _) => {
                let mut fs: Vec<(Ident, Shape)> = fs
                    .iter()
                    .map(|(n, t)| (n.clone(), self.convert(t, mode)))
                    .collect();
                fs.sort_by(|a, b| a.0.cmp(&b.0));
                Shape::Record(fs)
            }
            TypeExp::Sum(cs, _) => {
                let mut cs: Vec<(Ident, Vec<Shape>)> = cs
                    .iter()
                    .map(|(c, ts)| {
                        (
                            c.clone(),
                            ts.iter().map(|t| self.convert(t, mode)).collect(),
                        )
                    })
                    .collect();
                cs.sort_by(|a, b| a.0.cmp(&b.0));
                Shape::Sum(cs)
            }
            TypeExp::Unique(t, _) => self.convert(t, mode),
            TypeExp::Exists(ns, t, _) => {
                let mark = self.env.len();
                for n in ns {
                    let s = match mode {
                        Mode::Exist | Mode::Result => {
                            Size::Rigid(self.rigid(n.clone(), Some(String::new())))
                        }
                        _ => Size::Unknown,
                    };
                    self.bind(n.clone(), Shape::Size(s));
                }
                let s = self.convert(t, mode);
                self.env.truncate(mark);
                s
            }
            TypeExp::Arrow(..) => self.arrow(te),
            TypeExp::Named(..) => Shape::Any,
        }
    }

    /// A function of the type `te`: its sizes are instantiated at each
    /// application, and its named parameters are sizes.
    pub(super) fn arrow(&mut self, te: &TypeExp) -> Shape {
        let mark = self.env.len();
        let first = self.names.len() as u32;
        let (params, ret) = self.arrows(te, Mode::Param);
        self.env.truncate(mark);
        let (sig, order) = self.signature(&params, &ret, Vec::new(), Vec::new());
        // Sizes of the scope it is written in are not its own.
        let fixed: Vec<Option<Size>> = order
            .iter()
            .map(|r| (*r < first).then_some(Size::Rigid(*r)))
            .collect();
        self.fun(FunVal {
            callee: Callee::Sig(Rc::new(sig), fixed.into(), "this function".into()),
            args: Vec::new(),
        })
    }

    /// The shapes of a function type's parameters (read in `mode`) and
    /// result; a named parameter `(n: i64)` is a size, bound for the rest.
    pub(super) fn arrows(&mut self, te: &TypeExp, mode: Mode) -> (Vec<Shape>, Shape) {
        let mut params = Vec::new();
        let mut t = te;
        while let TypeExp::Arrow(name, a, b, _) = t {
            let s = match (name, &**a) {
                (Some(n), TypeExp::Prim(PrimType::I64, _)) => {
                    let s = Shape::Size(Size::Rigid(self.rigid(n.clone(), None)));
                    self.bind(n.clone(), s.clone());
                    s
                }
                _ => self.convert(a, mode),
            };
            params.push(s);
            t = b;
        }
        (params, self.convert(t, Mode::Exist))
    }

    pub(super) fn dim(&mut self, d: &Dim, mode: Mode) -> Size {
        match d {
            Dim::Any => match mode {
                Mode::Param | Mode::Result => self.flexible(),
                Mode::Exist => self.existential("an anonymous size of a declared result".into()),
                Mode::Let => Size::Unknown,
            },
            Dim::Const(k) => i64::try_from(*k).map_or(Size::Unknown, Size::Const),
            Dim::Named(n) => match self.lookup(n) {
                Some(Shape::Size(s)) => s,
                Some(_) => Size::Unknown,
                None => {
                    let s = match mode {
                        Mode::Param | Mode::Exist | Mode::Result => {
                            Size::Rigid(self.rigid(n.clone(), None))
                        }
                        Mode::Let => self.flexible(),
                    };
                    self.bind(n.clone(), Shape::Size(s.clone()));
                    s
                }
            },
            Dim::Exp(e) => self.size_exp(e),
        }
    }

    /// The size an expression in a type stands for.
    pub(super) fn size_exp(&mut self, e: &Expr) -> Size {
        match &e.kind {
            ExprKind::Literal(Literal::Int { value, .. }) => {
                i64::try_from(*value).map_or(Size::Unknown, Size::Const)
            }
            ExprKind::Var(q) if q.is_local() => match self.lookup(&q.name) {
                Some(Shape::Size(s)) => s,
                _ => Size::Unknown,
            },
            ExprKind::Var(q) => match q.entity {
                Some(ent) => self.global_size(ent, &q.to_string()),
                None => Size::Unknown,
            },
            ExprKind::BinOp(op, _, a, b) => {
                let op = match op {
                    BinOpKind::Add => SizeOp::Add,
                    BinOpKind::Sub => SizeOp::Sub,
                    BinOpKind::Mul => SizeOp::Mul,
                    _ => return Size::Unknown,
                };
                let (a, b) = (self.size_exp(a), self.size_exp(b));
                Size::op(op, a, b)
            }
            ExprKind::Attr(_, e) => self.size_exp(e),
            // A module-level function's application: unified with another
            // application of it argument by argument (Futhark compares
            // size expressions by their form).
            ExprKind::Apply(f, args) => match &f.kind {
                ExprKind::Var(q) if !q.is_local() => match q.entity {
                    Some(ent) => {
                        let key = self.global_key(ent);
                        let args = args.iter().map(|a| self.size_exp(a)).collect();
                        Size::call(key, q.to_string().into(), args)
                    }
                    None => Size::Unknown,
                },
                _ => Size::Unknown,
            },
            _ => Size::Unknown,
        }
    }

    // ---- patterns and names -----------------------------------------------

    pub(super) fn bind(&mut self, x: Ident, s: Shape) {
        self.env.push((x, s));
    }

    pub(super) fn lookup(&self, x: &str) -> Option<Shape> {
        self.env
            .iter()
            .rev()
            .find(|(n, _)| &**n == x)
            .map(|(_, s)| s.clone())
    }

    /// The shape a pattern's annotations give (its type `t`, if known,
    /// filling in the rest).
    pub(super) fn pat_shape(&mut self, p: &Pat, t: Option<&Type>, mode: Mode) -> Shape {
        let component = |i: usize| match t {
            Some(t) if t.rank == Rank::zero() => match &t.base {
                Base::Tuple(ts) => ts.get(i).cloned(),
                _ => None,
            },
            _ => None,
        };
        match p {
            Pat::Ascribed(_, te, _) => {
                let s = self.convert(te, mode);
                match t {
                    Some(t) => self.fill(s, t, mode),
                    None => s,
                }
            }
            Pat::Tuple(ps, _) => Shape::Tuple(
                ps.iter()
                    .enumerate()
                    .map(|(i, p)| {
                        let t = component(i);
                        self.pat_shape(p, t.as_ref(), mode)
                    })
                    .collect(),
            ),
            Pat::Record(fs, _) => {
                let field = |n: &Ident| match t {
                    Some(t) if t.rank == Rank::zero() => match &t.base {
                        Base::Record(ts) => ts.iter().find(|(m, _)| m == n).map(|(_, t)| t.clone()),
                        _ => None,
                    },
                    _ => None,
                };
                let mut shapes: Vec<(Ident, Shape)> = fs
                    .iter()
                    .map(|(n, p)| {
                        let t = field(n);
                        let s = match p {
                            Some(p) => self.pat_shape(p, t.as_ref(), mode),
                            None => match &t {
                                Some(t) => self.of_type(t, mode),
                                None => Shape::Any,
                            },
                        };
                        (n.clone(), s)
                    })
                    .collect();
                shapes.sort_by(|a, b| a.0.cmp(&b.0));
                Shape::Record(shapes)
            }
            _ => match t {
                Some(t) => self.of_type(t, mode),
                None => Shape::Any,
            },
        }
    }

    /// The value of the variables a pattern names (`loop (xs, ys) for`).
    pub(super) fn pat_value(&self, p: &Pat) -> Shape {
        match p {
            Pat::Id(x, _) => self.lookup(x).unwrap_or(Shape::Any),
            Pat::Ascribed(p, _, _) => self.pat_value(p),
            Pat::Tuple(ps, _) => Shape::Tuple(ps.iter().map(|p| self.pat_value(p)).collect()),
            _ => Shape::Any,
        }
    }

    pub(super) fn bind_pat(&mut self, p: &Pat, s: &Shape) {
        match p {
            // An integer variable is a size in its scope (`replicate k x`
            // has `k` elements).
            Pat::Id(x, _) if matches!(s, Shape::Leaf(t) if *t == Type::prim(PrimType::I64)) => {
                let r = self.rigid(x.clone(), None);
                self.bind(x.clone(), Shape::Size(Size::Rigid(r)))
            }
            Pat::Id(x, _) => self.bind(x.clone(), s.clone()),
            Pat::Ascribed(p, _, _) => self.bind_pat(p, s),
            Pat::Tuple(ps, _) => match s {
                Shape::Tuple(ss) if ss.len() == ps.len() => {
                    ps.iter().zip(ss).for_each(|(p, s)| self.bind_pat(p, s))
                }
                _ => ps.iter().for_each(|p| self.bind_pat(p, &Shape::Any)),
            },
            Pat::Record(fs, _) => {
                for (n, p) in fs {
                    let f = match s {
                        Shape::Record(ss) => ss
                            .iter()
                            .find(|(m, _)| m == n)
                            .map_or(Shape::Any, |(_, s)| s.clone()),
                        _ => Shape::Any,
                    };
                    match p {
                        Some(p) => self.bind_pat(p, &f),
                        None => self.bind(n.clone(), f),
                    }
                }
            }
            Pat::Constr(c, ps, _) => {
                let payload = match s {
                    Shape::Sum(cs) => cs.iter().find(|(d, _)| d == c).map(|(_, ss)| ss.clone()),
                    _ => None,
                };
                for (i, p) in ps.iter().enumerate() {
                    let s = payload
                        .as_ref()
                        .and_then(|ss| ss.get(i).cloned())
                        .unwrap_or(Shape::Any);
                    self.bind_pat(p, &s);
                }
            }
            Pat::Wildcard(_) | Pat::Literal(..) => {}
        }
    }

    /// Binds `p` to a value of shape `value`: its annotations must agree.
    pub(super) fn bind_checked(
        &mut self,
        p: &Pat,
        value: &Shape,
        span: Span,
        what: &str,
    ) -> Result<()> {
        let annotated = self.pat_shape(p, None, Mode::Let);
        let s = self.expect(&annotated, value, span, what)?;
        let s = self.resolve_shape(&s);
        self.bind_pat(p, &s);
        Ok(())
    }

    // ---- errors -----------------------------------------------------------

    pub(super) fn show(&self, s: &Shape) -> String {
        let s = self.resolve_shape(s);
        s.show(&|r| self.names[r as usize].to_string(), &mut |t| {
            t.to_string()
        })
    }

    pub(super) fn show_size(&self, s: &Size) -> String {
        let text = s.show(&|r| self.names[r as usize].to_string());
        if text.is_empty() { "?".into() } else { text }
    }

    /// `actual` where `expected` is wanted: the two unified, or a type
    /// error at `span`.
    pub(super) fn expect(
        &mut self,
        expected: &Shape,
        actual: &Shape,
        span: Span,
        what: &str,
    ) -> Result<Shape> {
        match self.annotate(expected, actual) {
            Ok(s) => Ok(s),
            Err((x, y)) => Err(self.mismatch(what.into(), expected, actual, (x, y), span)),
        }
    }

    pub(super) fn mismatch(
        &self,
        what: String,
        expected: &Shape,
        actual: &Shape,
        (x, y): (Size, Size),
        span: Span,
    ) -> Diagnostic {
        // (A function value's shape shows as `?`: its sizes are said by
        // the note alone.)
        let sizes = format!(
            "Sizes \"{}\" and \"{}\" do not match",
            self.show_size(&x),
            self.show_size(&y)
        );
        let mut d = match (self.show(expected), self.show(actual)) {
            (e, a) if e == "?" || a == "?" => Diagnostic::ty(what, span)
                .with_label("this function does not have the sizes its type says")
                .with_note(sizes),
            (e, a) => Diagnostic::ty(what, span)
                .with_label(format!("this has type `{a}`"))
                .with_note(format!("expected `{e}`: {sizes}")),
        };
        if [&x, &y].iter().any(|s| self.show_size(s).contains('?')) {
            d = d.with_note("`?` is a size not worked out when the program is checked (an anonymous `[]`, or one only known when it runs)");
        }
        let mut rigid = Vec::new();
        x.rigids(&mut rigid);
        y.rigids(&mut rigid);
        for r in rigid {
            if let Some(Some(why)) = self
                .why
                .get(r as usize)
                .filter(|w| !matches!(w, Some(w) if w.is_empty()))
            {
                d = d.with_note(format!("\"{}\" is {why}", self.names[r as usize]));
            }
        }
        d.with_help(
            "sizes are checked when the program is checked: make the sizes agree, or coerce the value with `:>` (a check at run time)",
        )
    }
}
