//! Lowering expressions: literals, names, records, arrays, `if`, loops,
//! indexing and updates.

use super::apply::Closure;
use super::value::{Env, Val, leaf_types, structure};
use super::{Ctx, LResult, Lower};
use urchin_base::diag::{Diagnostic, Phase};
use urchin_base::source::Span;
use urchin_core::ir::{self, Atom, DimIndex, LoopForm, Var};
use urchin_prim::{PrimType, Scalar};
use urchin_syntax::ast::LoopForm as LoopForm_;
use urchin_syntax::ast::*;
use urchin_syntax::spine;
use urchin_types::CheckedDef;
use urchin_types::env::{GlobalKind, ValueId};
use urchin_types::intrinsics::Intrinsic;
use urchin_types::sizes::SizeExp;
use urchin_types::ty::{Base, Type};

impl<'t> Lower<'t> {
    pub(super) fn expr(&mut self, ctx: &Ctx<'t>, env: &Env<'t>, e: &'t Expr) -> LResult<Val<'t>> {
        urchin_base::stack::deep(|| self.expr_inner(ctx, env, e))
    }

    pub(super) fn expr_inner(
        &mut self,
        ctx: &Ctx<'t>,
        env: &Env<'t>,
        e: &'t Expr,
    ) -> LResult<Val<'t>> {
        match &e.kind {
            ExprKind::Literal(l) => {
                let t = ctx.type_of(e.id);
                let p = match (&t, l) {
                    (
                        Some(Type {
                            base: Base::Prim(p),
                            ..
                        }),
                        _,
                    ) => *p,
                    (_, Literal::Float { .. }) => PrimType::F64,
                    (_, Literal::Bool(_)) => PrimType::Bool,
                    _ => PrimType::I32,
                };
                Ok(Val::Leaf(Atom::Const(match l {
                    Literal::Int { value, .. } => Scalar::from_u128(p, *value),
                    Literal::Float { value, .. } => Scalar::from_f64(p, *value),
                    Literal::Bool(b) => Scalar::Bool(*b),
                })))
            }
            ExprKind::Var(q) => self.var(ctx, env, e.id, q, e.span),
            ExprKind::OpValue(op) => self.operator_value(ctx, env, e.id, op, e.span),
            ExprKind::OpSection { op, left, right } => {
                let op = self.operator_value(ctx, env, e.id, op, e.span)?;
                let left = match left {
                    Some(l) => Some(self.expr(ctx, env, l)?),
                    None => None,
                };
                let right = match right {
                    Some(r) => Some(self.expr(ctx, env, r)?),
                    None => None,
                };
                Ok(Self::fun(Closure::Section { op, left, right }))
            }
            ExprKind::ProjSection(fields) => Ok(Self::fun(Closure::Proj(fields))),
            ExprKind::ArrayLit(es) => self.array_lit(ctx, env, e, es),
            ExprKind::Tuple(es) => {
                let mut cs = Vec::new();
                for x in es {
                    cs.push((None, self.expr(ctx, env, x)?));
                }
                Ok(Val::Node(cs))
            }
            ExprKind::Record(fields) => {
                let mut cs: Vec<(Option<Ident>, Val)> = Vec::new();
                for (n, x) in fields {
                    cs.push((Some(n.clone()), self.expr(ctx, env, x)?));
                }
                cs.sort_by(|a, b| a.0.cmp(&b.0));
                Ok(Val::Node(cs))
            }
            ExprKind::Project(x, f) => {
                let v = self.expr(ctx, env, x)?;
                self.project(&v, f, e.span)
            }
            ExprKind::RecordUpdate(r, path, x) => {
                let rv = self.expr(ctx, env, r)?;
                let xv = self.expr(ctx, env, x)?;
                self.update_field(rv, path, xv, e.span)
            }
            ExprKind::Apply(..) | ExprKind::BinOp(..) | ExprKind::UnOp(..) => {
                match spine::spine_of(e) {
                    Some(sp) => self.spine(ctx, env, e, sp),
                    None => {
                        let ExprKind::BinOp(op, _, l, r) = &e.kind else {
                            unreachable!("only compositions are not spines");
                        };
                        let lv = self.expr(ctx, env, l)?;
                        let rv = self.expr(ctx, env, r)?;
                        let (first, second) = if *op == BinOpKind::ComposeRight {
                            (lv, rv)
                        } else {
                            (rv, lv)
                        };
                        Ok(Self::fun(Closure::Compose(first, second)))
                    }
                }
            }
            ExprKind::Lambda(params, ret, body) => Ok(Self::fun(Closure::Lambda {
                params,
                ret: ret.as_deref(),
                body,
                env: env.clone(),
                ctx: ctx.clone(),
            })),
            ExprKind::Let(p, v, body) => {
                let val = self.expr(ctx, env, v)?;
                let env = self.bind_pat(ctx, env, p, val, "the let-bound value")?;
                self.expr(ctx, &env, body)
            }
            ExprKind::LetFun(f) => {
                let c = Self::fun(Closure::LocalFun {
                    f,
                    env: env.clone(),
                    ctx: ctx.clone(),
                });
                let env = env.bind(f.name.clone(), c);
                self.expr(ctx, &env, &f.body)
            }
            ExprKind::If(c, t, f) => self.if_(ctx, env, c, t, f, e.span),
            ExprKind::Loop(l) => self.loop_(ctx, env, l, None, e.span),
            ExprKind::Index(a, idxs) => {
                let av = self.expr(ctx, env, a)?;
                let dims = self.indices(ctx, env, idxs)?;
                self.index(&av, &dims, e.span)
            }
            ExprKind::Update(a, idxs, v) => {
                let av = self.expr(ctx, env, a)?;
                self.update(ctx, env, av, idxs, v, e.span)
            }
            ExprKind::Ascript(x, te) => {
                let v = self.expr(ctx, env, x)?;
                self.ascribe(ctx, env, te, v, "the annotated expression", e.span)
            }
            ExprKind::Attr(attr, x) => {
                if let (Some(k), ExprKind::Loop(l)) = (stripmine(attr), &x.kind) {
                    if k > MAX_STRIPMINE {
                        return Err(stripmine_too_deep(k, e.span));
                    }
                    return self.loop_(ctx, env, l, Some(k), x.span);
                }
                if self.breakpoints && matches!(attr, Attr::Atom(a) if &**a == "break") {
                    self.breakpoint(env, e.span)?;
                }
                let v = self.expr(ctx, env, x)?;
                if let Some(label) = trace_label(attr) {
                    self.trace(&v, &label, e.span)?;
                }
                Ok(v)
            }
            // The checker resolved the names the module provides.
            ExprKind::OpenIn(_, x) => self.expr(ctx, env, x),
            ExprKind::Range(r) => {
                let mut args = vec![self.expr(ctx, env, &r.start)?];
                if let Some(x) = &r.second {
                    args.push(self.expr(ctx, env, x)?);
                }
                args.push(self.expr(ctx, env, &r.end)?);
                let range = Intrinsic::Range {
                    kind: r.kind,
                    stepped: r.second.is_some(),
                };
                self.intrinsic(&range, args, e.span)
            }
            ExprKind::StringLit(text) => {
                let bytes = text.bytes().map(|b| Atom::Const(Scalar::U8(b))).collect();
                let s = self.b.at(e.span, "_str");
                Ok(Val::Leaf(
                    s.array_lit(bytes, ir::Type::Prim(PrimType::U8)).into(),
                ))
            }
            ExprKind::Hole => {
                let t = ctx
                    .type_of(e.id)
                    .ok_or_else(|| Self::internal("a hole without a type", e.span))?;
                let b = self.b.at(e.span, "hole");
                b.assert(Atom::Const(Scalar::Bool(false)), super::HOLE_MESSAGE);
                Ok(self.hole_value(&t, e.span))
            }
            ExprKind::Constr(c, args) => self.constr(ctx, env, e, c, args),
            ExprKind::Match(x, cases) => {
                let v = self.expr(ctx, env, x)?;
                self.cases(ctx, env, &v, cases, e.span)
            }
            ExprKind::Coerce(x, te) => {
                let v = self.expr(ctx, env, x)?;
                let what = super::coercion_what(te);
                self.ascribe(ctx, env, te, v, &what, e.span)
            }
            ExprKind::LetSizes(ns, p, v, body) => {
                let val = self.expr(ctx, env, v)?;
                // The sizes are new names, bound by the pattern.
                let fresh = ns.iter().fold(env.clone(), |env, (n, _)| {
                    env.bind(n.clone(), Val::unknown())
                });
                let env = self.bind_pat(ctx, &fresh, p, val, "the let-bound value")?;
                self.expr(ctx, &env, body)
            }
        }
    }

