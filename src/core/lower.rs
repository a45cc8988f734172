//! Lowering: from the elaborated (target) AST to the core IR.
//!
//! Lowering is an abstract interpreter of the source program: expressions
//! evaluate to [`Val`]s, whose leaves are core atoms. Because the language
//! has no recursion, every function value is known statically: applying it
//! inlines its body (monomorphised at the argument types), so the core IR
//! has no calls and no function values, and lambdas survive only as SOAC
//! operands. Tuples and records become several variables; an array of
//! tuples is a tuple of arrays. A `rep` stays a lazy [`Val::Rep`] until
//! something needs its memory: as a `map` argument it is fused away (the
//! replicated value is simply free in the lambda).

use super::ir::{
    self, Atom, Body, DimIndex, Exp, Function, Lambda, LoopForm, Operator, Program, Stm, Var, Vars,
};
use crate::diag::Diagnostic;
use crate::prim::{BinOp, PrimType, Scalar, UnOp};
use crate::source::Span;
use crate::syntax::ast::LoopForm as LoopForm_;
use crate::syntax::ast::*;
use crate::syntax::spine::{self, Head};
use crate::types::env::{DefId, GlobalKind, ValueId};
use crate::types::intrinsics::{self, Intrinsic};
use crate::types::scheme::Inst;
use crate::types::ty::{Base, Type};
use crate::types::{CheckedDef, TypeEnv};
use std::rc::Rc;

pub type LResult<T> = Result<T, Diagnostic>;

/// A source-level value during lowering.
#[derive(Clone)]
pub enum Val<'t> {
    /// A scalar or an array of scalars.
    Leaf(Atom),
    /// A tuple (no names) or record (field names, sorted); an array of
    /// tuples is a node of arrays.
    Node(Vec<(Option<Ident>, Val<'t>)>),
    /// `rep v`, not yet materialised.
    Rep(Box<Val<'t>>),
    Fun(Rc<Closure<'t>>),
}

/// Where the types of the nodes being lowered come from: a checked
/// definition instantiated at concrete types.
#[derive(Clone)]
pub struct Ctx<'t> {
    def: &'t CheckedDef,
    inst: Rc<Inst>,
}

impl<'t> Ctx<'t> {
    fn type_of(&self, id: NodeId) -> Option<Type> {
        self.def.types.get(&id).map(|t| t.subst(&self.inst))
    }

    fn inst_of(&self, id: NodeId) -> Rc<Inst> {
        Rc::new(
            self.def
                .insts
                .get(&id)
                .map(|i| i.then(&self.inst))
                .unwrap_or_default(),
        )
    }
}

/// Local variables: a persistent list, so closures can capture it cheaply.
#[derive(Clone, Default)]
pub struct Env<'t>(Option<Rc<EnvNode<'t>>>);

pub struct EnvNode<'t> {
    name: Ident,
    val: Val<'t>,
    next: Env<'t>,
}

impl<'t> Env<'t> {
    fn bind(&self, name: Ident, val: Val<'t>) -> Env<'t> {
        Env(Some(Rc::new(EnvNode {
            name,
            val,
            next: self.clone(),
        })))
    }

    fn get(&self, name: &str) -> Option<&Val<'t>> {
        let mut cur = &self.0;
        while let Some(n) = cur {
            if &*n.name == name {
                return Some(&n.val);
            }
            cur = &n.next.0;
        }
        None
    }
}

pub enum Closure<'t> {
    Lambda {
        params: &'t [Pat],
        ret: Option<&'t TypeExp>,
        body: &'t Expr,
        env: Env<'t>,
        ctx: Ctx<'t>,
    },
    LocalFun {
        f: &'t LetFun,
        env: Env<'t>,
        ctx: Ctx<'t>,
    },
    Def {
        def: &'t CheckedDef,
        inst: Rc<Inst>,
    },
    Intrinsic(Intrinsic),
    /// `(x ⊕)` or `(⊕ y)`.
    Section {
        op: Intrinsic,
        left: Option<Val<'t>>,
        right: Option<Val<'t>>,
    },
    /// `first` then `second`.
    Compose(Val<'t>, Val<'t>),
    Proj(&'t [Ident]),
    Partial(Rc<Closure<'t>>, Vec<Val<'t>>),
}

impl Closure<'_> {
    fn arity(&self) -> usize {
        match self {
            Closure::Lambda { params, .. } => params.len(),
            Closure::LocalFun { f, .. } => f.params.len(),
            Closure::Def { def, .. } => def.target.params.len(),
            Closure::Intrinsic(i) => i.arity(),
            Closure::Section { .. } | Closure::Compose(..) | Closure::Proj(_) => 1,
            Closure::Partial(c, args) => c.arity().saturating_sub(args.len()),
        }
    }
}

/// The flattened types of a function's parameters and results, in source
/// terms, for converting values in and out.
#[derive(Clone, Debug)]
pub struct Signature {
    pub params: Vec<Type>,
    pub result: Type,
}

/// The core types of the leaves of a concrete source type, in order.
pub fn leaf_types(t: &Type) -> Vec<ir::Type> {
    let mut out = Vec::new();
    collect_leaf_types(t, 0, &mut out);
    out
}

fn collect_leaf_types(t: &Type, outer: u32, out: &mut Vec<ir::Type>) {
    let r = outer + t.rank.konst;
    match &t.base {
        Base::Prim(p) => out.push(ir::Type::Prim(*p).array_of(r)),
        Base::Tuple(ts) => ts.iter().for_each(|t| collect_leaf_types(t, r, out)),
        Base::Record(fs) => fs.iter().for_each(|(_, t)| collect_leaf_types(t, r, out)),
        Base::Arrow(..) | Base::Var(_) => {}
    }
}

/// A value of a concrete type built from its leaves (in order).
pub fn structure<'t>(t: &Type, leaves: &mut impl Iterator<Item = Atom>) -> Val<'t> {
    match &t.base {
        Base::Prim(_) => Val::Leaf(leaves.next().expect("enough leaves for the type")),
        Base::Tuple(ts) => Val::Node(ts.iter().map(|t| (None, structure(t, leaves))).collect()),
        Base::Record(fs) => Val::Node(
            fs.iter()
                .map(|(n, t)| (Some(n.clone()), structure(t, leaves)))
                .collect(),
        ),
        Base::Arrow(..) | Base::Var(_) => Val::Node(Vec::new()),
    }
}

pub struct Lower<'t> {
    tenv: &'t TypeEnv,
    pub vars: Vars,
    stms: Vec<Stm>,
    /// Values computed at the REPL that the code refers to, and the
    /// parameters standing for them.
    pub externals: Vec<(ValueId, Vec<Var>)>,
    external_types: &'t dyn Fn(ValueId) -> Option<Type>,
}

fn no_externals(_: ValueId) -> Option<Type> {
    None
}

impl<'t> Lower<'t> {
    pub fn new(tenv: &'t TypeEnv) -> Lower<'t> {
        Lower {
            tenv,
            vars: Vars::new(),
            stms: Vec::new(),
            externals: Vec::new(),
            external_types: &no_externals,
        }
    }

    pub fn with_externals(
        tenv: &'t TypeEnv,
        types: &'t dyn Fn(ValueId) -> Option<Type>,
    ) -> Lower<'t> {
        Lower {
            external_types: types,
            ..Lower::new(tenv)
        }
    }

    // ---- emission -------------------------------------------------------

    fn emit(&mut self, exp: Exp, tys: &[ir::Type], name: &str, span: Span) -> Vec<Var> {
        let pat: Vec<Var> = tys.iter().map(|t| self.vars.fresh(name, *t)).collect();
        self.stms.push(Stm {
            pat: pat.clone(),
            exp,
            span,
        });
        pat
    }

