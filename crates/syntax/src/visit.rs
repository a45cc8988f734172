//! The one traversal of the source AST (the counterpart of the IR's
//! `core::visit`).
//!
//! The parts of every [`ExprKind`] are listed here and nowhere else that
//! only walks the tree:
//! - [`for_each_child`] gives the direct sub-expressions in source order,
//!   each with what the node binds in it ([`Bound`]): scoping, free
//!   variables, the LSP's scopes and `Expr::children` build on it;
//! - [`pats`] and [`type_exp`] give the patterns and the type expression
//!   written in the node itself;
//! - [`map_children`] and [`try_map_children`] rebuild a node from its
//!   mapped parts (sub-expressions, patterns, types and spans, through a
//!   [`Mapper`]): elaboration, name resolution and span erasure are
//!   instances;
//! - [`sub_pats`] and [`try_map_pat_types`] do the same for patterns.
//!
//! A phase matches the kinds it has something to say about and leaves the
//! rest to these functions, so a new `ExprKind` variant is a compile error
//! here and in the matches that are exhaustive on purpose, because each
//! kind has its own rule there: the pretty printer and the parser's test
//! printer (`tests/sexp.rs`), type inference (`infer/expr.rs`), size and
//! uniqueness checking (`sizes/expr.rs`, `uniqueness/`), lowering to the
//! IR (`opt/lower/expr.rs`) and conversion to the reference semantics
//! (`reference/convert.rs`).
//!
//! None of these recurse: a phase that wants the whole tree calls them on
//! each node it reaches, through a work list or `stack::deep`.

use crate::ast::*;
use std::convert::Infallible;
use urchin_base::source::Span;