    /// A value of type `t` standing for a hole that has failed: zeros and
    /// empty arrays (never used), or a function returning such values.
    pub(super) fn hole_value(&mut self, t: &Type, span: Span) -> Val<'t> {
        if let Base::Arrow(_, r) = &t.base {
            return Self::fun(Closure::Hole((**r).clone()));
        }
        let leaves = leaf_types(t)
            .into_iter()
            .map(|lt| match lt {
                ir::Type::Array(p, r) => {
                    let elem = if r == 1 {
                        ir::Type::Prim(p)
                    } else {
                        ir::Type::Array(p, r - 1)
                    };
                    self.b.at(span, "_hole").array_lit(Vec::new(), elem).into()
                }
                other => Atom::Const(Scalar::from_u128(other.elem(), 0)),
            })
            .collect::<Vec<Atom>>();
        structure(t, &mut leaves.into_iter())
    }

    pub(super) fn var(
        &mut self,
        ctx: &Ctx<'t>,
        env: &Env<'t>,
        id: NodeId,
        q: &QualName,
        span: Span,
    ) -> LResult<Val<'t>> {
        let resolved = ctx.def.resolved.get(&id);
        if q.is_local() && resolved.is_none() {
            if let Some(v) = env.get(&q.name) {
                return Ok(ctx.local_instance(id, v));
            }
        }
        let kind = match resolved {
            Some(k) => k.clone(),
            None => match self.tenv.globals.intrinsic(&q.name) {
                Some((i, _)) => GlobalKind::Intrinsic(i),
                None => return Err(Self::internal(format!("unresolved name {q}"), span)),
            },
        };
        self.global(ctx, id, kind, span)
    }

    /// A global name used at node `id` (the sizes the checker found for
    /// the use are computed in the definition's scope, `Ctx::sizes`).
    pub(super) fn global(
        &mut self,
        ctx: &Ctx<'t>,
        id: NodeId,
        kind: GlobalKind,
        span: Span,
    ) -> LResult<Val<'t>> {
        match kind {
            GlobalKind::Intrinsic(Intrinsic::Const(s)) => Ok(Val::Leaf(Atom::Const(s))),
            GlobalKind::Intrinsic(Intrinsic::Rep) => match ctx.def.rep_lengths.get(&id) {
                Some(e) => {
                    let n = self.size_exp(&ctx.sizes, e, span)?;
                    Ok(Self::fun(Closure::Rep(n)))
                }
                None => Ok(Self::fun(Closure::Intrinsic(Intrinsic::Rep))),
            },
            GlobalKind::Intrinsic(i) => Ok(Self::fun(Closure::Intrinsic(i))),
            GlobalKind::Def(d) => {
                let def: &'t CheckedDef = self.tenv.def(d);
                let inst = ctx.inst_of(id);
                let mut given = Env::default();
                for (n, e) in ctx.def.implicit_sizes.get(&id).into_iter().flatten() {
                    let size = self.size_exp(&ctx.sizes, e, span)?;
                    given = given.bind(n.clone(), Val::Leaf(size));
                }
                if def.target.params.is_empty() {
                    // A constant: inlined at each use.
                    self.apply_def(def, inst, given, Vec::new(), span)
                } else {
                    // A definition naming itself is a recursive use.
                    let own = std::ptr::eq(def, ctx.def);
                    Ok(Self::fun(Closure::Def {
                        def,
                        inst,
                        own,
                        given,
                    }))
                }
            }
            GlobalKind::Value(v) => self.external(v, span),
            // Definitions are lowered from applications of parametric
            // modules, which have code; the module's own body has none.
            GlobalKind::Param => Err(Self::internal(
                "a parametric module's member has no code",
                span,
            )),
        }
    }

    /// A size the checker found for a use, computed from the sizes in
    /// scope there.
    fn size_exp(&mut self, env: &Env<'t>, e: &SizeExp, span: Span) -> LResult<Atom> {
        Ok(match e {
            SizeExp::Const(k) => Atom::Const(Scalar::I64(*k)),
            SizeExp::Var(x) => match env.get(x) {
                Some(v) => self.scalar(v, span)?,
                None => {
                    return Err(Self::internal(
                        format!("the size {x} is not in scope"),
                        span,
                    ));
                }
            },
            SizeExp::Length(x) => match env.get(x).and_then(Self::first_leaf) {
                Some(Atom::Var(v)) => self.b.at(span, "_size").size(v, 0).into(),
                _ => {
                    return Err(Self::internal(
                        format!("the array {x} whose length is a size is not in scope"),
                        span,
                    ));
                }
            },
            SizeExp::Op(op, a, b) => {
                let a = self.size_exp(env, a, span)?;
                let b = self.size_exp(env, b, span)?;
                self.b.at(span, "_size").bin(op.bin_op(), a, b).into()
            }
        })
    }

    fn external(&mut self, id: ValueId, span: Span) -> LResult<Val<'t>> {
        let t =
            (self.external_types)(id).ok_or_else(|| Self::internal("unknown REPL value", span))?;
        let vars = match self.externals.iter().find(|(v, _)| *v == id) {
            Some((_, vs)) => vs.clone(),
            None => {
                let vs: Vec<Var> = leaf_types(&t)
                    .into_iter()
                    .map(|lt| self.b.vars.fresh("_val", lt))
                    .collect();
                self.externals.push((id, vs.clone()));
                vs
            }
        };
        Ok(structure(&t, &mut vars.into_iter().map(Atom::Var)))
    }

    pub(super) fn project(&mut self, v: &Val<'t>, f: &Ident, span: Span) -> LResult<Val<'t>> {
        match v {
            Val::Node(cs) => {
                let by_name = cs.iter().find(|(n, _)| n.as_ref() == Some(f));
                let found = by_name.or_else(|| {
                    f.parse::<usize>()
                        .ok()
                        .and_then(|i| cs.get(i).filter(|(n, _)| n.is_none()))
                });
                found
                    .map(|(_, c)| c.clone())
                    .ok_or_else(|| Self::internal(format!("no field {f}"), span))
            }
            _ => Err(Self::internal(format!("field {f} of a non-record"), span)),
        }
    }

    fn update_field(
        &mut self,
        r: Val<'t>,
        path: &[Ident],
        x: Val<'t>,
        span: Span,
    ) -> LResult<Val<'t>> {
        let Some((f, rest)) = path.split_first() else {
            return Ok(x);
        };
        let Val::Node(cs) = r else {
            return Err(Self::internal("record update of a non-record", span));
        };
        let mut out = Vec::new();
        for (n, c) in cs {
            if n.as_ref() == Some(f) || (n.is_none() && f.parse::<usize>().ok() == Some(out.len()))
            {
                out.push((n, self.update_field(c, rest, x.clone(), span)?));
            } else {
                out.push((n, c));
            }
        }
        Ok(Val::Node(out))
    }

    fn array_lit(
        &mut self,
        ctx: &Ctx<'t>,
        env: &Env<'t>,
        e: &'t Expr,
        es: &'t [Expr],
    ) -> LResult<Val<'t>> {
        let t = ctx
            .type_of(e.id)
            .ok_or_else(|| Self::internal("array literal without a type", e.span))?;
        let elem_t = Type::new(
            urchin_types::ty::Rank::konst(t.rank.konst.saturating_sub(1)),
            t.base.clone(),
        );
        let elem_leaf_types = leaf_types(&elem_t);
        let mut columns: Vec<Vec<Atom>> = vec![Vec::new(); elem_leaf_types.len()];
        let mut template = None;
        for x in es {
            let v = self.expr(ctx, env, x)?;
            for (i, a) in self.leaves(&v, x.span)?.into_iter().enumerate() {
                if let Some(col) = columns.get_mut(i) {
                    col.push(a);
                }
            }
            template.get_or_insert(v);
        }
        let mut out = Vec::new();
        for (col, lt) in columns.into_iter().zip(&elem_leaf_types) {
            out.push(self.b.at(e.span, "_arr").array_lit(col, *lt).into());
        }
        Ok(structure(&t, &mut out.into_iter()))
    }

    fn if_(
        &mut self,
        ctx: &Ctx<'t>,
        env: &Env<'t>,
        c: &'t Expr,
        t: &'t Expr,
        f: &'t Expr,
        span: Span,
    ) -> LResult<Val<'t>> {
        let cv = self.expr(ctx, env, c)?;
        let cond = self.scalar(&cv, c.span)?;
        if let Atom::Const(Scalar::Bool(b)) = cond {
            return self.expr(ctx, env, if b { t } else { f });
        }
        self.branch(
            cond,
            (|l: &mut Self| l.expr(ctx, env, t), t.span),
            (|l: &mut Self| l.expr(ctx, env, f), f.span),
            span,
        )
    }

    fn loop_(
        &mut self,
        ctx: &Ctx<'t>,
        env: &Env<'t>,
        l: &'t LoopExp,
        stripmine: Option<u32>,
        span: Span,
    ) -> LResult<Val<'t>> {
        let init = match &l.init {
            Some(i) => self.expr(ctx, env, i)?,
            None => Self::pattern_value(env, &l.pat)
                .ok_or_else(|| Self::internal("unbound loop variable", span))?,
        };
        let init_atoms = self.leaves(&init, span)?;
        let pname = l
            .pat
            .binders()
            .first()
            .map(|(n, _)| n.to_string())
            .unwrap_or_else(|| "_p".into());
        let (template, params) = self.fresh_like(&init, &pname, span)?;
        // The sizes ascribed to the parameters hold for the initial values
        // and for every iteration's result; a size name not bound outside
        // is bound afresh in each iteration (it may vary).
        if ascribes(&l.pat) {
            self.bind_pat(ctx, env, &l.pat, init, "the loop's initial value")?;
        }
        let bind_params =
            |lw: &mut Self| lw.bind_pat(ctx, env, &l.pat, template.clone(), "the loop parameter");
        // The loop index to bind in the body (name, variable, its source
        // type), and the array a `for x in xs` walks.
        let mut index: Option<(Ident, Var, PrimType)> = None;
        let mut walk: Option<Val<'t>> = None;
        let form = match &l.form {
            LoopForm_::For(i, _, bound) => {
                let bv = self.expr(ctx, env, bound)?;
                let b = self.scalar(&bv, bound.span)?;
                let bt = self.b.ty(b).elem();
                let b64 = self.i64_atom(b, span);
                let iv = self.b.fresh(i, ir::Type::Prim(PrimType::I64));
                index = Some((i.clone(), iv, bt));
                LoopForm::For { i: iv, bound: b64 }
            }
            LoopForm_::ForIn(_, xs) => {
                let xv = self.expr(ctx, env, xs)?;
                let first = Self::first_leaf(&xv)
                    .and_then(|a| a.var())
                    .ok_or_else(|| Self::internal("for-in over a non-array", xs.span))?;
                let n = self.b.at(span, "n").size(first, 0);
                let iv = self.b.fresh("i", ir::Type::Prim(PrimType::I64));
                walk = Some(xv);
                LoopForm::For {
                    i: iv,
                    bound: n.into(),
                }
            }
            LoopForm_::While(c) => {
                let (cond, ()) = self.body(|lw| {
                    let env_p = bind_params(lw)?;
                    let cv = lw.expr(ctx, &env_p, c)?;
                    Ok((vec![lw.scalar(&cv, c.span)?], ()))
                })?;
                LoopForm::While { cond }
            }
        };
        let (body, ()) = self.body(|lw| {
            let mut benv = bind_params(lw)?;
            if let Some((name, iv, ty)) = &index {
                let ia = if *ty == PrimType::I64 {
                    Atom::Var(*iv)
                } else {
                    lw.b.at(span, name).convert(*ty, *iv).into()
                };
                benv = benv.bind(name.clone(), Val::Leaf(ia));
            }
            if let (Some(xv), LoopForm::For { i, .. }, LoopForm_::ForIn(p, _)) =
                (&walk, &form, &l.form)
            {
                let elem = lw.index(xv, &[DimIndex::Fix(Atom::Var(*i))], span)?;
                benv = lw.bind_pat(ctx, &benv, p, elem, "the loop element")?;
            }
            let v = lw.expr(ctx, &benv, &l.body)?;
            if ascribes(&l.pat) {
                lw.bind_pat(ctx, env, &l.pat, v.clone(), "the loop body's result")?;
            }
            Ok((lw.leaves(&v, l.body.span)?, ()))
        })?;
        let params = params.into_iter().zip(init_atoms).collect();
        let out = self.b.at(span, &pname).loop_(params, form, body, stripmine);
        Ok(Self::restructure(
            &template,
            &mut out.into_iter().map(Atom::Var),
        ))
    }

    pub(super) fn i64_atom(&mut self, a: Atom, span: Span) -> Atom {
        match a {
            Atom::Const(s) => Atom::Const(urchin_prim::convert(s, PrimType::I64)),
            Atom::Var(_) if self.b.ty(a).elem() == PrimType::I64 => a,
            _ => self.b.at(span, "_n").convert(PrimType::I64, a).into(),
        }
    }

    fn indices(
        &mut self,
        ctx: &Ctx<'t>,
        env: &Env<'t>,
        idxs: &'t [IndexExp],
    ) -> LResult<Vec<DimIndex>> {
        let mut dims = Vec::new();
        for ix in idxs {
            dims.push(match ix {
                IndexExp::Single(i) => {
                    let v = self.expr(ctx, env, i)?;
                    let a = self.scalar(&v, i.span)?;
                    DimIndex::Fix(self.i64_atom(a, i.span))
                }
                IndexExp::Slice { start, end, stride } => {
                    let part = |x: &'t Option<Box<Expr>>, l: &mut Self| -> LResult<Option<Atom>> {
                        match x {
                            Some(x) => {
                                let v = l.expr(ctx, env, x)?;
                                let a = l.scalar(&v, x.span)?;
                                Ok(Some(l.i64_atom(a, x.span)))
                            }
                            None => Ok(None),
                        }
                    };
                    let start = part(start, self)?;
                    let end = part(end, self)?;
                    let stride = part(stride, self)?;
                    DimIndex::Slice { start, end, stride }
                }
            });
        }
        Ok(dims)
    }

    fn index(&mut self, v: &Val<'t>, dims: &[DimIndex], span: Span) -> LResult<Val<'t>> {
        if dims.is_empty() {
            return Ok(v.clone());
        }
        match v {
            Val::Leaf(a) => {
                let Atom::Var(arr) = a else {
                    return Err(Self::internal("indexing a constant", span));
                };
                let elem = self.b.at(span, "_elem").index(*arr, dims.to_vec());
                Ok(Val::Leaf(elem.into()))
            }
            Val::Node(cs) => {
                let mut out = Vec::new();
                for (n, c) in cs {
                    out.push((n.clone(), self.index(c, dims, span)?));
                }
                Ok(Val::Node(out))
            }
            // (A slice has a length of its own, which nothing gives here.)
            Val::Rep(inner, _) => match &dims[0] {
                DimIndex::Fix(_) => self.index(inner, &dims[1..], span),
                DimIndex::Slice { .. } => Ok(Val::Rep(
                    Box::new(self.index(inner, &dims[1..], span)?),
                    None,
                )),
            },
            Val::Fun(_) => Err(Self::internal("indexing a function", span)),
        }
    }

    fn update(
        &mut self,
        ctx: &Ctx<'t>,
        env: &Env<'t>,
        arr: Val<'t>,
        idxs: &'t [IndexExp],
        value: &'t Expr,
        span: Span,
    ) -> LResult<Val<'t>> {
        let dims = self.indices(ctx, env, idxs)?;
        let vv = self.expr(ctx, env, value)?;
        let arr_leaves = self.leaves(&arr, span)?;
        let val_leaves = self.leaves(&vv, value.span)?;
        let mut out = Vec::new();
        for (a, v) in arr_leaves.into_iter().zip(val_leaves) {
            let Atom::Var(av) = a else {
                return Err(Self::internal("updating a constant", span));
            };
            let name = self.b.vars.name(av).to_string();
            out.push(self.b.at(span, &name).update(av, dims.clone(), v).into());
        }
        Ok(Self::restructure(&arr, &mut out.into_iter()))
    }
}