    fn emit1(&mut self, exp: Exp, ty: ir::Type, name: &str, span: Span) -> Atom {
        Atom::Var(self.emit(exp, &[ty], name, span)[0])
    }

    fn ty(&self, a: Atom) -> ir::Type {
        a.ty(&self.vars)
    }

    /// Runs `f` collecting its statements into a separate body.
    fn scoped<R>(&mut self, f: impl FnOnce(&mut Self) -> LResult<R>) -> LResult<(Vec<Stm>, R)> {
        let saved = std::mem::take(&mut self.stms);
        let r = f(self);
        let inner = std::mem::replace(&mut self.stms, saved);
        Ok((inner, r?))
    }

    fn internal(msg: impl Into<String>, span: Span) -> Diagnostic {
        Diagnostic::new(
            crate::diag::Phase::Type,
            format!("internal error in lowering: {}", msg.into()),
        )
        .at(span)
    }

    // ---- values -----------------------------------------------------------

    /// The leaves of a value, materialising reps.
    fn leaves(&mut self, v: &Val<'t>, span: Span) -> LResult<Vec<Atom>> {
        let mut out = Vec::new();
        self.collect_leaves(v, span, &mut out)?;
        Ok(out)
    }

    fn collect_leaves(&mut self, v: &Val<'t>, span: Span, out: &mut Vec<Atom>) -> LResult<()> {
        match v {
            Val::Leaf(a) => out.push(*a),
            Val::Node(cs) => {
                for (_, c) in cs {
                    self.collect_leaves(c, span, out)?;
                }
            }
            Val::Rep(inner) => {
                for a in self.leaves(inner, span)? {
                    let t = self.ty(a).array_of(1);
                    out.push(self.emit1(Exp::Rep(a), t, "rep", span));
                }
            }
            Val::Fun(_) => {
                return Err(Diagnostic::ty(
                    "a function cannot be used as data here (functions cannot be stored, returned from `if`, or be loop parameters)",
                    span,
                ));
            }
        }
        Ok(())
    }

    /// A value with the structure of `template` over new leaves (reps in
    /// the template count as their materialised leaves).
    fn restructure(template: &Val<'t>, leaves: &mut impl Iterator<Item = Atom>) -> Val<'t> {
        match template {
            Val::Leaf(_) => Val::Leaf(leaves.next().expect("enough leaves for the template")),
            Val::Node(cs) => Val::Node(
                cs.iter()
                    .map(|(n, c)| (n.clone(), Self::restructure(c, leaves)))
                    .collect(),
            ),
            Val::Rep(inner) => Self::restructure(inner, leaves),
            Val::Fun(_) => Val::Node(Vec::new()),
        }
    }

    /// Fresh variables with the types of a value's leaves, as a value of
    /// the same structure (for lambda and loop parameters).
    fn fresh_like(&mut self, v: &Val<'t>, name: &str, span: Span) -> LResult<(Val<'t>, Vec<Var>)> {
        let leaves = self.leaves(v, span)?;
        let vars: Vec<Var> = leaves
            .iter()
            .map(|a| {
                let t = self.ty(*a);
                self.vars.fresh(name, t)
            })
            .collect();
        let val = Self::restructure(v, &mut vars.iter().map(|v| Atom::Var(*v)));
        Ok((val, vars))
    }

    fn scalar(&self, v: &Val<'t>, span: Span) -> LResult<Atom> {
        match v {
            Val::Leaf(a) => Ok(*a),
            _ => Err(Self::internal("expected a scalar", span)),
        }
    }

    // ---- entry points -------------------------------------------------

    /// Lowers an entry point (or any monomorphic definition) to a function.
    pub fn entry(&mut self, id: DefId) -> LResult<(Function, Signature)> {
        let def: &'t CheckedDef = self.tenv.def(id);
        let inst = Rc::new(Inst::default());
        let params: Vec<Type> = def.params.iter().map(|t| t.subst(&inst)).collect();
        let mut fparams = Vec::new();
        let mut args = Vec::new();
        for (p, t) in def.target.params.iter().zip(&params) {
            let name = p
                .binders()
                .first()
                .map(|(n, _)| n.to_string())
                .unwrap_or_else(|| "arg".into());
            let vars: Vec<Var> = leaf_types(t)
                .into_iter()
                .map(|lt| self.vars.fresh(name.as_str(), lt))
                .collect();
            fparams.extend(vars.iter().copied());
            args.push(structure(t, &mut vars.iter().map(|v| Atom::Var(*v))));
        }
        let (stms, result) = self.scoped(|l| {
            let v = l.apply_def(def, inst.clone(), args, def.source.span)?;
            l.leaves(&v, def.target.body.span)
        })?;
        let sig = Signature {
            params,
            result: def.ret.subst(&inst),
        };
        Ok((
            Function {
                name: def.name.to_string().into(),
                params: fparams,
                body: Body { stms, result },
            },
            sig,
        ))
    }

    /// Lowers a checked expression (a REPL input) instantiated at `inst`.
    pub fn expression(&mut self, def: &'t CheckedDef, inst: Inst) -> LResult<(Function, Type)> {
        let inst = Rc::new(inst);
        let ctx = Ctx {
            def,
            inst: inst.clone(),
        };
        let (stms, result) = self.scoped(|l| {
            let v = l.expr(&ctx, &Env::default(), &def.target.body)?;
            l.leaves(&v, def.target.body.span)
        })?;
        let mut params = Vec::new();
        for (_, vs) in &self.externals {
            params.extend(vs.iter().copied());
        }
        Ok((
            Function {
                name: "it".into(),
                params,
                body: Body { stms, result },
            },
            def.ret.subst(&inst),
        ))
    }

    // ---- definitions ----------------------------------------------------

    fn apply_def(
        &mut self,
        def: &'t CheckedDef,
        inst: Rc<Inst>,
        args: Vec<Val<'t>>,
        span: Span,
    ) -> LResult<Val<'t>> {
        let ctx = Ctx { def, inst };
        let mut env = Env::default();
        for (p, v) in def.target.params.iter().zip(args) {
            let what = match p.binders().first() {
                Some((n, _)) => format!("parameter `{n}` of `{}`", def.name),
                None => format!("a parameter of `{}`", def.name),
            };
            env = self.bind_pat(&env, p, v, &what)?;
        }
        for tp in &def.target.type_params {
            if let TypeParam::Size(n, s) = tp {
                if env.get(n).is_none() {
                    return Err(Diagnostic::ty(
                        format!(
                            "the size `{n}` of `{}` cannot be determined from its arguments",
                            def.name
                        ),
                        *s,
                    )
                    .with_help("every size parameter must be the size of some parameter's array"));
                }
            }
        }
        let r = self.expr(&ctx, &env, &def.target.body)?;
        if let Some(ret) = &def.target.ret {
            self.check_sizes(
                &env,
                ret,
                &r,
                &format!("the result of `{}`", def.name),
                span,
            )?;
        }
        Ok(r)
    }

