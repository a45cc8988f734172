//! How deeply a parsed program nests, measured without recursion.
//!
//! Every phase after parsing recurses over the syntax tree (expressions,
//! patterns and types alike, and the types the checker infers from them),
//! so absurd nesting is turned away here with a diagnostic instead of
//! overflowing the stack later. An `else if` chain and an operator chain
//! count one level per link; a `let` chain does not (the body after `in`
//! is at the `let`'s own depth), so every phase, and the AST's `Clone`,
//! must walk one in bounded stack (`stack::deep`).

use super::ast::{Attr, Dec, Expr, ExprKind, Pat, TypeArg, TypeExp};
use crate::diag::Diagnostic;
use crate::source::Span;

/// How deeply expressions, patterns and types may nest (together: a type
/// inside a pattern inside a lambda counts every level). The parameters of
/// a function count as levels too, since its type is an arrow per
/// parameter.
pub const MAX_DEPTH: usize = 1000;

/// A node of the syntax tree.
#[derive(Clone, Copy)]
enum Node<'a> {
    Expr(&'a Expr),
    Pat(&'a Pat),
    Ty(&'a TypeExp),
    Attr(&'a Attr, Span),
}

/// The first node nested deeper than [`MAX_DEPTH`] among the
/// declarations, as a diagnostic.
pub fn check_decs(decs: &[Dec]) -> Result<(), Diagnostic> {
    let mut w = Walk::default();
    for d in decs {
        match d {
            Dec::Val(v) => {
                w.attrs(&v.attrs, v.name_span, 1);
                w.function(&v.params, v.ret.as_ref(), &v.body, 1);
            }
            Dec::Type(t) => w.push(Node::Ty(&t.ty), 1),
        }
    }
    w.run()
}

/// The same for one expression, and a pattern bound to it at the prompt.
pub fn check_expr(pat: Option<&Pat>, e: &Expr) -> Result<(), Diagnostic> {
    let mut w = Walk::default();
    if let Some(p) = pat {
        w.push(Node::Pat(p), 1);
    }
    w.push(Node::Expr(e), 1);
    w.run()
}

pub fn check_type(t: &TypeExp) -> Result<(), Diagnostic> {
    let mut w = Walk::default();
    w.push(Node::Ty(t), 1);
    w.run()
}

/// A work list of nodes with their depth.
#[derive(Default)]
struct Walk<'a> {
    stack: Vec<(Node<'a>, usize)>,
}

impl<'a> Walk<'a> {
    fn push(&mut self, n: Node<'a>, depth: usize) {
        self.stack.push((n, depth));
    }

    fn attrs(&mut self, attrs: &'a [Attr], span: Span, depth: usize) {
        for a in attrs {
            self.push(Node::Attr(a, span), depth);
        }
    }

    /// Parameters, a return type and a body: each parameter is a level.
    fn function(&mut self, ps: &'a [Pat], ret: Option<&'a TypeExp>, body: &'a Expr, d: usize) {
        for (i, p) in ps.iter().enumerate() {
            self.push(Node::Pat(p), d + i);
        }
        let inner = d + ps.len();
        if let Some(t) = ret {
            self.push(Node::Ty(t), inner);
        }
        self.push(Node::Expr(body), inner);
    }

    fn run(mut self) -> Result<(), Diagnostic> {
        while let Some((n, depth)) = self.stack.pop() {
            if depth > MAX_DEPTH {
                return Err(too_deep(n));
            }
            let d = depth + 1;
            match n {
                Node::Expr(e) => self.expr(e, d),
                Node::Pat(p) => match p {
                    Pat::Id(..) | Pat::Wildcard(_) | Pat::Literal(..) => {}
                    Pat::Tuple(ps, _) | Pat::Constr(_, ps, _) => {
                        ps.iter().for_each(|p| self.push(Node::Pat(p), d));
                    }
                    Pat::Record(fs, _) => {
                        for p in fs.iter().filter_map(|(_, p)| p.as_ref()) {
                            self.push(Node::Pat(p), d);
                        }
                    }
                    Pat::Ascribed(p, t, _) => {
                        self.push(Node::Pat(p), d);
                        self.push(Node::Ty(t), d);
                    }
                },
                Node::Ty(t) => match t {
                    TypeExp::Prim(..) => {}
                    TypeExp::Named(_, args, _) => {
                        for a in args {
                            if let TypeArg::Type(t) = a {
                                self.push(Node::Ty(t), d);
                            }
                        }
                    }
                    TypeExp::Array(_, t, _) | TypeExp::Unique(t, _) | TypeExp::Exists(_, t, _) => {
                        self.push(Node::Ty(t), d)
                    }
                    TypeExp::Tuple(ts, _) => ts.iter().for_each(|t| self.push(Node::Ty(t), d)),
                    TypeExp::Record(fs, _) => {
                        fs.iter().for_each(|(_, t)| self.push(Node::Ty(t), d));
                    }
                    TypeExp::Arrow(_, a, b, _) => {
                        self.push(Node::Ty(a), d);
                        self.push(Node::Ty(b), d);
                    }
                    TypeExp::Sum(cs, _) => {
                        for t in cs.iter().flat_map(|(_, ts)| ts) {
                            self.push(Node::Ty(t), d);
                        }
                    }
                },
                Node::Attr(a, span) => {
                    if let Attr::Call(_, args) = a {
                        args.iter().for_each(|a| self.push(Node::Attr(a, span), d));
                    }
                }
            }
        }
        Ok(())
    }

    /// An expression's parts, at depth `d`.
    fn expr(&mut self, e: &'a Expr, d: usize) {
        // The body after `in` continues the chain at the `let`'s own depth:
        // a long chain of `let`s is long, not deep (code generators write
        // thousands), and every phase handles it in bounded stack.
        let rest = match &e.kind {
            ExprKind::Let(_, _, body)
            | ExprKind::LetSizes(_, _, _, body)
            | ExprKind::LetUpdate { body, .. } => Some(&**body),
            ExprKind::LetFun(f) => Some(&f.body),
            _ => None,
        };
        for c in e.children() {
            let at = if rest.is_some_and(|r| std::ptr::eq(r, c)) {
                d - 1
            } else {
                d
            };
            self.push(Node::Expr(c), at);
        }
        match &e.kind {
            ExprKind::Lambda(ps, ret, _) => {
                for (i, p) in ps.iter().enumerate() {
                    self.push(Node::Pat(p), d + i);
                }
                if let Some(t) = ret {
                    self.push(Node::Ty(t), d + ps.len());
                }
            }
            ExprKind::Let(p, ..) | ExprKind::LetSizes(_, p, ..) => self.push(Node::Pat(p), d),
            ExprKind::LetFun(f) => {
                for (i, p) in f.params.iter().enumerate() {
                    self.push(Node::Pat(p), d + i);
                }
                if let Some(t) = &f.ret {
                    self.push(Node::Ty(t), d + f.params.len());
                }
            }
            ExprKind::Loop(l) => self.push(Node::Pat(&l.pat), d),
            ExprKind::Match(_, cases) => {
                cases.iter().for_each(|c| self.push(Node::Pat(&c.pat), d));
            }
            ExprKind::Ascript(_, t) | ExprKind::Coerce(_, t) => self.push(Node::Ty(t), d),
            ExprKind::Attr(a, _) => self.push(Node::Attr(a, e.span), d),
            _ => {}
        }
    }
}

fn too_deep(n: Node) -> Diagnostic {
    let (what, span) = match n {
        Node::Expr(e) => ("expression", e.span),
        Node::Pat(p) => ("pattern", p.span()),
        Node::Ty(t) => ("type", t.span()),
        Node::Attr(_, s) => ("attribute", s),
    };
    let label = format!(
        "more than {MAX_DEPTH} levels of nesting (counting each parameter as one); \
         split it into smaller functions or types"
    );
    Diagnostic::parse(format!("{what} is nested too deeply"), span).with_label(label)
}
