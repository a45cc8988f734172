//! Application spines.
//!
//! AUTOMAP works on whole spines `f a1 … an` (so that `L vs ws t`
//! elaborates to one `map3`, not to maps of partial applications). A spine
//! is written in several ways — juxtaposition, infix operators, backticks,
//! pipes, unary operators — and this module flattens them all, the same way
//! for the type checker and the elaborator.

use crate::ast::{BinOpKind, Expr, ExprKind, Ident, NodeId, QualName, UnOpKind};

/// Key of a spine: the node it belongs to, and which spine of that node
/// (a composition `f >-> g` has two). The checker's solution and the
/// elaborator meet on it.
pub type SpineKey = (NodeId, u8);

#[derive(Clone, Copy, Debug)]
pub enum Head<'e> {
    /// An expression in function position (a name, a lambda, ...).
    Expr(&'e Expr),
    /// An infix operator (`+`, `==`, `++`, `&&`, ...).
    Op(&'e BinOpKind),
    /// A named function used as an infix operator: ``a `f` b``, `a +^ b`,
    /// `a i32.+ b`.
    Backtick(&'e QualName),
    /// `-e`
    Neg,
    /// `!e`
    Not,
    /// `e.f`: the projection `(.f)` applied to `e`, so that AUTOMAP maps
    /// it over an array of records (`ps.0` is `map (.0) ps`).
    Proj(&'e Ident),
}

/// How the spine was written, so the elaborator can print it back the
/// same way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    Prefix,
    Infix,
    /// `x |> f a`: the last argument came through the pipe.
    PipeRight,
    /// `f a <| x`
    PipeLeft,
    Unary,
    /// `e.f`
    Project,
}

#[derive(Clone, Debug)]
pub struct Spine<'e> {
    pub head: Head<'e>,
    pub args: Vec<&'e Expr>,
    pub form: Form,
}

/// Head and arguments of an expression in function position: nested
/// applications `(f a) b` flatten to `f a b`.
pub fn flatten_head(e: &Expr) -> (Head<'_>, Vec<&Expr>) {
    match &e.kind {
        ExprKind::Apply(f, args) => {
            let (h, mut inner) = flatten_head(f);
            inner.extend(args.iter());
            (h, inner)
        }
        _ => (Head::Expr(e), Vec::new()),
    }
}

/// The spine of a projection `e.f`.
pub fn projection(e: &Expr) -> Option<Spine<'_>> {
    match &e.kind {
        ExprKind::Project(x, f) => Some(Spine {
            head: Head::Proj(f),
            args: vec![x],
            form: Form::Project,
        }),
        _ => None,
    }
}

/// The spine of an application-like expression, or `None` for anything
/// else (composition `>->` is not a spine: it builds a function).
pub fn spine_of(e: &Expr) -> Option<Spine<'_>> {
    match &e.kind {
        ExprKind::Apply(..) => {
            let (head, args) = flatten_head(e);
            Some(Spine {
                head,
                args,
                form: Form::Prefix,
            })
        }
        ExprKind::BinOp(BinOpKind::PipeRight, _, l, r) => {
            let (head, mut args) = flatten_head(r);
            args.push(l);
            Some(Spine {
                head,
                args,
                form: Form::PipeRight,
            })
        }
        ExprKind::BinOp(BinOpKind::PipeLeft, _, l, r) => {
            let (head, mut args) = flatten_head(l);
            args.push(r);
            Some(Spine {
                head,
                args,
                form: Form::PipeLeft,
            })
        }
        ExprKind::BinOp(BinOpKind::ComposeRight | BinOpKind::ComposeLeft, ..) => None,
        ExprKind::BinOp(BinOpKind::Backtick(q) | BinOpKind::Symbol(q), _, l, r) => Some(Spine {
            head: Head::Backtick(q),
            args: vec![l, r],
            form: Form::Infix,
        }),
        ExprKind::BinOp(op, _, l, r) => Some(Spine {
            head: Head::Op(op),
            args: vec![l, r],
            form: Form::Infix,
        }),
        ExprKind::UnOp(op, x) => Some(Spine {
            head: match op {
                UnOpKind::Neg => Head::Neg,
                UnOpKind::Not => Head::Not,
            },
            args: vec![x],
            form: Form::Unary,
        }),
        _ => None,
    }
}