    /// Binds a pattern to a value; ascribed sizes are bound when new and
    /// checked when already known.
    fn bind_pat(&mut self, env: &Env<'t>, p: &'t Pat, v: Val<'t>, what: &str) -> LResult<Env<'t>> {
        match p {
            Pat::Id(x, _) => {
                if let Val::Leaf(Atom::Var(var)) = &v {
                    let name = self.vars.name(*var);
                    if name.starts_with('_') {
                        self.vars.set_name(*var, x.clone());
                    }
                }
                Ok(env.bind(x.clone(), v))
            }
            Pat::Wildcard(_) => Ok(env.clone()),
            Pat::Tuple(ps, s) => {
                let Val::Node(cs) = v else {
                    return Err(Self::internal(
                        "a tuple pattern matched against a non-tuple",
                        *s,
                    ));
                };
                let mut env = env.clone();
                for (p, (_, c)) in ps.iter().zip(cs) {
                    env = self.bind_pat(&env, p, c, what)?;
                }
                Ok(env)
            }
            Pat::Record(fs, s) => {
                let Val::Node(cs) = v else {
                    return Err(Self::internal(
                        "a record pattern matched against a non-record",
                        *s,
                    ));
                };
                let mut env = env.clone();
                for (n, p) in fs {
                    let c = cs
                        .iter()
                        .find(|(m, _)| m.as_ref() == Some(n))
                        .map(|(_, c)| c.clone())
                        .ok_or_else(|| Self::internal(format!("missing field {n}"), *s))?;
                    env = match p {
                        Some(p) => self.bind_pat(&env, p, c, what)?,
                        None => env.bind(n.clone(), c),
                    };
                }
                Ok(env)
            }
            Pat::Ascribed(inner, te, s) => {
                let env = self.bind_sizes(env, te, &v, 0, what, *s)?;
                self.bind_pat(&env, inner, v, what)
            }
        }
    }

    /// The array whose dimensions stand for a value's (the first leaf).
    fn first_leaf(v: &Val<'t>) -> Option<Atom> {
        match v {
            Val::Leaf(a) => Some(*a),
            Val::Node(cs) => cs.iter().find_map(|(_, c)| Self::first_leaf(c)),
            Val::Rep(_) | Val::Fun(_) => None,
        }
    }

    /// Walks an annotation `[n][m]t` against a value: binds unknown size
    /// names, checks known ones and constants.
    fn bind_sizes(
        &mut self,
        env: &Env<'t>,
        te: &'t TypeExp,
        v: &Val<'t>,
        depth: u32,
        what: &str,
        span: Span,
    ) -> LResult<Env<'t>> {
        match te {
            TypeExp::Array(dim, inner, _) => {
                let mut env = env.clone();
                if let Some(Atom::Var(arr)) = Self::first_leaf(v) {
                    let expected = match dim {
                        Dim::Any => None,
                        Dim::Const(k) => Some(Atom::i64(*k as i64)),
                        Dim::Named(n) => match env.get(n) {
                            Some(Val::Leaf(a)) => Some(*a),
                            _ => {
                                let size = self.emit1(
                                    Exp::Size(arr, depth),
                                    ir::Type::Prim(PrimType::I64),
                                    n,
                                    span,
                                );
                                env = env.bind(n.clone(), Val::Leaf(size));
                                None
                            }
                        },
                    };
                    if let Some(e) = expected {
                        let mut exp = vec![None; self.vars.ty(arr).rank() as usize];
                        if let Some(slot) = exp.get_mut(depth as usize) {
                            *slot = Some(e);
                        }
                        self.emit(
                            Exp::CheckShape {
                                array: arr,
                                expected: exp,
                                what: what.to_string(),
                            },
                            &[],
                            "check",
                            span,
                        );
                    }
                }
                self.bind_sizes(&env, inner, v, depth + 1, what, span)
            }
            TypeExp::Tuple(ts, _) => {
                let mut env = env.clone();
                if let Val::Node(cs) = v {
                    for (t, (_, c)) in ts.iter().zip(cs) {
                        env = self.bind_sizes(&env, t, c, depth, what, span)?;
                    }
                }
                Ok(env)
            }
            TypeExp::Record(fs, _) => {
                let mut env = env.clone();
                if let Val::Node(cs) = v {
                    for (n, t) in fs {
                        if let Some((_, c)) = cs.iter().find(|(m, _)| m.as_ref() == Some(n)) {
                            env = self.bind_sizes(&env, t, c, depth, what, span)?;
                        }
                    }
                }
                Ok(env)
            }
            TypeExp::Unique(t, _) => self.bind_sizes(env, t, v, depth, what, span),
            _ => Ok(env.clone()),
        }
    }

    /// Checks an annotation against a value without binding.
    fn check_sizes(
        &mut self,
        env: &Env<'t>,
        te: &'t TypeExp,
        v: &Val<'t>,
        what: &str,
        span: Span,
    ) -> LResult<()> {
        self.bind_sizes(env, te, v, 0, what, span).map(|_| ())
    }

    // ---- expressions ------------------------------------------------------

    fn expr(&mut self, ctx: &Ctx<'t>, env: &Env<'t>, e: &'t Expr) -> LResult<Val<'t>> {
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
            ExprKind::OpValue(op) => Ok(Self::fun(Closure::Intrinsic(Intrinsic::Operator(
                op.clone(),
            )))),
            ExprKind::OpSection { op, left, right } => {
                let left = match left {
                    Some(l) => Some(self.expr(ctx, env, l)?),
                    None => None,
                };
                let right = match right {
                    Some(r) => Some(self.expr(ctx, env, r)?),
                    None => None,
                };
                Ok(Self::fun(Closure::Section {
                    op: Intrinsic::Operator(op.clone()),
                    left,
                    right,
                }))
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
                for f in fields {
                    match f {
                        RecordField::Field(n, x) => {
                            cs.push((Some(n.clone()), self.expr(ctx, env, x)?))
                        }
                        RecordField::Pun(n, s) => {
                            let v = env
                                .get(n)
                                .cloned()
                                .ok_or_else(|| Self::internal(format!("unbound {n}"), *s))?;
                            cs.push((Some(n.clone()), v));
                        }
                    }
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
                let env = self.bind_pat(env, p, val, "the let-bound value")?;
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
            ExprKind::LetUpdate {
                name,
                name_span,
                indices,
                value,
                body,
            } => {
                let arr = env
                    .get(name)
                    .cloned()
                    .ok_or_else(|| Self::internal(format!("unbound {name}"), *name_span))?;
                let new = self.update(ctx, env, arr, indices, value, e.span)?;
                let env = env.bind(name.clone(), new);
                self.expr(ctx, &env, body)
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
                self.check_sizes(env, te, &v, "the annotated expression", e.span)?;
                Ok(v)
            }
            ExprKind::Attr(attr, x) => {
                if let (Some(k), ExprKind::Loop(l)) = (stripmine(attr), &x.kind) {
                    return self.loop_(ctx, env, l, Some(k), x.span);
                }
                self.expr(ctx, env, x)
            }
        }
    }

    fn fun(c: Closure<'t>) -> Val<'t> {
        Val::Fun(Rc::new(c))
    }

    fn var(
        &mut self,
        ctx: &Ctx<'t>,
        env: &Env<'t>,
        id: NodeId,
        q: &QualName,
        span: Span,
    ) -> LResult<Val<'t>> {
        let resolved = ctx.def.resolved.get(&id);
        if q.qual.is_none() && resolved.is_none() {
            if let Some(v) = env.get(&q.name) {
                return Ok(v.clone());
            }
        }
        let kind = match resolved {
            Some(k) => k.clone(),
            None => match intrinsics::global(&q.name) {
                Some((i, _)) => GlobalKind::Intrinsic(i),
                None => return Err(Self::internal(format!("unresolved name {q}"), span)),
            },
        };
        self.global(ctx, id, kind, span)
    }

    fn global(
        &mut self,
        ctx: &Ctx<'t>,
        id: NodeId,
        kind: GlobalKind,
        span: Span,
    ) -> LResult<Val<'t>> {
        match kind {
            GlobalKind::Intrinsic(Intrinsic::Const(s)) => Ok(Val::Leaf(Atom::Const(s))),
            GlobalKind::Intrinsic(i) => Ok(Self::fun(Closure::Intrinsic(i))),
            GlobalKind::Def(d) => {
                let def: &'t CheckedDef = self.tenv.def(d);
                let inst = ctx.inst_of(id);
                if def.target.params.is_empty() {
                    // A constant: inlined at each use.
                    self.apply_def(def, inst, Vec::new(), span)
                } else {
                    Ok(Self::fun(Closure::Def { def, inst }))
                }
            }
            GlobalKind::Value(v) => self.external(v, span),
        }
    }

    fn external(&mut self, id: ValueId, span: Span) -> LResult<Val<'t>> {
        let t =
            (self.external_types)(id).ok_or_else(|| Self::internal("unknown REPL value", span))?;
        let vars = match self.externals.iter().find(|(v, _)| *v == id) {
            Some((_, vs)) => vs.clone(),
            None => {
                let vs: Vec<Var> = leaf_types(&t)
                    .into_iter()
                    .map(|lt| self.vars.fresh("_val", lt))
                    .collect();
                self.externals.push((id, vs.clone()));
                vs
            }
        };
        Ok(structure(&t, &mut vars.into_iter().map(Atom::Var)))
    }