impl<'t> Lower<'t> {
    /// `#[break]`: a breakpoint handed the source variables in scope that
    /// hold data (functions, sum values and lazy `rep`s are left out),
    /// and those of the callers at each call site around it.
    fn breakpoint(&mut self, env: &Env<'t>, span: Span) -> LResult<()> {
        let depth = self.sites.chain(self.b.ctx).count();
        let callers: Vec<Env<'t>> = self.frame_envs.iter().rev().take(depth).cloned().collect();
        let mut locals = Vec::new();
        let mut args = Vec::new();
        for (frame, env) in std::iter::once(env).chain(&callers).enumerate() {
            self.frame_locals(frame as u32, env, span, &mut locals, &mut args)?;
        }
        self.b.at(span, "break").breakpoint(locals, args);
        Ok(())
    }

    /// The innermost binding of each name of `env`, in the order they were
    /// bound.
    fn frame_locals(
        &mut self,
        frame: u32,
        env: &Env<'t>,
        span: Span,
        locals: &mut Vec<ir::BreakLocal>,
        args: &mut Vec<Atom>,
    ) -> LResult<()> {
        let mut seen = std::collections::HashSet::new();
        let mut found = Vec::new();
        for (name, v) in env.entries() {
            let shown = name.starts_with(|c: char| c.is_alphabetic());
            if !seen.insert(name.clone()) || !shown {
                continue;
            }
            if let Some(shape) = self.shape(v) {
                found.push((name, shape, self.leaves(v, span)?));
            }
        }
        for (name, shape, leaves) in found.into_iter().rev() {
            locals.push(ir::BreakLocal {
                frame,
                name: name.to_string().into(),
                shape,
            });
            args.extend(leaves);
        }
        Ok(())
    }

