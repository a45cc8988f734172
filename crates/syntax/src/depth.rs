//! How deeply a parsed program nests, measured without recursion.
//!
//! Every phase after parsing recurses over the syntax tree (expressions,
//! patterns and types alike, and the types the checker infers from them),
//! so absurd nesting is turned away here with a diagnostic instead of
//! overflowing the stack later. Chains do not count a level per link (a
//! `let` chain, an operator chain, a `|>` pipeline: see [`continues`]),
//! so every phase, and the AST's `Clone`, must walk them in bounded stack
//! (`stack::deep`).

use super::ast::{Attr, Dec, Expr, ExprKind, ModExp, ModTypeExp, Pat, Spec, TypeArg, TypeExp};
use super::visit;
use urchin_base::diag::Diagnostic;
use urchin_base::source::Span;

/// How deeply expressions, patterns and types may nest (together: a type
/// inside a pattern inside a lambda counts every level). The parameters of
/// a function count as levels too, since its type is an arrow per
/// parameter.
pub const MAX_DEPTH: usize = 1000;

/// How many links of chains (see [`continues`]) may lie on one path into
/// the tree. They do not nest, but every phase still walks them by
/// recursion through `stack::deep`, and dropping the tree recurses on the
/// thread's own stack (about 50 bytes a link), so their number is bounded
/// too, far above what code generators write.
pub const MAX_LINKS: usize = 100_000;