    fn project(&mut self, v: &Val<'t>, f: &Ident, span: Span) -> LResult<Val<'t>> {
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
            crate::types::ty::Rank::konst(t.rank.konst.saturating_sub(1)),
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
            out.push(self.emit1(Exp::ArrayLit(col, *lt), lt.array_of(1), "_arr", e.span));
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
        let (then_stms, (tv, tres)) = self.scoped(|l| {
            let v = l.expr(ctx, env, t)?;
            let r = l.leaves(&v, t.span)?;
            Ok((v, r))
        })?;
        let (else_stms, eres) = self.scoped(|l| {
            let v = l.expr(ctx, env, f)?;
            l.leaves(&v, f.span)
        })?;
        let tys: Vec<ir::Type> = tres.iter().map(|a| self.ty(*a)).collect();
        let out = self.emit(
            Exp::If {
                cond,
                then_body: Body {
                    stms: then_stms,
                    result: tres,
                },
                else_body: Body {
                    stms: else_stms,
                    result: eres,
                },
            },
            &tys,
            "_if",
            span,
        );
        Ok(Self::restructure(&tv, &mut out.into_iter().map(Atom::Var)))
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
        let env_p = self.bind_pat(env, &l.pat, template.clone(), "the loop parameter")?;
        // The loop index to bind in the body (name, variable, its source
        // type), and the array a `for x in xs` walks.
        let mut index: Option<(Ident, Var, PrimType)> = None;
        let mut walk: Option<Val<'t>> = None;
        let form = match &l.form {
            LoopForm_::For(i, _, bound) => {
                let bv = self.expr(ctx, env, bound)?;
                let b = self.scalar(&bv, bound.span)?;
                let bt = self.ty(b).elem();
                let b64 = self.i64_atom(b, span);
                let iv = self
                    .vars
                    .fresh(i.to_string(), ir::Type::Prim(PrimType::I64));
                index = Some((i.clone(), iv, bt));
                LoopForm::For { i: iv, bound: b64 }
            }
            LoopForm_::ForIn(_, xs) => {
                let xv = self.expr(ctx, env, xs)?;
                let first = Self::first_leaf(&xv)
                    .and_then(|a| a.var())
                    .ok_or_else(|| Self::internal("for-in over a non-array", xs.span))?;
                let n = self.emit1(
                    Exp::Size(first, 0),
                    ir::Type::Prim(PrimType::I64),
                    "n",
                    span,
                );
                let iv = self.vars.fresh("i", ir::Type::Prim(PrimType::I64));
                walk = Some(xv);
                LoopForm::For { i: iv, bound: n }
            }
            LoopForm_::While(c) => {
                let (stms, r) = self.scoped(|lw| {
                    let cv = lw.expr(ctx, &env_p, c)?;
                    lw.scalar(&cv, c.span)
                })?;
                LoopForm::While {
                    cond: Body {
                        stms,
                        result: vec![r],
                    },
                }
            }
        };
        let (body_stms, bres) = self.scoped(|lw| {
            let mut benv = env_p.clone();
            if let Some((name, iv, ty)) = &index {
                let ia = if *ty == PrimType::I64 {
                    Atom::Var(*iv)
                } else {
                    lw.emit1(
                        Exp::Convert(*ty, Atom::Var(*iv)),
                        ir::Type::Prim(*ty),
                        name,
                        span,
                    )
                };
                benv = benv.bind(name.clone(), Val::Leaf(ia));
            }
            if let (Some(xv), LoopForm::For { i, .. }, LoopForm_::ForIn(p, _)) =
                (&walk, &form, &l.form)
            {
                let elem = lw.index(xv, &[DimIndex::Fix(Atom::Var(*i))], span)?;
                benv = lw.bind_pat(&benv, p, elem, "the loop element")?;
            }
            let v = lw.expr(ctx, &benv, &l.body)?;
            lw.leaves(&v, l.body.span)
        })?;
        let tys: Vec<ir::Type> = params.iter().map(|p| self.vars.ty(*p)).collect();
        let out = self.emit(
            Exp::Loop {
                params: params.iter().copied().zip(init_atoms).collect(),
                form,
                body: Body {
                    stms: body_stms,
                    result: bres,
                },
                stripmine,
            },
            &tys,
            &pname,
            span,
        );
        Ok(Self::restructure(
            &template,
            &mut out.into_iter().map(Atom::Var),
        ))
    }

    /// `loop p for ...` starts from the variables the pattern names.
    fn pattern_value(env: &Env<'t>, p: &Pat) -> Option<Val<'t>> {
        match p {
            Pat::Id(x, _) => env.get(x).cloned(),
            Pat::Tuple(ps, _) => ps
                .iter()
                .map(|p| Self::pattern_value(env, p).map(|v| (None, v)))
                .collect::<Option<Vec<_>>>()
                .map(Val::Node),
            Pat::Record(fs, _) => {
                let mut cs = Vec::new();
                for (n, p) in fs {
                    let v = match p {
                        Some(p) => Self::pattern_value(env, p)?,
                        None => env.get(n).cloned()?,
                    };
                    cs.push((Some(n.clone()), v));
                }
                cs.sort_by(|a, b| a.0.cmp(&b.0));
                Some(Val::Node(cs))
            }
            Pat::Ascribed(inner, _, _) => Self::pattern_value(env, inner),
            Pat::Wildcard(_) => None,
        }
    }

    fn i64_atom(&mut self, a: Atom, span: Span) -> Atom {
        match a {
            Atom::Const(s) => Atom::Const(crate::prim::convert(s, PrimType::I64)),
            Atom::Var(_) if self.ty(a).elem() == PrimType::I64 => a,
            _ => self.emit1(
                Exp::Convert(PrimType::I64, a),
                ir::Type::Prim(PrimType::I64),
                "_n",
                span,
            ),
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
                    DimIndex::Fix(self.scalar(&v, i.span)?)
                }
                IndexExp::Slice { start, end, stride } => {
                    let part = |x: &'t Option<Box<Expr>>, l: &mut Self| -> LResult<Option<Atom>> {
                        match x {
                            Some(x) => {
                                let v = l.expr(ctx, env, x)?;
                                Ok(Some(l.scalar(&v, x.span)?))
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
                let t = self.vars.ty(*arr);
                let fixed = dims
                    .iter()
                    .filter(|d| matches!(d, DimIndex::Fix(_)))
                    .count() as u32;
                let rt = t.peel(fixed);
                Ok(Val::Leaf(self.emit1(
                    Exp::Index(*arr, dims.to_vec()),
                    rt,
                    "_elem",
                    span,
                )))
            }
            Val::Node(cs) => {
                let mut out = Vec::new();
                for (n, c) in cs {
                    out.push((n.clone(), self.index(c, dims, span)?));
                }
                Ok(Val::Node(out))
            }
            Val::Rep(inner) => match &dims[0] {
                DimIndex::Fix(_) => self.index(inner, &dims[1..], span),
                DimIndex::Slice { .. } => {
                    Ok(Val::Rep(Box::new(self.index(inner, &dims[1..], span)?)))
                }
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
            let t = self.vars.ty(av);
            out.push(self.emit1(
                Exp::Update(av, dims.clone(), v),
                t,
                self.vars.name(av).to_string().as_str(),
                span,
            ));
        }
        Ok(Self::restructure(&arr, &mut out.into_iter()))
    }

    // ---- application --------------------------------------------------

    fn spine(
        &mut self,
        ctx: &Ctx<'t>,
        env: &Env<'t>,
        e: &'t Expr,
        sp: spine::Spine<'t>,
    ) -> LResult<Val<'t>> {
        // `&&` and `||` short-circuit.
        if let Head::Op(op @ (BinOpKind::And | BinOpKind::Or)) = sp.head {
            if sp.args.len() == 2 {
                let lv = self.expr(ctx, env, sp.args[0])?;
                let l = self.scalar(&lv, sp.args[0].span)?;
                return self.short_circuit(
                    *op == BinOpKind::And,
                    l,
                    |lw| {
                        let rv = lw.expr(ctx, env, sp.args[1])?;
                        lw.scalar(&rv, sp.args[1].span)
                    },
                    e.span,
                );
            }
        }
        let head = match sp.head {
            Head::Expr(h) => self.expr(ctx, env, h)?,
            Head::Op(op) => Self::fun(Closure::Intrinsic(Intrinsic::Operator(op.clone()))),
            Head::Backtick(q) => match ctx.def.resolved.get(&e.id) {
                Some(k) => self.global(ctx, e.id, k.clone(), e.span)?,
                None => env
                    .get(&q.name)
                    .cloned()
                    .ok_or_else(|| Self::internal(format!("unbound {q}"), e.span))?,
            },
            Head::Neg => Self::fun(Closure::Intrinsic(Intrinsic::Neg)),
            Head::Not => Self::fun(Closure::Intrinsic(Intrinsic::Not)),
        };
        let mut args = Vec::new();
        for a in &sp.args {
            args.push(self.expr(ctx, env, a)?);
        }
        self.apply(&head, args, e.span)
    }

    fn short_circuit(
        &mut self,
        and: bool,
        l: Atom,
        r: impl FnOnce(&mut Self) -> LResult<Atom>,
        span: Span,
    ) -> LResult<Val<'t>> {
        if let Atom::Const(Scalar::Bool(b)) = l {
            return if b == and {
                Ok(Val::Leaf(r(self)?))
            } else {
                Ok(Val::Leaf(l))
            };
        }
        let (stms, ra) = self.scoped(r)?;
        let evaluated = Body {
            stms,
            result: vec![ra],
        };
        let constant = Body {
            stms: Vec::new(),
            result: vec![Atom::Const(Scalar::Bool(!and))],
        };
        let (then_body, else_body) = if and {
            (evaluated, constant)
        } else {
            (constant, evaluated)
        };
        Ok(Val::Leaf(self.emit1(
            Exp::If {
                cond: l,
                then_body,
                else_body,
            },
            ir::Type::Prim(PrimType::Bool),
            "_b",
            span,
        )))
    }

    pub fn apply(&mut self, f: &Val<'t>, args: Vec<Val<'t>>, span: Span) -> LResult<Val<'t>> {
        if args.is_empty() {
            return Ok(f.clone());
        }
        let Val::Fun(c) = f else {
            return Err(Self::internal("applying a non-function", span));
        };
        let (c, args) = match &**c {
            Closure::Partial(g, prev) => {
                let mut all = prev.clone();
                all.extend(args);
                (g.clone(), all)
            }
            _ => (c.clone(), args),
        };
        let arity = c.arity();
        if args.len() < arity {
            return Ok(Self::fun(Closure::Partial(c, args)));
        }
        let mut args = args;
        let rest = args.split_off(arity);
        let r = self.apply_closure(&c, args, span)?;
        if rest.is_empty() {
            Ok(r)
        } else {
            self.apply(&r, rest, span)
        }
    }

    fn apply_closure(
        &mut self,
        c: &Rc<Closure<'t>>,
        args: Vec<Val<'t>>,
        span: Span,
    ) -> LResult<Val<'t>> {
        match &**c {
            Closure::Lambda {
                params,
                ret,
                body,
                env,
                ctx,
            } => {
                let mut env = env.clone();
                for (p, v) in params.iter().zip(args) {
                    env = self.bind_pat(&env, p, v, "a lambda parameter")?;
                }
                let r = self.expr(ctx, &env, body)?;
                if let Some(ret) = ret {
                    self.check_sizes(&env, ret, &r, "the lambda's result", span)?;
                }
                Ok(r)
            }
            Closure::LocalFun { f, env, ctx } => {
                let mut env = env.clone();
                for (p, v) in f.params.iter().zip(args) {
                    let what = match p.binders().first() {
                        Some((n, _)) => format!("parameter `{n}` of `{}`", f.name),
                        None => format!("a parameter of `{}`", f.name),
                    };
                    env = self.bind_pat(&env, p, v, &what)?;
                }
                let r = self.expr(ctx, &env, &f.value)?;
                if let Some(ret) = &f.ret {
                    self.check_sizes(&env, ret, &r, &format!("the result of `{}`", f.name), span)?;
                }
                Ok(r)
            }
            Closure::Def { def, inst } => self.apply_def(def, inst.clone(), args, span),
            Closure::Intrinsic(i) => self.intrinsic(i, args, span),
            Closure::Section { op, left, right } => {
                let x = args.into_iter().next().expect("arity 1");
                let (a, b) = match (left, right) {
                    (Some(l), _) => (l.clone(), x),
                    (None, Some(r)) => (x, r.clone()),
                    (None, None) => return Err(Self::internal("empty section", span)),
                };
                self.intrinsic(op, vec![a, b], span)
            }
            Closure::Compose(first, second) => {
                let x = args.into_iter().next().expect("arity 1");
                let y = self.apply(first, vec![x], span)?;
                self.apply(second, vec![y], span)
            }
            Closure::Proj(fields) => {
                let mut v = args.into_iter().next().expect("arity 1");
                for f in *fields {
                    v = self.project(&v, f, span)?;
                }
                Ok(v)
            }
            Closure::Partial(..) => unreachable!("partial applications are unwrapped in apply"),
        }
    }