    /// The shape of a value made of data (scalars, arrays, tuples and
    /// records of them).
    fn shape(&self, v: &Val<'t>) -> Option<ir::Shape> {
        match v {
            Val::Leaf(a) => match a.ty(&*self.b.vars) {
                ir::Type::Acc(..) => None,
                t => Some(ir::Shape::Leaf(t)),
            },
            Val::Node(cs) if cs.is_empty() => None,
            Val::Node(cs) if cs.iter().all(|(n, _)| n.is_none()) => {
                let cs = cs.iter().map(|(_, c)| self.shape(c));
                Some(ir::Shape::Tuple(cs.collect::<Option<_>>()?))
            }
            Val::Node(cs) => {
                let fs = cs.iter().map(|(n, c)| {
                    let n = n.as_ref().filter(|n| !n.starts_with('#'))?;
                    Some((n.to_string().into(), self.shape(c)?))
                });
                Some(ir::Shape::Record(fs.collect::<Option<_>>()?))
            }
            Val::Rep(..) | Val::Fun(_) => None,
        }
    }
}

/// The label `#[trace]` (the source location) or `#[trace(tag)]` prints
/// before the value.
fn trace_label(a: &Attr) -> Option<String> {
    match a {
        Attr::Atom(name) if &**name == "trace" => Some(super::TRACE_HERE.into()),
        Attr::Call(name, args) if &**name == "trace" => match args.as_slice() {
            [Attr::Atom(tag)] => Some(tag.to_string()),
            _ => None,
        },
        _ => None,
    }
}

