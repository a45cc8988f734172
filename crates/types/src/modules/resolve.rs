//! Name resolution: a declaration as written, in a scope, becomes one in
//! which every name of a module-level definition carries the [`Entity`]
//! it refers to, so that the checker needs no scopes beyond its locals.
//!
//! - `M.x` (parsed as a projection from `M`, since `r.x` reads the same)
//!   becomes the qualified name when `M` is a module, however deep the
//!   path (`M.N.x`); a local `M` makes it a projection.
//! - Locals shadow module-level names; in `M.(e)` the members of `M`
//!   shadow what is outside, locals bound inside shadow them.
//! - An operator defined at module level (`def (+) ...`, a member of an
//!   opened module) makes its uses `Symbol`s naming it, so that
//!   `R.(x + y)` is `R`'s `+`. `&&` and `||` stay built in (they
//!   short-circuit; the checker rejects redefining them).
//! - A size `[n]` naming a module-level value becomes the expression `n`
//!   (sizes that name nothing in scope are bound from the value, as
//!   before).
//! - Names that resolve to nothing are left as they are: the intrinsics
//!   (`map`, `iota`, ...) are not entities, and the checker reports names
//!   that are neither.
//!
//! Every expression is rebuilt with a fresh [`NodeId`], so that each
//! application of a parametric module has nodes of its own.

use super::env::{Env, Module};
use std::rc::Rc;
use urchin_base::diag::Diagnostic;
use urchin_base::source::Span;
use urchin_prim::PrimType;
use urchin_syntax::ast::*;
use urchin_syntax::visit::{Mapper, try_map_children, try_map_pat_types};

/// What a name means where it is used.
pub enum Meaning<'e> {
    Local,
    Value(Entity),
    Module(&'e Module),
    /// Bound to nothing in scope.
    Unbound,
}

#[derive(Clone)]
enum Frame {
    Local(Ident),
    Type(Ident),
    /// The members of a module opened by `M.(e)`.
    Open(Rc<Env>),
}

pub struct Resolver<'s> {
    scope: &'s Env,
    frames: Vec<Frame>,
    /// The session's numbers for the nodes it builds.
    ids: &'s NodeIds,
}

type R<T> = Result<T, Diagnostic>;