/// The variables a node binds in one of its sub-expressions.
#[derive(Clone, Copy, Debug)]
pub enum Bound<'a> {
    Nothing,
    /// The parameters of a lambda (in its body) or of a local function (in
    /// its definition; its size parameters are not listed).
    Params(&'a [Pat]),
    /// A `let`'s pattern (in its body), a case's (in its branch).
    Pat(&'a Pat),
    /// `let [n] p = e`: the sizes and the pattern, in the body.
    Sizes(&'a [(Ident, Span)], &'a Pat),
    /// A local function's name, in the body after its definition.
    Fun(&'a Ident, Span),
    /// The loop parameters (in the condition and the body), and in the
    /// body the index of a `for` loop or the element pattern of a
    /// `for ... in` loop.
    Loop {
        pat: &'a Pat,
        index: Option<(&'a Ident, Span)>,
        elem: Option<&'a Pat>,
    },
}

impl<'a> Bound<'a> {
    /// The patterns among the binders.
    fn pats(self) -> impl Iterator<Item = &'a Pat> {
        let (ps, p, q): (&[Pat], _, _) = match self {
            Bound::Nothing | Bound::Fun(..) => (&[], None, None),
            Bound::Params(ps) => (ps, None, None),
            Bound::Pat(p) | Bound::Sizes(_, p) => (&[], Some(p), None),
            Bound::Loop { pat, elem, .. } => (&[], Some(pat), elem),
        };
        ps.iter().chain(p).chain(q)
    }

    /// The names bound outside patterns (sizes, a function's name, a loop
    /// index).
    fn names(self) -> impl Iterator<Item = (&'a Ident, Span)> {
        let (ns, n): (&[(Ident, Span)], _) = match self {
            Bound::Sizes(ns, _) => (ns, None),
            Bound::Fun(n, s) => (&[], Some((n, s))),
            Bound::Loop { index, .. } => (&[], index),
            _ => (&[], None),
        };
        ns.iter().map(|(n, s)| (n, *s)).chain(n)
    }

    /// Every variable bound, with where it is bound: sizes first, then
    /// the patterns' variables in order, then a loop's index.
    pub fn binders(self) -> Vec<(Ident, Span)> {
        let mut out: Vec<(Ident, Span)> = Vec::new();
        if let Bound::Sizes(ns, _) = self {
            out.extend(ns.iter().cloned());
        }
        out.extend(self.pats().flat_map(Pat::binders));
        if let Bound::Fun(n, s)
        | Bound::Loop {
            index: Some((n, s)),
            ..
        } = self
        {
            out.push((n.clone(), s));
        }
        out
    }

    /// Whether `x` is among the variables bound.
    pub fn binds(self, x: &str) -> bool {
        self.names().any(|(n, _)| &**n == x)
            || self
                .pats()
                .any(|p| p.binders().iter().any(|(n, _)| &**n == x))
    }
}

/// Calls `f` on each direct sub-expression of `e`, in source order, with
/// what `e` binds in it.
pub fn for_each_child<'a>(e: &'a Expr, mut f: impl FnMut(&'a Expr, Bound<'a>)) {
    fn indices<'a>(is: &'a [IndexExp], f: &mut impl FnMut(&'a Expr, Bound<'a>)) {
        for i in is {
            match i {
                IndexExp::Single(x) => f(x, Bound::Nothing),
                IndexExp::Slice { start, end, stride } => {
                    for x in [start, end, stride].into_iter().flatten() {
                        f(x, Bound::Nothing);
                    }
                }
            }
        }
    }
    let none = Bound::Nothing;
    match &e.kind {
        ExprKind::Literal(_)
        | ExprKind::Var(_)
        | ExprKind::OpValue(_)
        | ExprKind::ProjSection(_)
        | ExprKind::StringLit(_)
        | ExprKind::Hole => {}
        ExprKind::OpSection { left, right, .. } => {
            for x in [left, right].into_iter().flatten() {
                f(x, none);
            }
        }
        ExprKind::ArrayLit(es) | ExprKind::Tuple(es) | ExprKind::Constr(_, es) => {
            es.iter().for_each(|x| f(x, none));
        }
        ExprKind::Record(fs) => fs.iter().for_each(|(_, x)| f(x, none)),
        ExprKind::Project(x, _)
        | ExprKind::UnOp(_, x)
        | ExprKind::Ascript(x, _)
        | ExprKind::Attr(_, x)
        | ExprKind::OpenIn(_, x)
        | ExprKind::Coerce(x, _) => f(x, none),
        ExprKind::Lambda(ps, _, body) => f(body, Bound::Params(ps)),
        ExprKind::RecordUpdate(a, _, b) | ExprKind::BinOp(_, _, a, b) => {
            f(a, none);
            f(b, none);
        }
        ExprKind::Let(p, v, body) => {
            f(v, none);
            f(body, Bound::Pat(p));
        }
        ExprKind::LetSizes(ns, p, v, body) => {
            f(v, none);
            f(body, Bound::Sizes(ns, p));
        }
        ExprKind::Match(x, cases) => {
            f(x, none);
            cases.iter().for_each(|c| f(&c.body, Bound::Pat(&c.pat)));
        }
        ExprKind::Apply(g, args) => {
            f(g, none);
            args.iter().for_each(|x| f(x, none));
        }
        ExprKind::LetFun(lf) => {
            f(&lf.value, Bound::Params(&lf.params));
            f(&lf.body, Bound::Fun(&lf.name, lf.name_span));
        }
        ExprKind::If(a, b, c) => {
            f(a, none);
            f(b, none);
            f(c, none);
        }
        ExprKind::Loop(l) => {
            if let Some(init) = &l.init {
                f(init, none);
            }
            let pat = &l.pat;
            let (index, elem) = match &l.form {
                LoopForm::For(i, s, n) => {
                    f(n, none);
                    (Some((i, *s)), None)
                }
                LoopForm::ForIn(p, xs) => {
                    f(xs, none);
                    (None, Some(p))
                }
                LoopForm::While(c) => {
                    let cond = Bound::Loop {
                        pat,
                        index: None,
                        elem: None,
                    };
                    f(c, cond);
                    (None, None)
                }
            };
            f(&l.body, Bound::Loop { pat, index, elem });
        }
        ExprKind::Index(a, is) => {
            f(a, none);
            indices(is, &mut f);
        }
        ExprKind::Update(a, is, x) => {
            f(a, none);
            indices(is, &mut f);
            f(x, none);
        }
        ExprKind::Range(r) => {
            f(&r.start, none);
            if let Some(x) = &r.second {
                f(x, none);
            }
            f(&r.end, none);
        }
    }
}