/// The most levels `#[stripmine(k)]` may make. Each level runs at least
/// twice, so reversing a nest of `k` levels costs at least `2^k` runs of
/// the body whatever the trip count; `k = 16` already reaches every trip
/// count below `2^16` with two iterations a level, past any use.
pub const MAX_STRIPMINE: u32 = 16;

fn stripmine_too_deep(k: u32, span: Span) -> Diagnostic {
    Diagnostic::new(
        Phase::Limit,
        format!("strip-mining into {k} levels makes the program too large"),
    )
    .at(span)
    .with_label(format!(
        "each level runs at least twice, so this costs at least 2^{k} runs of the body"
    ))
    .with_help(format!(
        "use a factor of at most {MAX_STRIPMINE}; 2 or 3 checkpoint a long loop in \
         n^(1/2) or n^(1/3) memory"
    ))
}

fn stripmine(a: &Attr) -> Option<u32> {
    match a {
        Attr::Call(name, args) if &**name == "stripmine" => match args.as_slice() {
            [Attr::Int(k)] if *k >= 1 => Some(*k as u32),
            _ => None,
        },
        _ => None,
    }
}

/// Whether a pattern ascribes a type somewhere (so a value bound to it has
/// sizes to check).
fn ascribes(p: &Pat) -> bool {
    match p {
        Pat::Ascribed(..) => true,
        Pat::Tuple(ps, _) | Pat::Constr(_, ps, _) => ps.iter().any(ascribes),
        Pat::Record(fs, _) => fs.iter().any(|(_, p)| p.as_ref().is_some_and(ascribes)),
        _ => false,
    }
}