impl<'s> Resolver<'s> {
    pub fn new(scope: &'s Env, ids: &'s NodeIds) -> Resolver<'s> {
        Resolver {
            scope,
            frames: Vec::new(),
            ids,
        }
    }

    fn push_local(&mut self, x: &Ident) {
        self.frames.push(Frame::Local(x.clone()));
    }

    fn push_pat(&mut self, p: &Pat) {
        for (x, _) in p.binders() {
            self.frames.push(Frame::Local(x));
        }
    }

    fn push_type_params(&mut self, tps: &[TypeParam]) {
        for tp in tps {
            match tp {
                TypeParam::Size(n, _) => self.frames.push(Frame::Local(n.clone())),
                TypeParam::Type(n, _, _) => self.frames.push(Frame::Type(n.clone())),
            }
        }
    }

    // ---- looking names up -----------------------------------------

    /// What an unqualified value (or module) name means here.
    pub fn value(&self, x: &str) -> Meaning<'_> {
        for f in self.frames.iter().rev() {
            match f {
                Frame::Local(n) if &**n == x => return Meaning::Local,
                Frame::Open(env) => {
                    if let Some(e) = env.vals.get(x) {
                        return Meaning::Value(*e);
                    }
                    if let Some(m) = env.mods.get(x) {
                        return Meaning::Module(m);
                    }
                }
                _ => {}
            }
        }
        if let Some(e) = self.scope.vals.get(x) {
            return Meaning::Value(*e);
        }
        if let Some(m) = self.scope.mods.get(x) {
            return Meaning::Module(m);
        }
        Meaning::Unbound
    }

    /// The module `quals` names (`M`, `M.N`), or an error at `span`.
    pub fn module(&self, quals: &[Ident], span: Span) -> R<Rc<Env>> {
        let mut env: Option<Rc<Env>> = None;
        for (i, q) in quals.iter().enumerate() {
            let found = match &env {
                None => match self.value(q) {
                    Meaning::Module(m) => Some(m.clone()),
                    _ => None,
                },
                Some(e) => e.mods.get(q).cloned(),
            };
            let path = quals[..=i].join(".");
            env = Some(match found {
                Some(Module::Struct(e)) => e,
                Some(Module::Functor(_)) => return Err(parametric(&path, span)),
                None => {
                    return Err(Diagnostic::ty(format!("Unknown module \"{path}\""), span)
                        .with_label("no module of this name is in scope here")
                        .with_help("a module must be defined before it is used"));
                }
            });
        }
        Ok(env.unwrap_or_else(|| Rc::new(self.scope.clone())))
    }

    /// A value name as written, resolved (unchanged for a local or an
    /// unbound name).
    fn value_name(&self, q: &QualName, span: Span) -> R<QualName> {
        if q.entity.is_some() {
            return Ok(q.clone());
        }
        if q.quals.is_empty() {
            return match self.value(&q.name) {
                Meaning::Value(e) => Ok(q.resolved(e)),
                Meaning::Module(_) => Err(module_as_value(&q.to_string(), span)),
                Meaning::Local | Meaning::Unbound => Ok(q.clone()),
            };
        }
        let env = self.module(&q.quals, span)?;
        match env.vals.get(&q.name) {
            Some(e) => Ok(q.resolved(*e)),
            None if env.mods.contains_key(&q.name) => Err(module_as_value(&q.to_string(), span)),
            None => Err(unknown_member(q, "value", env.vals.keys(), span)),
        }
    }

    /// A type name as written, resolved; a type parameter or a primitive
    /// type stays as it is.
    fn type_name(&self, q: &QualName, span: Span) -> R<QualName> {
        if q.entity.is_some() {
            return Ok(q.clone());
        }
        if q.quals.is_empty() {
            for f in self.frames.iter().rev() {
                match f {
                    Frame::Type(n) if *n == q.name => return Ok(q.clone()),
                    Frame::Open(env) => {
                        if let Some(e) = env.types.get(&q.name) {
                            return Ok(q.resolved(*e));
                        }
                    }
                    _ => {}
                }
            }
            if let Some(e) = self.scope.types.get(&q.name) {
                return Ok(q.resolved(*e));
            }
            if PrimType::from_name(&q.name).is_some() {
                return Ok(q.clone());
            }
            return Err(Diagnostic::ty(format!("Unknown type \"{q}\""), span)
                .with_label("not defined")
                .with_help("define it before this point: `type t = ...`"));
        }
        let env = self.module(&q.quals, span)?;
        match env.types.get(&q.name) {
            Some(e) => Ok(q.resolved(*e)),
            None => Err(unknown_member(q, "type", env.types.keys(), span)),
        }
    }

    /// The operator a built-in operator symbol names here: a definition
    /// of it in scope (`def (+)`, a member of an opened module), if any.
    fn operator(&self, op: &BinOpKind) -> Option<BinOpKind> {
        match op {
            BinOpKind::And | BinOpKind::Or | BinOpKind::Backtick(_) | BinOpKind::Symbol(_) => None,
            _ => match self.value(&op.symbol()) {
                Meaning::Value(e) => {
                    Some(BinOpKind::Symbol(QualName::plain(op.symbol()).resolved(e)))
                }
                _ => None,
            },
        }
    }

    fn binop(&self, op: &BinOpKind, span: Span) -> R<BinOpKind> {
        Ok(match op {
            BinOpKind::Symbol(q) => BinOpKind::Symbol(self.value_name(q, span)?),
            BinOpKind::Backtick(q) => BinOpKind::Backtick(self.value_name(q, span)?),
            _ => self.operator(op).unwrap_or_else(|| op.clone()),
        })
    }

    // ---- declarations -----------------------------------------------

    /// A definition, its own name not yet bound: the body of a function
    /// sees it (recursion) as the checker binds it, a local.
    pub fn val_dec(&mut self, d: &ValDec) -> R<ValDec> {
        let mark = self.frames.len();
        self.push_type_params(&d.type_params);
        // Parameters may name each other's sizes in any order.
        for p in &d.params {
            self.push_pat(p);
        }
        let params = d
            .params
            .iter()
            .map(|p| self.pat(p))
            .collect::<R<Vec<_>>>()?;
        // Sizes the parameters name that nothing is bound to are bound
        // from the arguments (as the checker does).
        let mut implicit = Vec::new();
        for p in &params {
            crate::size_names_in_pat(p, false, &mut implicit);
        }
        for n in implicit {
            self.push_local(&n);
        }
        if !d.params.is_empty() {
            self.push_local(&d.name);
        }
        let ret = d.ret.as_ref().map(|t| self.ty(t)).transpose()?;
        let body = self.expr(&d.body)?;
        self.frames.truncate(mark);
        Ok(ValDec {
            params,
            ret,
            body,
            ..d.clone()
        })
    }

    pub fn type_dec(&mut self, t: &TypeDec) -> R<TypeDec> {
        let mark = self.frames.len();
        self.push_type_params(&t.params);
        let ty = self.ty(&t.ty)?;
        self.frames.truncate(mark);
        Ok(TypeDec { ty, ..t.clone() })
    }

    /// A type of a specification or a `with`, its parameters in scope.
    pub fn type_with_params(&mut self, tps: &[TypeParam], t: &TypeExp) -> R<TypeExp> {
        let mark = self.frames.len();
        self.push_type_params(tps);
        let r = self.ty(t);
        self.frames.truncate(mark);
        r
    }

    /// A value specification's type: its size parameters and the sizes
    /// it names are bound in it, like a definition's parameters.
    pub fn spec_type(&mut self, tps: &[TypeParam], t: &TypeExp) -> R<TypeExp> {
        let mark = self.frames.len();
        self.push_type_params(tps);
        let mut sizes = Vec::new();
        crate::size_names_in_type(t, false, &mut sizes);
        let r = self.ty_keeping(t, &sizes);
        self.frames.truncate(mark);
        r
    }

    // ---- types ------------------------------------------------------

    pub fn ty(&mut self, t: &TypeExp) -> R<TypeExp> {
        self.ty_keeping(t, &[])
    }

    /// A type whose sizes named in `keep` stay names (bound by it).
    fn ty_keeping(&mut self, t: &TypeExp, keep: &[Ident]) -> R<TypeExp> {
        urchin_base::stack::deep(|| {
            Ok(match t {
                TypeExp::Named(q, args, span) => {
                    let q = self.type_name(q, *span)?;
                    let args = args
                        .iter()
                        .map(|a| {
                            Ok(match a {
                                TypeArg::Type(t) => TypeArg::Type(self.ty_keeping(t, keep)?),
                                TypeArg::Size(d) => TypeArg::Size(self.dim(d, keep)?),
                            })
                        })
                        .collect::<R<Vec<_>>>()?;
                    TypeExp::Named(q, args, *span)
                }
                TypeExp::Array(d, inner, span) => TypeExp::Array(
                    self.dim(d, keep)?,
                    Box::new(self.ty_keeping(inner, keep)?),
                    *span,
                ),
                TypeExp::Arrow(Some(x), a, b, span) => {
                    let a = self.ty_keeping(a, keep)?;
                    self.push_local(x);
                    let b = self.ty_keeping(b, keep);
                    self.frames.pop();
                    TypeExp::Arrow(Some(x.clone()), Box::new(a), Box::new(b?), *span)
                }
                TypeExp::Exists(ns, inner, span) => {
                    for n in ns {
                        self.push_local(n);
                    }
                    let inner = self.ty_keeping(inner, keep);
                    self.frames.truncate(self.frames.len() - ns.len());
                    TypeExp::Exists(ns.clone(), Box::new(inner?), *span)
                }
                _ => {
                    let mut err = None;
                    let out = t.map_children(|c| match self.ty_keeping(c, keep) {
                        Ok(c) => c,
                        Err(e) => {
                            err.get_or_insert(e);
                            c.clone()
                        }
                    });
                    if let Some(e) = err {
                        return Err(e);
                    }
                    out
                }
            })
        })
    }

    fn dim(&mut self, d: &Dim, keep: &[Ident]) -> R<Dim> {
        Ok(match d {
            Dim::Named(n) if !keep.contains(n) => match self.value(n) {
                Meaning::Value(e) => {
                    let q = QualName::plain(n.clone()).resolved(e);
                    Dim::Exp(Box::new(self.ids.expr(ExprKind::Var(q), Span::default())))
                }
                _ => d.clone(),
            },
            Dim::Exp(e) => Dim::Exp(Box::new(self.expr(e)?)),
            _ => d.clone(),
        })
    }

    // ---- patterns ---------------------------------------------------

    /// A pattern's types resolved (its binders are the caller's to bind).
    fn pat(&mut self, p: &Pat) -> R<Pat> {
        try_map_pat_types(p, &mut |t| self.ty(t))
    }

    fn pats(&mut self, ps: &[Pat]) -> R<Vec<Pat>> {
        ps.iter().map(|p| self.pat(p)).collect()
    }

    // ---- expressions ------------------------------------------------

    pub fn expr(&mut self, e: &Expr) -> R<Expr> {
        urchin_base::stack::deep(|| self.expr_inner(e))
    }

    fn boxed(&mut self, e: &Expr) -> R<Box<Expr>> {
        Ok(Box::new(self.expr(e)?))
    }

    /// `e` with `x` bound (and unbound after).
    fn under(&mut self, binders: &[Ident], e: &Expr) -> R<Expr> {
        for x in binders {
            self.push_local(x);
        }
        let r = self.expr(e);
        self.frames.truncate(self.frames.len() - binders.len());
        r
    }

    fn binders(p: &Pat) -> Vec<Ident> {
        p.binders().into_iter().map(|(x, _)| x).collect()
    }

    /// `M.N.x.f` where `M` is a module: the member, then the projections.
    fn path(&mut self, e: &Expr) -> R<Option<Expr>> {
        // The chain of projections down to its root variable.
        let mut fields = Vec::new();
        let mut root = e;
        while let ExprKind::Project(inner, f) = &root.kind {
            fields.push((f.clone(), root.span));
            root = inner;
        }
        let ExprKind::Var(q) = &root.kind else {
            return Ok(None);
        };
        if !q.is_local() || !matches!(self.value(&q.name), Meaning::Module(_)) {
            return Ok(None);
        }
        fields.reverse();
        let mut quals = vec![q.name.clone()];
        let mut fields = fields.into_iter();
        loop {
            let Some((f, span)) = fields.next() else {
                // The path ends at a module.
                return Err(module_as_value(&quals.join("."), e.span));
            };
            let env = self.module(&quals, span)?;
            if env.mods.contains_key(&f) {
                quals.push(f);
                continue;
            }
            let member = QualName {
                quals,
                name: f,
                entity: None,
            };
            let member = self.value_name(&member, span)?;
            let head = self.ids.expr(ExprKind::Var(member), span);
            return Ok(Some(fields.fold(head, |x, (f, span)| {
                self.ids.expr(ExprKind::Project(Box::new(x), f), span)
            })));
        }
    }

    fn expr_inner(&mut self, e: &Expr) -> R<Expr> {
        if let Some(p) = self.path(e)? {
            return Ok(p);
        }
        let span = e.span;
        let kind = match &e.kind {
            ExprKind::Var(q) => ExprKind::Var(self.value_name(q, span)?),
            ExprKind::OpValue(op) => match self.operator(op) {
                Some(BinOpKind::Symbol(q)) => ExprKind::Var(q),
                _ => ExprKind::OpValue(op.clone()),
            },
            ExprKind::OpSection { op, left, right } => ExprKind::OpSection {
                op: self.binop(op, span)?,
                left: left.as_deref().map(|x| self.boxed(x)).transpose()?,
                right: right.as_deref().map(|x| self.boxed(x)).transpose()?,
            },
            ExprKind::BinOp(op, op_span, l, r) => ExprKind::BinOp(
                self.binop(op, *op_span)?,
                *op_span,
                self.boxed(l)?,
                self.boxed(r)?,
            ),
            ExprKind::Lambda(ps, ret, body) => {
                let ps2 = self.pats(ps)?;
                let mut bound = Vec::new();
                for p in ps {
                    bound.extend(Self::binders(p));
                }
                for x in &bound {
                    self.push_local(x);
                }
                let ret = ret.as_deref().map(|t| self.ty(t).map(Box::new)).transpose();
                let body = self.boxed(body);
                self.frames.truncate(self.frames.len() - bound.len());
                ExprKind::Lambda(ps2, ret?, body?)
            }
            ExprKind::Let(p, v, body) => {
                let v = self.boxed(v)?;
                let p2 = self.pat(p)?;
                let body = self.under(&Self::binders(p), body)?;
                ExprKind::Let(p2, v, Box::new(body))
            }
            ExprKind::LetSizes(ns, p, v, body) => {
                let v = self.boxed(v)?;
                let mut bound: Vec<Ident> = ns.iter().map(|(n, _)| n.clone()).collect();
                for x in &bound {
                    self.push_local(x);
                }
                let p2 = self.pat(p);
                self.frames.truncate(self.frames.len() - bound.len());
                bound.extend(Self::binders(p));
                let body = self.under(&bound, body)?;
                ExprKind::LetSizes(ns.clone(), p2?, v, Box::new(body))
            }
            ExprKind::LetFun(f) => {
                let mark = self.frames.len();
                self.push_type_params(&f.type_params);
                for p in &f.params {
                    self.push_pat(p);
                }
                let params = self.pats(&f.params);
                let ret = f.ret.as_ref().map(|t| self.ty(t)).transpose();
                let value = self.expr(&f.value);
                self.frames.truncate(mark);
                let body = self.under(std::slice::from_ref(&f.name), &f.body)?;
                ExprKind::LetFun(Box::new(LetFun {
                    name: f.name.clone(),
                    name_span: f.name_span,
                    type_params: f.type_params.clone(),
                    params: params?,
                    ret: ret?,
                    value: value?,
                    body,
                }))
            }
            ExprKind::Loop(l) => {
                // The initial value, the bound and the array are outside
                // the loop parameters' scope; the condition and the body
                // inside.
                let init = l.init.as_ref().map(|x| self.expr(x)).transpose()?;
                let pat = self.pat(&l.pat)?;
                let mut bound = Self::binders(&l.pat);
                let form = match &l.form {
                    LoopForm::For(i, s, n) => {
                        bound.push(i.clone());
                        LoopForm::For(i.clone(), *s, self.boxed(n)?)
                    }
                    LoopForm::ForIn(p, xs) => {
                        bound.extend(Self::binders(p));
                        LoopForm::ForIn(self.pat(p)?, self.boxed(xs)?)
                    }
                    LoopForm::While(c) => {
                        let c = self.under(&Self::binders(&l.pat), c)?;
                        LoopForm::While(Box::new(c))
                    }
                };
                let body = self.under(&bound, &l.body)?;
                ExprKind::Loop(Box::new(LoopExp {
                    pat,
                    init,
                    form,
                    body,
                }))
            }
            ExprKind::Match(x, cases) => ExprKind::Match(
                self.boxed(x)?,
                cases
                    .iter()
                    .map(|c| {
                        Ok(Case {
                            pat: self.pat(&c.pat)?,
                            body: self.under(&Self::binders(&c.pat), &c.body)?,
                            span: c.span,
                        })
                    })
                    .collect::<R<Vec<_>>>()?,
            ),
            ExprKind::OpenIn(m, x) => {
                let env = self.module(&Self::path_of(m), span)?;
                self.frames.push(Frame::Open(env));
                let x = self.boxed(x);
                self.frames.pop();
                ExprKind::OpenIn(m.clone(), x?)
            }
            _ => try_map_children(e, self)?,
        };
        Ok(self.ids.expr(kind, span))
    }

    /// The module path `M.N` names as a list (`OpenIn` holds it as a name).
    fn path_of(m: &QualName) -> Vec<Ident> {
        let mut v = m.quals.clone();
        v.push(m.name.clone());
        v
    }
}