/// The patterns written in `e` itself (not in its sub-expressions), in
/// source order.
pub fn pats(e: &Expr) -> impl Iterator<Item = &Pat> {
    let (ps, p, q, cases): (&[Pat], _, _, &[Case]) = match &e.kind {
        ExprKind::Lambda(ps, _, _) => (ps, None, None, &[]),
        ExprKind::LetFun(lf) => (&lf.params, None, None, &[]),
        ExprKind::Let(p, _, _) | ExprKind::LetSizes(_, p, _, _) => (&[], Some(p), None, &[]),
        ExprKind::Loop(l) => {
            let elem = match &l.form {
                LoopForm::ForIn(p, _) => Some(p),
                _ => None,
            };
            (&[], Some(&l.pat), elem, &[])
        }
        ExprKind::Match(_, cases) => (&[], None, None, cases),
        _ => (&[], None, None, &[]),
    };
    ps.iter()
        .chain(p)
        .chain(q)
        .chain(cases.iter().map(|c| &c.pat))
}

/// The type expression written in `e` itself (not inside its patterns or
/// sub-expressions): an ascription's, a coercion's, a return type.
pub fn type_exp(e: &Expr) -> Option<&TypeExp> {
    match &e.kind {
        ExprKind::Ascript(_, t) | ExprKind::Coerce(_, t) => Some(t),
        ExprKind::Lambda(_, t, _) => t.as_deref(),
        ExprKind::LetFun(lf) => lf.ret.as_ref(),
        _ => None,
    }
}

/// How [`try_map_children`] maps the parts of a node. Only sub-expressions
/// must be said; patterns, types and spans are kept by default.
pub trait Mapper {
    type Error;
    fn map_expr(&mut self, e: &Expr) -> Result<Expr, Self::Error>;
    fn map_pat(&mut self, p: &Pat) -> Result<Pat, Self::Error> {
        Ok(p.clone())
    }
    fn map_type(&mut self, t: &TypeExp) -> Result<TypeExp, Self::Error> {
        Ok(t.clone())
    }
    /// A span inside the node (an operator's, a bound name's, a case's);
    /// the node's own span is the caller's to set.
    fn map_span(&mut self, s: Span) -> Span {
        s
    }
}