/// A node of the syntax tree.
#[derive(Clone, Copy)]
enum Node<'a> {
    Expr(&'a Expr),
    Pat(&'a Pat),
    Ty(&'a TypeExp),
    Attr(&'a Attr, Span),
    Dec(&'a Dec),
    Mod(&'a ModExp),
    ModType(&'a ModTypeExp),
}

/// The first node nested deeper than [`MAX_DEPTH`] among the
/// declarations, as a diagnostic.
pub fn check_decs(decs: &[Dec]) -> Result<(), Diagnostic> {
    let mut w = Walk::default();
    for d in decs {
        w.push(Node::Dec(d), 0);
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

/// A work list of nodes with their depth and the chain links above them.
#[derive(Default)]
struct Walk<'a> {
    stack: Vec<(Node<'a>, usize, usize)>,
    /// The links above the node whose parts are being pushed.
    links: usize,
}

impl<'a> Walk<'a> {
    fn push(&mut self, n: Node<'a>, depth: usize) {
        self.stack.push((n, depth, self.links));
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
        while let Some((n, depth, links)) = self.stack.pop() {
            if depth > MAX_DEPTH {
                return Err(too_deep(n));
            }
            if links > MAX_LINKS {
                return Err(too_long(n));
            }
            self.links = links;
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
                Node::Dec(dec) => self.dec(dec, d),
                Node::Mod(m) => match m {
                    ModExp::Var(..) | ModExp::Import(..) => {}
                    ModExp::Struct(ds, _) => ds.iter().for_each(|x| self.push(Node::Dec(x), d)),
                    ModExp::Ascribe(m, t, _) => {
                        self.push(Node::Mod(m), d);
                        self.push(Node::ModType(t), d);
                    }
                    ModExp::Apply(f, a, _) => {
                        self.push(Node::Mod(f), d);
                        self.push(Node::Mod(a), d);
                    }
                    ModExp::Lambda(p, t, body, _) => {
                        self.push(Node::ModType(&p.ty), d);
                        if let Some(t) = t {
                            self.push(Node::ModType(t), d);
                        }
                        self.push(Node::Mod(body), d);
                    }
                },
                Node::ModType(t) => match t {
                    ModTypeExp::Var(..) => {}
                    ModTypeExp::Specs(specs, _) => {
                        for spec in specs {
                            match spec {
                                Spec::Val(v) => self.push(Node::Ty(&v.ty), d),
                                Spec::Type(t) => {
                                    if let Some(t) = &t.def {
                                        self.push(Node::Ty(t), d);
                                    }
                                }
                                Spec::Module(_, _, t, _) | Spec::Include(t, _) => {
                                    self.push(Node::ModType(t), d)
                                }
                            }
                        }
                    }
                    ModTypeExp::With(m, _, _, t, _) => {
                        self.push(Node::ModType(m), d);
                        self.push(Node::Ty(t), d);
                    }
                    ModTypeExp::Arrow(_, a, b, _) => {
                        self.push(Node::ModType(a), d);
                        self.push(Node::ModType(b), d);
                    }
                },
            }
        }
        Ok(())
    }

    /// A declaration's parts, at depth `d` (a module body nests a level).
    fn dec(&mut self, dec: &'a Dec, d: usize) {
        match dec {
            Dec::Val(v) => {
                self.attrs(&v.attrs, v.name_span, d);
                self.function(&v.params, v.ret.as_ref(), &v.body, d);
            }
            Dec::Type(t) => self.push(Node::Ty(&t.ty), d),
            Dec::Module(m) => {
                for p in &m.params {
                    self.push(Node::ModType(&p.ty), d);
                }
                if let Some(t) = &m.sig {
                    self.push(Node::ModType(t), d);
                }
                self.push(Node::Mod(&m.body), d);
            }
            Dec::ModType(m) => self.push(Node::ModType(&m.ty), d),
            Dec::Open(m, _) => self.push(Node::Mod(m), d),
            Dec::Local(inner, _) => self.push(Node::Dec(inner), d - 1),
            Dec::Import(..) => {}
        }
    }

    /// An expression's parts, at depth `d`.
    fn expr(&mut self, e: &'a Expr, d: usize) {
        let links = self.links;
        for c in e.children() {
            if continues(e, c) {
                self.links = links + 1;
                self.push(Node::Expr(c), d - 1);
            } else {
                self.links = links;
                self.push(Node::Expr(c), d);
            }
        }
        self.links = links;
        // A function's parameters are a level each, its return type below
        // them; other patterns and types sit one level below the node.
        let params = matches!(e.kind, ExprKind::Lambda(..) | ExprKind::LetFun(_));
        let level = |i: usize| if params { d + i } else { d };
        let mut n = 0;
        for (i, p) in visit::pats(e).enumerate() {
            self.push(Node::Pat(p), level(i));
            n = i + 1;
        }
        if let Some(t) = visit::type_exp(e) {
            self.push(Node::Ty(t), level(n));
        }
        if let ExprKind::Attr(a, _) = &e.kind {
            self.push(Node::Attr(a, e.span), d);
        }
    }
}

/// Whether the part `c` of `e` continues a chain at `e`'s own depth: the
/// body after a `let`'s `in`, an operand of an operator that is itself an
/// operator application (`a + b + c`, `x |> f |> g`). Such chains are
/// long, not deep (code generators write thousands of links), and every
/// phase walks them in bounded stack (`stack::deep`) and linear time.
/// (An `else if` chain still counts a level per link: the core IR nests
/// its branches, and the passes after lowering walk nested bodies
/// recursively, some computing free variables at every level.)
fn continues(e: &Expr, c: &Expr) -> bool {
    match &e.kind {
        ExprKind::Let(_, _, body) | ExprKind::LetSizes(_, _, _, body) => std::ptr::eq(&**body, c),
        ExprKind::LetFun(f) => std::ptr::eq(&f.body, c),
        ExprKind::BinOp(..) => matches!(c.kind, ExprKind::BinOp(..)),
        _ => false,
    }
}

fn too_long(n: Node) -> Diagnostic {
    Diagnostic::parse("expression chains too long", place(n).1).with_label(format!(
        "more than {MAX_LINKS} links of `let`s and operators lead here; \
         split the expression into several functions"
    ))
}

fn too_deep(n: Node) -> Diagnostic {
    let (what, span) = place(n);
    let label = format!(
        "more than {MAX_DEPTH} levels of nesting (counting each parameter as one); \
         split it into smaller functions or types"
    );
    Diagnostic::parse(format!("{what} is nested too deeply"), span).with_label(label)
}

/// What a node is, and where.
fn place(n: Node) -> (&'static str, Span) {
    match n {
        Node::Expr(e) => ("expression", e.span),
        Node::Pat(p) => ("pattern", p.span()),
        Node::Ty(t) => ("type", t.span()),
        Node::Attr(_, s) => ("attribute", s),
        Node::Dec(d) => ("declaration", d.span()),
        Node::Mod(m) => ("module", m.span()),
        Node::ModType(t) => ("module type", t.span()),
    }
}