/// The kinds that bind nothing and name nothing are rebuilt from their
/// resolved parts.
impl Mapper for Resolver<'_> {
    type Error = Diagnostic;
    fn map_expr(&mut self, e: &Expr) -> R<Expr> {
        self.expr(e)
    }
    fn map_pat(&mut self, p: &Pat) -> R<Pat> {
        self.pat(p)
    }
    fn map_type(&mut self, t: &TypeExp) -> R<TypeExp> {
        self.ty(t)
    }
}

fn parametric(path: &str, span: Span) -> Diagnostic {
    Diagnostic::ty(format!("module `{path}` is a parametric module"), span)
        .with_label("its members exist only once it is applied")
        .with_help(format!(
            "apply it to a module first: `module m = {path} arg`, then use `m`"
        ))
}

fn module_as_value(path: &str, span: Span) -> Diagnostic {
    Diagnostic::ty(format!("`{path}` is a module, not a value"), span)
        .with_help(format!("name one of its members: `{path}.x`"))
}

/// `members`: the names of that kind the module has, for a suggestion.
fn unknown_member<'a>(
    q: &QualName,
    what: &str,
    members: impl Iterator<Item = &'a Ident>,
    span: Span,
) -> Diagnostic {
    let m = q.quals.join(".");
    let d = Diagnostic::ty(format!("Unknown name \"{q}\""), span)
        .with_label(format!("module `{m}` has no {what} `{}`", q.name));
    match urchin_base::diag::closest(&q.name, members.map(|n| &**n)) {
        Some(near) => d.with_help(format!("did you mean `{m}.{near}`?")),
        None => d.with_help(format!("`:browse {m}` lists what it has")),
    }
}