/// The node `e` with its parts mapped by `m`, in source order (so the
/// first error is the leftmost); the caller gives it an id and a span.
pub fn try_map_children<M: Mapper + ?Sized>(e: &Expr, m: &mut M) -> Result<ExprKind, M::Error> {
    let boxed = |m: &mut M, x: &Expr| m.map_expr(x).map(Box::new);
    let opt = |m: &mut M, x: &Option<Box<Expr>>| x.as_deref().map(|x| boxed(m, x)).transpose();
    let exprs = |m: &mut M, es: &[Expr]| es.iter().map(|x| m.map_expr(x)).collect::<Result<_, _>>();
    let pats = |m: &mut M, ps: &[Pat]| ps.iter().map(|p| m.map_pat(p)).collect::<Result<_, _>>();
    let ty = |m: &mut M, t: &TypeExp| m.map_type(t).map(Box::new);
    let indices = |m: &mut M, is: &[IndexExp]| {
        is.iter()
            .map(|i| {
                Ok(match i {
                    IndexExp::Single(x) => IndexExp::Single(m.map_expr(x)?),
                    IndexExp::Slice { start, end, stride } => IndexExp::Slice {
                        start: opt(m, start)?,
                        end: opt(m, end)?,
                        stride: opt(m, stride)?,
                    },
                })
            })
            .collect::<Result<Vec<_>, _>>()
    };
    let names = |m: &mut M, ns: &[(Ident, Span)]| {
        ns.iter()
            .map(|(n, s)| (n.clone(), m.map_span(*s)))
            .collect::<Vec<_>>()
    };
    Ok(match &e.kind {
        ExprKind::Literal(_)
        | ExprKind::Var(_)
        | ExprKind::OpValue(_)
        | ExprKind::ProjSection(_)
        | ExprKind::StringLit(_)
        | ExprKind::Hole => e.kind.clone(),
        ExprKind::OpSection { op, left, right } => ExprKind::OpSection {
            op: op.clone(),
            left: opt(m, left)?,
            right: opt(m, right)?,
        },
        ExprKind::ArrayLit(es) => ExprKind::ArrayLit(exprs(m, es)?),
        ExprKind::Tuple(es) => ExprKind::Tuple(exprs(m, es)?),
        ExprKind::Constr(c, es) => ExprKind::Constr(c.clone(), exprs(m, es)?),
        ExprKind::Record(fs) => ExprKind::Record(
            fs.iter()
                .map(|(n, x)| Ok((n.clone(), m.map_expr(x)?)))
                .collect::<Result<_, _>>()?,
        ),
        ExprKind::Project(x, f) => ExprKind::Project(boxed(m, x)?, f.clone()),
        ExprKind::RecordUpdate(r, path, v) => {
            ExprKind::RecordUpdate(boxed(m, r)?, path.clone(), boxed(m, v)?)
        }
        ExprKind::Apply(f, args) => ExprKind::Apply(boxed(m, f)?, exprs(m, args)?),
        ExprKind::BinOp(op, s, l, r) => {
            ExprKind::BinOp(op.clone(), m.map_span(*s), boxed(m, l)?, boxed(m, r)?)
        }
        ExprKind::UnOp(op, x) => ExprKind::UnOp(*op, boxed(m, x)?),
        ExprKind::Lambda(ps, ret, body) => ExprKind::Lambda(
            pats(m, ps)?,
            ret.as_deref().map(|t| ty(m, t)).transpose()?,
            boxed(m, body)?,
        ),
        ExprKind::Let(p, v, body) => ExprKind::Let(m.map_pat(p)?, boxed(m, v)?, boxed(m, body)?),
        ExprKind::LetSizes(ns, p, v, body) => {
            ExprKind::LetSizes(names(m, ns), m.map_pat(p)?, boxed(m, v)?, boxed(m, body)?)
        }
        ExprKind::LetFun(f) => ExprKind::LetFun(Box::new(LetFun {
            name: f.name.clone(),
            name_span: m.map_span(f.name_span),
            type_params: f
                .type_params
                .iter()
                .map(|tp| match tp {
                    TypeParam::Size(n, s) => TypeParam::Size(n.clone(), m.map_span(*s)),
                    TypeParam::Type(n, l, s) => TypeParam::Type(n.clone(), *l, m.map_span(*s)),
                })
                .collect(),
            params: pats(m, &f.params)?,
            ret: f.ret.as_ref().map(|t| m.map_type(t)).transpose()?,
            value: m.map_expr(&f.value)?,
            body: m.map_expr(&f.body)?,
        })),
        ExprKind::If(c, t, f) => ExprKind::If(boxed(m, c)?, boxed(m, t)?, boxed(m, f)?),
        ExprKind::Loop(l) => ExprKind::Loop(Box::new(LoopExp {
            pat: m.map_pat(&l.pat)?,
            init: l.init.as_ref().map(|x| m.map_expr(x)).transpose()?,
            form: match &l.form {
                LoopForm::For(i, s, n) => LoopForm::For(i.clone(), m.map_span(*s), boxed(m, n)?),
                LoopForm::ForIn(p, xs) => LoopForm::ForIn(m.map_pat(p)?, boxed(m, xs)?),
                LoopForm::While(c) => LoopForm::While(boxed(m, c)?),
            },
            body: m.map_expr(&l.body)?,
        })),
        ExprKind::Index(a, is) => ExprKind::Index(boxed(m, a)?, indices(m, is)?),
        ExprKind::Update(a, is, v) => ExprKind::Update(boxed(m, a)?, indices(m, is)?, boxed(m, v)?),
        ExprKind::Ascript(x, t) => ExprKind::Ascript(boxed(m, x)?, ty(m, t)?),
        ExprKind::Coerce(x, t) => ExprKind::Coerce(boxed(m, x)?, ty(m, t)?),
        ExprKind::Attr(a, x) => ExprKind::Attr(a.clone(), boxed(m, x)?),
        ExprKind::OpenIn(q, x) => ExprKind::OpenIn(q.clone(), boxed(m, x)?),
        ExprKind::Range(r) => ExprKind::Range(Box::new(Range {
            start: m.map_expr(&r.start)?,
            second: r.second.as_ref().map(|x| m.map_expr(x)).transpose()?,
            end: m.map_expr(&r.end)?,
            kind: r.kind,
        })),
        ExprKind::Match(x, cases) => ExprKind::Match(
            boxed(m, x)?,
            cases
                .iter()
                .map(|c| {
                    Ok(Case {
                        pat: m.map_pat(&c.pat)?,
                        body: m.map_expr(&c.body)?,
                        span: m.map_span(c.span),
                    })
                })
                .collect::<Result<_, _>>()?,
        ),
    })
}

