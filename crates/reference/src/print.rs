//! Terms and values in urchin's syntax, on one line, with the position of
//! one subterm (the redex) recorded so that a trace can mark it.
//!
//! Long array values are shortened (`[0, 1, 2, 3, 4, 5, …, 98, 99]`): they
//! never contain the redex, and a trace of a program over a big array
//! should not print the array at every step.

use super::term::*;
use urchin_syntax::ast::{BinOpKind, UnOpKind};
use urchin_syntax::pretty::{self, Lvl, operand_levels};

/// Arrays longer than this are printed with their middle elided.
const MAX_ELEMS: usize = 8;

pub struct Printer<'t> {
    pub out: String,
    redex: Option<&'t Term>,
    /// Byte range of the redex in `out`.
    pub mark: Option<(usize, usize)>,
}

impl<'t> Printer<'t> {
    pub fn new(redex: Option<&'t Term>) -> Printer<'t> {
        Printer {
            out: String::new(),
            redex,
            mark: None,
        }
    }

    fn w(&mut self, s: &str) {
        self.out.push_str(s);
    }

    pub fn top(&mut self, t: &Term) {
        self.term(t, Lvl::Expr);
    }

    fn term(&mut self, t: &Term, want: Lvl) {
        // A call is shown as its body: it is a note for error messages,
        // not syntax.
        if let TermKind::Call(_, body) = &t.kind {
            return self.term(body, want);
        }
        let parens = needs_parens(level(t), want);
        if parens {
            self.w("(");
        }
        let start = self.out.len();
        self.kind(t);
        if self.redex.is_some_and(|r| std::ptr::eq(r, t)) {
            self.mark = Some((start, self.out.len()));
        }
        if parens {
            self.w(")");
        }
    }

    fn kind(&mut self, t: &Term) {
        match &t.kind {
            TermKind::Val(v) => self.value(v, Lvl::Expr),
            TermKind::Var(x) => self.w(x),
            TermKind::Global { name, .. } => self.w(name),
            TermKind::Call(_, body) => self.kind(body),
            TermKind::Lambda(l) => self.lambda(l),
            TermKind::App(f, x) => {
                self.term(f, Lvl::Apply);
                self.w(" ");
                self.term(x, Lvl::Atom);
            }
            TermKind::BinOp(op, l, r) => {
                let (ll, rl) = operand_levels(op);
                self.term(l, ll);
                self.w(&format!(" {} ", op.symbol()));
                self.term(r, rl);
            }
            TermKind::UnOp(op, x) => {
                self.w(match op {
                    UnOpKind::Neg => "-",
                    UnOpKind::Not => "!",
                });
                // `--` would start a comment.
                if starts_negative(x) {
                    self.w("(");
                    self.term(x, Lvl::Expr);
                    self.w(")");
                } else {
                    self.term(x, Lvl::Unary);
                }
            }
            TermKind::Section(op, l, r) => {
                self.w("(");
                if let Some(l) = l {
                    self.term(l, Lvl::Op(op.precedence() + 1));
                    self.w(" ");
                }
                self.w(&op.symbol());
                if let Some(r) = r {
                    self.w(" ");
                    self.term(r, Lvl::Op(op.precedence() + 1));
                }
                self.w(")");
            }
            TermKind::Array(es, ..) => self.list("[", "]", es, |p, e| p.term(e, Lvl::Expr)),
            TermKind::Tuple(es) => self.list("(", ")", es, |p, e| p.term(e, Lvl::Expr)),
            TermKind::Record(fs) => self.list("{", "}", fs, |p, (n, e)| {
                p.w(&format!("{n} = "));
                p.term(e, Lvl::Expr);
            }),
            TermKind::Project(e, f) => {
                self.term(e, Lvl::Atom);
                self.w(&format!(".{f}"));
            }
            TermKind::RecordUpdate(r, path, v) => {
                self.term(r, Lvl::Unary);
                self.w(" with ");
                self.w(&path
                    .iter()
                    .map(|p| p.to_string())
                    .collect::<Vec<_>>()
                    .join("."));
                self.w(" = ");
                self.term(v, Lvl::With);
            }
            TermKind::Let(p, e, b) => {
                self.w(&format!("let {} = ", pretty::pat(p)));
                self.term(e, Lvl::Expr);
                self.w(" in ");
                self.term(b, Lvl::Expr);
            }
            TermKind::LetFun(f, l, b) => {
                self.w(&format!("let {f}"));
                for p in &l.params {
                    self.w(&format!(" {}", pretty::pat(p)));
                }
                if let Some(t) = &l.ret {
                    self.w(&format!(" : {}", pretty::type_exp(t)));
                }
                self.w(" = ");
                self.term(&l.body, Lvl::Expr);
                self.w(" in ");
                self.term(b, Lvl::Expr);
            }
            TermKind::If(c, a, b) => {
                self.w("if ");
                self.term(c, Lvl::Expr);
                self.w(" then ");
                self.term(a, Lvl::Expr);
                self.w(" else ");
                self.term(b, Lvl::Expr);
            }
            TermKind::Loop(l) => {
                self.w(&format!("loop {} = ", pretty::pat(&l.pat)));
                self.term(&l.init, Lvl::Expr);
                match &l.form {
                    Form::For { i, bound, from } => {
                        match from {
                            // `for i in k..<n`: the iterations left.
                            Some(k) => self.w(&format!(" for {i} in {k}..<")),
                            None => self.w(&format!(" for {i} < ")),
                        }
                        self.term(bound, Lvl::Op(BinOpKind::Lt.precedence() + 1));
                    }
                    Form::ForIn(p, xs) => {
                        self.w(&format!(" for {} in ", pretty::pat(p)));
                        self.term(xs, Lvl::Apply);
                    }
                    Form::While(c) => {
                        self.w(" while ");
                        self.term(c, Lvl::Expr);
                    }
                }
                self.w(" do ");
                self.term(&l.body, Lvl::Expr);
            }
            TermKind::Index(a, ix) => {
                self.term(a, Lvl::Atom);
                self.slices(ix);
            }
            TermKind::Update(a, ix, v) => {
                self.term(a, Lvl::Unary);
                self.w(" with ");
                self.slices(ix);
                self.w(" = ");
                self.term(v, Lvl::With);
            }
            TermKind::Ascribe(e, t, _) => {
                self.term(e, Lvl::With);
                self.w(&format!(" : {}", pretty::type_exp(t)));
            }
            TermKind::Constr(c, es) => {
                self.w(&format!("#{c}"));
                for e in es {
                    self.w(" ");
                    self.term(e, Lvl::Atom);
                }
            }
            TermKind::Match(x, cases) => {
                self.w("match ");
                self.term(x, Lvl::Expr);
                for (p, e) in cases {
                    self.w(&format!(" case {} -> ", pretty::pat(p)));
                    self.term(e, Lvl::Expr);
                }
            }
            TermKind::Tangent(tag, part, e) => {
                self.w(match part {
                    super::dual::Part::Tangent => "tangent ",
                    super::dual::Part::Both => "primal_tangent ",
                });
                self.w(&epsilon(*tag));
                self.w(" ");
                self.term(e, Lvl::Atom);
            }
            TermKind::LetSizes(ns, p, e, b) => {
                self.w("let ");
                for n in ns {
                    self.w(&format!("[{n}]"));
                }
                self.w(&format!(" {} = ", pretty::pat(p)));
                self.term(e, Lvl::Expr);
                self.w(" in ");
                self.term(b, Lvl::Expr);
            }
        }
    }

    fn slices(&mut self, ix: &[Slice]) {
        self.list("[", "]", ix, |p, s| match s {
            Slice::Fix(t) => p.term(t, Lvl::Expr),
            Slice::Range { start, end, stride } => {
                if let Some(t) = start {
                    p.term(t, Lvl::Unary);
                }
                p.w(":");
                if let Some(t) = end {
                    p.term(t, Lvl::Unary);
                }
                if let Some(t) = stride {
                    p.w(":");
                    p.term(t, Lvl::Unary);
                }
            }
        });
    }

    fn list<T>(
        &mut self,
        open: &str,
        close: &str,
        items: &[T],
        mut item: impl FnMut(&mut Self, &T),
    ) {
        self.w(open);
        for (i, x) in items.iter().enumerate() {
            if i > 0 {
                self.w(", ");
            }
            item(self, x);
        }
        self.w(close);
    }

    fn lambda(&mut self, l: &Lambda) {
        self.w("\\");
        for (i, p) in l.params.iter().enumerate() {
            if i > 0 {
                self.w(" ");
            }
            self.w(&pretty::pat(p));
        }
        if let Some(t) = &l.ret {
            self.w(&format!(" : {}", pretty::type_exp(t)));
        }
        self.w(" -> ");
        self.term(&l.body, Lvl::Expr);
    }

    fn value(&mut self, v: &Value, want: Lvl) {
        let parens = needs_parens(value_level(v), want);
        if parens {
            self.w("(");
        }
        match v {
            Value::Scalar(s) => self.w(&s.to_string()),
            Value::Array(es) if es.len() > MAX_ELEMS => {
                self.w("[");
                for e in &es[..MAX_ELEMS - 2] {
                    self.value(e, Lvl::Expr);
                    self.w(", ");
                }
                self.w("…");
                for e in &es[es.len() - 2..] {
                    self.w(", ");
                    self.value(e, Lvl::Expr);
                }
                self.w("]");
            }
            Value::Array(es) => self.list("[", "]", es, |p, e| p.value(e, Lvl::Expr)),
            Value::Dual(d) => {
                self.w("(");
                self.value(&d.primal, Lvl::Op(BinOpKind::Add.precedence() + 1));
                self.w(" + ");
                self.value(&d.tangent, Lvl::Atom);
                self.w(&epsilon(d.tag));
                self.w(")");
            }
            Value::Rep(x) => {
                self.w("rep ");
                self.value(x, Lvl::Atom);
            }
            Value::Tuple(es) => self.list("(", ")", es, |p, e| p.value(e, Lvl::Expr)),
            Value::Record(fs) => self.list("{", "}", fs, |p, (n, e)| {
                p.w(&format!("{n} = "));
                p.value(e, Lvl::Expr);
            }),
            Value::Sum(c, es) => {
                self.w(&format!("#{c}"));
                for e in es.iter() {
                    self.w(" ");
                    self.value(e, Lvl::Atom);
                }
            }
            Value::Fun(f) => match &**f {
                Fun::Lambda(l) => self.lambda(l),
                Fun::Prim { name, args, .. } => {
                    self.w(name);
                    for a in args {
                        self.w(" ");
                        self.value(a, Lvl::Atom);
                    }
                }
                Fun::Section { op, left, right } => {
                    self.w("(");
                    if let Some(l) = left {
                        self.value(l, Lvl::Op(op.precedence() + 1));
                        self.w(" ");
                    }
                    self.w(&op.symbol());
                    if let Some(r) = right {
                        self.w(" ");
                        self.value(r, Lvl::Op(op.precedence() + 1));
                    }
                    self.w(")");
                }
                Fun::Compose {
                    first,
                    second,
                    forward,
                } => {
                    let (op, l, r) = if *forward {
                        (BinOpKind::ComposeRight, first, second)
                    } else {
                        (BinOpKind::ComposeLeft, second, first)
                    };
                    let (ll, rl) = operand_levels(&op);
                    self.value(l, ll);
                    self.w(&format!(" {} ", op.symbol()));
                    self.value(r, rl);
                }
                Fun::Proj(fs) => {
                    self.w("(");
                    for f in fs {
                        self.w(&format!(".{f}"));
                    }
                    self.w(")");
                }
            },
        }
        if parens {
            self.w(")");
        }
    }
}

/// The name of the `ε` of the `jvp` numbered `tag`: `ε`, then `ε2`, ...
fn epsilon(tag: u32) -> String {
    if tag == 1 {
        "ε".into()
    } else {
        format!("ε{tag}")
    }
}

fn starts_negative(t: &Term) -> bool {
    matches!(&t.kind, TermKind::Val(Value::Scalar(s)) if s.to_string().starts_with('-'))
        || matches!(t.kind, TermKind::UnOp(UnOpKind::Neg, _))
}

fn level(t: &Term) -> Lvl {
    match &t.kind {
        TermKind::Val(v) => value_level(v),
        TermKind::Call(_, body) => level(body),
        TermKind::Ascribe(..) => Lvl::Expr,
        TermKind::Update(..) | TermKind::RecordUpdate(..) => Lvl::With,
        TermKind::BinOp(op, ..) => Lvl::Op(op.precedence()),
        TermKind::Lambda(_)
        | TermKind::Let(..)
        | TermKind::LetSizes(..)
        | TermKind::LetFun(..)
        | TermKind::If(..)
        | TermKind::Match(..)
        | TermKind::Loop(_) => Lvl::Operand,
        TermKind::UnOp(..) => Lvl::Unary,
        TermKind::App(..) | TermKind::Tangent(..) => Lvl::Apply,
        TermKind::Constr(_, es) if !es.is_empty() => Lvl::Apply,
        TermKind::Constr(..) => Lvl::Atom,
        TermKind::Var(_)
        | TermKind::Global { .. }
        | TermKind::Section(..)
        | TermKind::Array(..)
        | TermKind::Tuple(_)
        | TermKind::Record(_)
        | TermKind::Project(..)
        | TermKind::Index(..) => Lvl::Atom,
    }
}

fn value_level(v: &Value) -> Lvl {
    match v {
        // `f -1` would read as a subtraction.
        Value::Scalar(s) if s.to_string().starts_with('-') => Lvl::Unary,
        Value::Rep(_) => Lvl::Apply,
        Value::Sum(_, es) if !es.is_empty() => Lvl::Apply,
        Value::Fun(f) => match &**f {
            Fun::Lambda(_) => Lvl::Operand,
            Fun::Prim { args, .. } if !args.is_empty() => Lvl::Apply,
            Fun::Compose { .. } => Lvl::Op(BinOpKind::ComposeRight.precedence()),
            _ => Lvl::Atom,
        },
        _ => Lvl::Atom,
    }
}

/// Lambdas, `if`s, `let`s and loops get parentheses anywhere but a
/// position of their own: they would swallow what follows them.
fn needs_parens(have: Lvl, want: Lvl) -> bool {
    have < want || (have == Lvl::Operand && want > Lvl::Expr)
}

/// A term on one line, and where its redex is.
pub fn term(t: &Term, redex: Option<&Term>) -> (String, Option<(usize, usize)>) {
    let mut p = Printer::new(redex);
    p.top(t);
    (p.out, p.mark)
}

/// A value on one line.
pub fn value(v: &Value) -> String {
    let mut p = Printer::new(None);
    p.value(v, Lvl::Expr);
    p.out
}