    /// A lambda from a function value applied to parameters shaped like
    /// `templates`; returns the lambda and the value its body produced (a
    /// template for the results).
    fn lambda(
        &mut self,
        f: &Val<'t>,
        templates: &[Val<'t>],
        span: Span,
    ) -> LResult<(Lambda, Val<'t>)> {
        let mut params = Vec::new();
        let mut args = Vec::new();
        for t in templates {
            let (v, ps) = self.fresh_like(t, "_x", span)?;
            params.extend(ps);
            args.push(v);
        }
        let (stms, (result, v)) = self.scoped(|l| {
            let v = l.apply(f, args, span)?;
            Ok((l.leaves(&v, span)?, v))
        })?;
        Ok((
            Lambda {
                params,
                body: Body { stms, result },
            },
            v,
        ))
    }

    /// The element of each array leaf of a map argument becomes a lambda
    /// parameter; reps are fused (their value is simply used).
    fn map_elem(
        &mut self,
        v: &Val<'t>,
        params: &mut Vec<Var>,
        arrays: &mut Vec<Var>,
        span: Span,
    ) -> LResult<Val<'t>> {
        match v {
            Val::Leaf(Atom::Var(a)) if self.vars.ty(*a).rank() > 0 => {
                let et = self.vars.ty(*a).peel(1);
                let name = format!("{}_e", self.vars.name(*a).trim_start_matches('_'));
                let p = self.vars.fresh(name, et);
                params.push(p);
                arrays.push(*a);
                Ok(Val::Leaf(Atom::Var(p)))
            }
            Val::Leaf(_) => Err(Self::internal("mapping over a scalar", span)),
            Val::Node(cs) => {
                let mut out = Vec::new();
                for (n, c) in cs {
                    out.push((n.clone(), self.map_elem(c, params, arrays, span)?));
                }
                Ok(Val::Node(out))
            }
            Val::Rep(inner) => Ok((**inner).clone()),
            Val::Fun(_) => Err(Self::internal("mapping over a function", span)),
        }
    }