/// [`try_map_children`] for a mapper that cannot fail.
pub fn map_children<M: Mapper<Error = Infallible> + ?Sized>(e: &Expr, m: &mut M) -> ExprKind {
    match try_map_children(e, m) {
        Ok(k) => k,
        Err(never) => match never {},
    }
}

/// The direct sub-patterns of `p`, in source order.
pub fn sub_pats(p: &Pat) -> impl Iterator<Item = &Pat> {
    let (ps, fields, inner): (&[Pat], &[(Ident, Option<Pat>)], _) = match p {
        Pat::Tuple(ps, _) | Pat::Constr(_, ps, _) => (ps, &[], None),
        Pat::Record(fs, _) => (&[], fs, None),
        Pat::Ascribed(p, _, _) => (&[], &[], Some(&**p)),
        Pat::Id(..) | Pat::Wildcard(_) | Pat::Literal(..) => (&[], &[], None),
    };
    ps.iter()
        .chain(fields.iter().filter_map(|(_, p)| p.as_ref()))
        .chain(inner)
}

/// `p` with `f` applied to each type written in it, at any depth (the
/// binders and spans are kept); the first error is the leftmost.
pub fn try_map_pat_types<E>(
    p: &Pat,
    f: &mut impl FnMut(&TypeExp) -> Result<TypeExp, E>,
) -> Result<Pat, E> {
    let all = |ps: &[Pat], f: &mut _| {
        ps.iter()
            .map(|p| try_map_pat_types(p, f))
            .collect::<Result<_, _>>()
    };
    Ok(match p {
        Pat::Id(..) | Pat::Wildcard(_) | Pat::Literal(..) => p.clone(),
        Pat::Tuple(ps, s) => Pat::Tuple(all(ps, f)?, *s),
        Pat::Constr(c, ps, s) => Pat::Constr(c.clone(), all(ps, f)?, *s),
        Pat::Record(fs, s) => Pat::Record(
            fs.iter()
                .map(|(n, p)| {
                    Ok((
                        n.clone(),
                        p.as_ref().map(|p| try_map_pat_types(p, f)).transpose()?,
                    ))
                })
                .collect::<Result<_, _>>()?,
            *s,
        ),
        Pat::Ascribed(p, t, s) => {
            Pat::Ascribed(Box::new(try_map_pat_types(p, f)?), Box::new(f(t)?), *s)
        }
    })
}