    fn map(&mut self, f: &Val<'t>, arrays_in: &[Val<'t>], span: Span) -> LResult<Val<'t>> {
        let mut params = Vec::new();
        let mut arrays = Vec::new();
        let mut elems = Vec::new();
        for a in arrays_in {
            elems.push(self.map_elem(a, &mut params, &mut arrays, span)?);
        }
        if arrays.is_empty() {
            // Every argument is a rep: so is the result.
            let r = self.apply(f, elems, span)?;
            return Ok(Val::Rep(Box::new(r)));
        }
        self.emit_map(params, arrays, "_map", span, |l| l.apply(f, elems, span))
    }

    /// A `map` over `arrays` whose lambda (taking `params`) is the code
    /// `body` lowers; the result has the structure of the body's value.
    fn emit_map(
        &mut self,
        params: Vec<Var>,
        arrays: Vec<Var>,
        name: &str,
        span: Span,
        body: impl FnOnce(&mut Self) -> LResult<Val<'t>>,
    ) -> LResult<Val<'t>> {
        let (stms, (result, template)) = self.scoped(|l| {
            let v = body(l)?;
            Ok((l.leaves(&v, span)?, v))
        })?;
        let tys: Vec<ir::Type> = result.iter().map(|a| self.ty(*a).array_of(1)).collect();
        let out = self.emit(
            Exp::Map {
                lam: Lambda {
                    params,
                    body: Body { stms, result },
                },
                args: arrays,
            },
            &tys,
            name,
            span,
        );
        Ok(Self::restructure(
            &template,
            &mut out.into_iter().map(Atom::Var),
        ))
    }

    /// An operator for reduce/scan/hist from a binary function value.
    fn operator(
        &mut self,
        op: &Val<'t>,
        ne: &Val<'t>,
        commutative: bool,
        span: Span,
    ) -> LResult<(Operator, Val<'t>)> {
        let neutral = self.leaves(ne, span)?;
        let template = Self::restructure(ne, &mut neutral.iter().copied());
        let (lam, _) = self.lambda(op, &[template.clone(), template.clone()], span)?;
        Ok((
            Operator {
                lam,
                neutral,
                commutative,
            },
            template,
        ))
    }

    fn each_leaf(
        &mut self,
        v: &Val<'t>,
        span: Span,
        mut f: impl FnMut(&mut Self, Var) -> LResult<Atom>,
    ) -> LResult<Val<'t>> {
        let leaves = self.leaves(v, span)?;
        let mut out = Vec::new();
        for a in leaves {
            let Atom::Var(x) = a else {
                return Err(Self::internal("an array operation on a constant", span));
            };
            out.push(f(self, x)?);
        }
        Ok(Self::restructure(v, &mut out.into_iter()))
    }

    fn intrinsic(&mut self, i: &Intrinsic, args: Vec<Val<'t>>, span: Span) -> LResult<Val<'t>> {
        let i64t = ir::Type::Prim(PrimType::I64);
        match i {
            Intrinsic::Map(_) => self.map(&args[0], &args[1..], span),
            Intrinsic::Rep => Ok(Val::Rep(Box::new(args[0].clone()))),
            Intrinsic::Reduce { commutative } => {
                let (op, template) = self.operator(&args[0], &args[1], *commutative, span)?;
                let xs = self.leaves(&args[2], span)?;
                let arrays: Vec<Var> = xs.iter().filter_map(|a| a.var()).collect();
                let tys: Vec<ir::Type> = op.neutral.iter().map(|a| self.ty(*a)).collect();
                let out = self.emit(
                    Exp::Reduce {
                        op,
                        pre: None,
                        args: arrays,
                    },
                    &tys,
                    "_red",
                    span,
                );
                Ok(Self::restructure(
                    &template,
                    &mut out.into_iter().map(Atom::Var),
                ))
            }
            Intrinsic::Scan => {
                let (op, template) = self.operator(&args[0], &args[1], false, span)?;
                let xs = self.leaves(&args[2], span)?;
                let arrays: Vec<Var> = xs.iter().filter_map(|a| a.var()).collect();
                let tys: Vec<ir::Type> =
                    op.neutral.iter().map(|a| self.ty(*a).array_of(1)).collect();
                let out = self.emit(
                    Exp::Scan {
                        op,
                        pre: None,
                        args: arrays,
                    },
                    &tys,
                    "_scan",
                    span,
                );
                Ok(Self::restructure(
                    &template,
                    &mut out.into_iter().map(Atom::Var),
                ))
            }
            Intrinsic::Hist | Intrinsic::ReduceByIndex => {
                let (dest, op, ne, is, vs) = if *i == Intrinsic::Hist {
                    let k = self.scalar(&args[2], span)?;
                    let dest = self.each_replicate(k, &args[1], span)?;
                    (dest, &args[0], &args[1], &args[3], &args[4])
                } else {
                    (args[0].clone(), &args[1], &args[2], &args[3], &args[4])
                };
                let (op, _) = self.operator(op, ne, true, span)?;
                let dest_leaves: Vec<Var> = self
                    .leaves(&dest, span)?
                    .iter()
                    .filter_map(|a| a.var())
                    .collect();
                let indices = self.leaves(is, span)?[0]
                    .var()
                    .ok_or_else(|| Self::internal("hist indices", span))?;
                let values: Vec<Var> = self
                    .leaves(vs, span)?
                    .iter()
                    .filter_map(|a| a.var())
                    .collect();
                let tys: Vec<ir::Type> = dest_leaves.iter().map(|v| self.vars.ty(*v)).collect();
                let out = self.emit(
                    Exp::Hist {
                        op,
                        dest: dest_leaves,
                        indices,
                        values,
                    },
                    &tys,
                    "_hist",
                    span,
                );
                Ok(Self::restructure(
                    &dest,
                    &mut out.into_iter().map(Atom::Var),
                ))
            }
            Intrinsic::Scatter | Intrinsic::Scatter2d => {
                let dest = &args[0];
                let dest_leaves: Vec<Var> = self
                    .leaves(dest, span)?
                    .iter()
                    .filter_map(|a| a.var())
                    .collect();
                let indices: Vec<Var> = self
                    .leaves(&args[1], span)?
                    .iter()
                    .filter_map(|a| a.var())
                    .collect();
                let values: Vec<Var> = self
                    .leaves(&args[2], span)?
                    .iter()
                    .filter_map(|a| a.var())
                    .collect();
                let tys: Vec<ir::Type> = dest_leaves.iter().map(|v| self.vars.ty(*v)).collect();
                let out = self.emit(
                    Exp::Scatter {
                        dest: dest_leaves,
                        indices,
                        values,
                    },
                    &tys,
                    "_scatter",
                    span,
                );
                Ok(Self::restructure(dest, &mut out.into_iter().map(Atom::Var)))
            }
            Intrinsic::Iota => {
                let n = self.scalar(&args[0], span)?;
                Ok(Val::Leaf(self.emit1(
                    Exp::Iota(n),
                    ir::Type::Array(PrimType::I64, 1),
                    "_iota",
                    span,
                )))
            }
            Intrinsic::Replicate => {
                let n = self.scalar(&args[0], span)?;
                self.each_replicate(n, &args[1], span)
            }
            Intrinsic::Length => match Self::first_leaf(&args[0]) {
                Some(Atom::Var(a)) => {
                    Ok(Val::Leaf(self.emit1(Exp::Size(a, 0), i64t, "_len", span)))
                }
                _ => {
                    let leaves = self.leaves(&args[0], span)?;
                    match leaves.first().and_then(|a| a.var()) {
                        Some(a) => Ok(Val::Leaf(self.emit1(Exp::Size(a, 0), i64t, "_len", span))),
                        None => Err(Diagnostic::ty(
                            "the length of an array of empty tuples is not known",
                            span,
                        )),
                    }
                }
            },
            Intrinsic::Zip(_) => {
                let first = args.iter().find_map(Self::first_leaf).and_then(|a| a.var());
                if let Some(f) = first {
                    let n = self.emit1(Exp::Size(f, 0), i64t, "_n", span);
                    for (k, a) in args.iter().enumerate().skip(1) {
                        if let Some(Atom::Var(x)) = Self::first_leaf(a) {
                            let mut expected = vec![None; self.vars.ty(x).rank() as usize];
                            expected[0] = Some(n);
                            self.emit(
                                Exp::CheckShape {
                                    array: x,
                                    expected,
                                    what: format!("argument {} of zip", k + 1),
                                },
                                &[],
                                "check",
                                span,
                            );
                        }
                    }
                }
                Ok(Val::Node(args.into_iter().map(|a| (None, a)).collect()))
            }
            Intrinsic::Unzip(_) => match &args[0] {
                Val::Node(cs) => Ok(Val::Node(
                    cs.iter().map(|(_, c)| (None, c.clone())).collect(),
                )),
                Val::Rep(inner) => match &**inner {
                    Val::Node(cs) => Ok(Val::Node(
                        cs.iter()
                            .map(|(_, c)| (None, Val::Rep(Box::new(c.clone()))))
                            .collect(),
                    )),
                    _ => Err(Self::internal("unzip of a non-tuple", span)),
                },
                _ => Err(Self::internal("unzip of a non-tuple", span)),
            },
            Intrinsic::Transpose => self.each_leaf(&args[0], span, |l, x| {
                let t = l.vars.ty(x);
                let mut perm: Vec<u32> = (0..t.rank()).collect();
                perm.swap(0, 1);
                Ok(l.emit1(Exp::Rearrange(perm, x), t, "_tr", span))
            }),
            Intrinsic::Flatten => self.each_leaf(&args[0], span, |l, x| {
                let t = l.vars.ty(x);
                let n = l.emit1(Exp::Size(x, 0), i64t, "_n", span);
                let m = l.emit1(Exp::Size(x, 1), i64t, "_m", span);
                let nm = l.emit1(Exp::BinOp(BinOp::Mul, n, m), i64t, "_nm", span);
                let mut shape = vec![nm];
                for d in 2..t.rank() {
                    shape.push(l.emit1(Exp::Size(x, d), i64t, "_d", span));
                }
                Ok(l.emit1(Exp::Reshape(shape, x), t.peel(1), "_flat", span))
            }),
            Intrinsic::Unflatten => {
                let n = self.scalar(&args[0], span)?;
                let m = self.scalar(&args[1], span)?;
                self.each_leaf(&args[2], span, |l, x| {
                    let t = l.vars.ty(x);
                    let mut shape = vec![n, m];
                    for d in 1..t.rank() {
                        shape.push(l.emit1(Exp::Size(x, d), i64t, "_d", span));
                    }
                    Ok(l.emit1(Exp::Reshape(shape, x), t.array_of(1), "_unflat", span))
                })
            }
            Intrinsic::Concat | Intrinsic::Operator(BinOpKind::Concat) => {
                let a = self.leaves(&args[0], span)?;
                let b = self.leaves(&args[1], span)?;
                let mut out = Vec::new();
                for (x, y) in a.into_iter().zip(b) {
                    let (Some(x), Some(y)) = (x.var(), y.var()) else {
                        return Err(Self::internal("concatenating constants", span));
                    };
                    let t = self.vars.ty(x);
                    out.push(self.emit1(Exp::Concat(vec![x, y]), t, "_cat", span));
                }
                Ok(Self::restructure(&args[0], &mut out.into_iter()))
            }
            Intrinsic::Rotate => {
                let r = self.scalar(&args[0], span)?;
                self.each_leaf(&args[1], span, |l, x| {
                    let t = l.vars.ty(x);
                    Ok(l.emit1(Exp::Rotate(r, x), t, "_rot", span))
                })
            }
            Intrinsic::Reverse => self.each_leaf(&args[0], span, |l, x| {
                let t = l.vars.ty(x);
                Ok(l.emit1(Exp::Reverse(x), t, "_rev", span))
            }),
            Intrinsic::Copy => {
                let leaves = self.leaves(&args[0], span)?;
                let mut out = Vec::new();
                for a in leaves {
                    out.push(match a {
                        Atom::Var(x) if self.vars.ty(x).rank() > 0 => {
                            let t = self.vars.ty(x);
                            self.emit1(Exp::Copy(x), t, "_copy", span)
                        }
                        other => other,
                    });
                }
                Ok(Self::restructure(&args[0], &mut out.into_iter()))
            }
            Intrinsic::Assert => {
                let c = self.scalar(&args[0], span)?;
                self.emit(
                    Exp::Assert {
                        cond: c,
                        message: "assert".into(),
                    },
                    &[],
                    "assert",
                    span,
                );
                Ok(args[1].clone())
            }
            Intrinsic::Jvp | Intrinsic::Jvp2 | Intrinsic::Vjp | Intrinsic::Vjp2 => {
                self.ad(i, &args, span)
            }
            Intrinsic::Jmp | Intrinsic::Mjp => self.ad_many(i, &args, span),
            Intrinsic::WithVjp => self.with_vjp(&args, span),
            Intrinsic::Operator(op) => self.operator_app(op, &args, span),
            Intrinsic::Neg => self.unop(UnOp::Neg, &args[0], span),
            Intrinsic::Not => self.unop(UnOp::Not, &args[0], span),
            Intrinsic::Bin(_, op) => self.binop(*op, &args[0], &args[1], span),
            Intrinsic::Un(_, op) => self.unop(*op, &args[0], span),
            Intrinsic::Convert { to, .. } => {
                let a = self.scalar(&args[0], span)?;
                Ok(Val::Leaf(match a {
                    Atom::Const(s) => Atom::Const(crate::prim::convert(s, *to)),
                    _ => self.emit1(Exp::Convert(*to, a), ir::Type::Prim(*to), "_conv", span),
                }))
            }
            Intrinsic::Const(s) => Ok(Val::Leaf(Atom::Const(*s))),
        }
    }

    fn each_replicate(&mut self, n: Atom, v: &Val<'t>, span: Span) -> LResult<Val<'t>> {
        let leaves = self.leaves(v, span)?;
        let mut out = Vec::new();
        for a in leaves {
            let t = self.ty(a).array_of(1);
            out.push(self.emit1(Exp::Replicate(n, a), t, "_rep", span));
        }
        Ok(Self::restructure(v, &mut out.into_iter()))
    }

    fn binop(&mut self, op: BinOp, a: &Val<'t>, b: &Val<'t>, span: Span) -> LResult<Val<'t>> {
        let x = self.scalar(a, span)?;
        let y = self.scalar(b, span)?;
        let t = if op.is_comparison() {
            ir::Type::Prim(PrimType::Bool)
        } else {
            self.ty(x)
        };
        Ok(Val::Leaf(self.emit1(Exp::BinOp(op, x, y), t, "_t", span)))
    }

    fn unop(&mut self, op: UnOp, a: &Val<'t>, span: Span) -> LResult<Val<'t>> {
        let x = self.scalar(a, span)?;
        let t = ir::Type::Prim(op.result_type(self.ty(x).elem()));
        Ok(Val::Leaf(self.emit1(Exp::UnOp(op, x), t, "_t", span)))
    }

    fn operator_app(&mut self, op: &BinOpKind, args: &[Val<'t>], span: Span) -> LResult<Val<'t>> {
        let simple = op.scalar_op();
        if let Some(b) = simple {
            return self.binop(b, &args[0], &args[1], span);
        }
        match op {
            BinOpKind::Eq | BinOpKind::Neq => {
                let eq = *op == BinOpKind::Eq;
                let xs = self.leaves(&args[0], span)?;
                let ys = self.leaves(&args[1], span)?;
                let bool_t = ir::Type::Prim(PrimType::Bool);
                let mut acc: Option<Atom> = None;
                for (x, y) in xs.into_iter().zip(ys) {
                    if self.ty(x).rank() > 0 {
                        return Err(Diagnostic::ty(
                            "comparing arrays with `==` inside a tuple or record is not supported",
                            span,
                        )
                        .with_help(
                            "compare the components separately, e.g. `and (map2 (==) a b)`",
                        ));
                    }
                    let c = self.emit1(
                        Exp::BinOp(if eq { BinOp::Eq } else { BinOp::Neq }, x, y),
                        bool_t,
                        "_eq",
                        span,
                    );
                    acc = Some(match acc {
                        None => c,
                        Some(prev) => self.emit1(
                            Exp::BinOp(if eq { BinOp::LogAnd } else { BinOp::LogOr }, prev, c),
                            bool_t,
                            "_eq",
                            span,
                        ),
                    });
                }
                Ok(Val::Leaf(acc.unwrap_or(Atom::Const(Scalar::Bool(eq)))))
            }
            BinOpKind::And | BinOpKind::Or => {
                let l = self.scalar(&args[0], span)?;
                let r = self.scalar(&args[1], span)?;
                self.short_circuit(*op == BinOpKind::And, l, |_| Ok(r), span)
            }
            BinOpKind::PipeRight => self.apply(&args[1], vec![args[0].clone()], span),
            BinOpKind::PipeLeft => self.apply(&args[0], vec![args[1].clone()], span),
            BinOpKind::ComposeRight => Ok(Self::fun(Closure::Compose(
                args[0].clone(),
                args[1].clone(),
            ))),
            BinOpKind::ComposeLeft => Ok(Self::fun(Closure::Compose(
                args[1].clone(),
                args[0].clone(),
            ))),
            _ => Err(Self::internal(format!("operator {}", op.symbol()), span)),
        }
    }

    /// `jvp`/`vjp` and their `2` variants: a core AD operator over a
    /// lambda made from the function.
    fn ad(&mut self, i: &Intrinsic, args: &[Val<'t>], span: Span) -> LResult<Val<'t>> {
        let (f, x, seed) = (&args[0], &args[1], &args[2]);
        let (lam, out_template) = self.lambda(f, std::slice::from_ref(x), span)?;
        let primals = self.leaves(x, span)?;
        let seeds = self.leaves(seed, span)?;
        let res_tys: Vec<ir::Type> = lam.body.result.iter().map(|a| a.ty(&self.vars)).collect();
        let arg_tys: Vec<ir::Type> = primals.iter().map(|a| self.ty(*a)).collect();
        let forward = matches!(i, Intrinsic::Jvp | Intrinsic::Jvp2);
        let (exp, deriv_tys) = if forward {
            (
                Exp::Jvp {
                    lam,
                    primals,
                    tangents: seeds,
                },
                res_tys.clone(),
            )
        } else {
            (
                Exp::Vjp {
                    lam,
                    primals,
                    cotangents: seeds,
                },
                arg_tys,
            )
        };
        let mut tys = res_tys.clone();
        tys.extend(deriv_tys);
        let out = self.emit(exp, &tys, if forward { "_jvp" } else { "_vjp" }, span);
        let (prim, deriv) = out.split_at(res_tys.len());
        let primal_val = Self::restructure(&out_template, &mut prim.iter().map(|v| Atom::Var(*v)));
        let deriv_val = if forward {
            Self::restructure(&out_template, &mut deriv.iter().map(|v| Atom::Var(*v)))
        } else {
            Self::restructure(x, &mut deriv.iter().map(|v| Atom::Var(*v)))
        };
        Ok(match i {
            Intrinsic::Jvp | Intrinsic::Vjp => deriv_val,
            _ => Val::Node(vec![(None, primal_val), (None, deriv_val)]),
        })
    }
}

impl<'t> Lower<'t> {
    /// `with_vjp f f' x`: `f` and `f'` as lambdas over the leaves of `x`
    /// (and, for `f'`, of the result's cotangent).
    fn with_vjp(&mut self, args: &[Val<'t>], span: Span) -> LResult<Val<'t>> {
        let (f, df, x) = (&args[0], &args[1], &args[2]);
        let (lam, out_template) = self.lambda(f, std::slice::from_ref(x), span)?;
        let (adjoint, _) = self.lambda(df, &[x.clone(), out_template.clone()], span)?;
        let primals = self.leaves(x, span)?;
        let tys: Vec<ir::Type> = lam.body.result.iter().map(|a| a.ty(&self.vars)).collect();
        let out = self.emit(
            Exp::WithVjp {
                lam,
                adjoint,
                args: primals,
            },
            &tys,
            "_wv",
            span,
        );
        Ok(Self::restructure(
            &out_template,
            &mut out.into_iter().map(Atom::Var),
        ))
    }

    /// `jmp f x dxs` is `map (\dx -> jvp f x dx) dxs`, and `mjp` likewise
    /// with `vjp`: the derivative code is built once and mapped over the
    /// seeds.
    fn ad_many(&mut self, i: &Intrinsic, args: &[Val<'t>], span: Span) -> LResult<Val<'t>> {
        let (f, x, seeds) = (&args[0], &args[1], &args[2]);
        let single = if *i == Intrinsic::Jmp {
            Intrinsic::Jvp
        } else {
            Intrinsic::Vjp
        };
        let mut params = Vec::new();
        let mut arrays = Vec::new();
        let elem = self.map_elem(seeds, &mut params, &mut arrays, span)?;
        self.emit_map(params, arrays, "_many", span, |l| {
            l.ad(&single, &[f.clone(), x.clone(), elem], span)
        })
    }
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

/// Lowers an entry point of the environment into a program of one
/// function.
pub fn lower_entry(tenv: &TypeEnv, id: DefId) -> LResult<(Program, Signature)> {
    let mut l = Lower::new(tenv);
    let (f, sig) = l.entry(id)?;
    Ok((
        Program {
            vars: l.vars,
            functions: vec![f],
        },
        sig,
    ))
}

/// Lowers a REPL expression; returns the program, the type of its value
/// and the REPL values it takes as parameters (in order).
pub fn lower_expression(
    tenv: &TypeEnv,
    def: &CheckedDef,
    inst: Inst,
    externals: &dyn Fn(ValueId) -> Option<Type>,
) -> LResult<(Program, Type, Vec<ValueId>)> {
    let mut l = Lower::with_externals(tenv, externals);
    let (f, t) = l.expression(def, inst)?;
    let ids = l.externals.iter().map(|(id, _)| *id).collect();
    Ok((
        Program {
            vars: l.vars,
            functions: vec![f],
        },
        t,
        ids,
    ))
}
