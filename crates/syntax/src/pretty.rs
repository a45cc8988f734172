//! The pretty printer: Futhark-style layout with two-space indentation,
//! `let` chains one binding per line with `in` before the final body, and
//! only the parentheses that precedence requires.
//!
//! Law: for every AST `p` the parser produces,
//! `parse(print(p)).erase() == p.erase()`.

use super::ast::*;
use std::collections::HashMap;

pub fn program(p: &Program) -> String {
    let mut out = p.decs.iter().map(dec).collect::<Vec<_>>().join("\n\n");
    if !out.is_empty() {
        out.push('\n');
    }
    out
}

pub fn dec(d: &Dec) -> String {
    let mut pr = Printer::default();
    pr.dec(d);
    pr.out
}

/// A declaration with a comment line (`-- note`) above each `let` whose
/// node is in `notes`: how `:vjp` marks the sweeps of a derivative
/// program, which the AST has no node for.
pub fn dec_with_notes(d: &Dec, notes: HashMap<NodeId, String>) -> String {
    let mut pr = Printer {
        notes,
        ..Printer::default()
    };
    pr.dec(d);
    pr.out
}

pub fn expr(e: &Expr) -> String {
    let mut pr = Printer::default();
    pr.expr(e, Lvl::Expr, false);
    pr.out
}

pub fn mod_type(t: &ModTypeExp) -> String {
    let mut pr = Printer::default();
    pr.mod_type(t, false);
    pr.out
}

pub fn type_exp(t: &TypeExp) -> String {
    let mut pr = Printer::default();
    pr.ty(t, TLvl::Arrow);
    pr.out
}

/// A pattern as it appears as a parameter (ascriptions in parentheses).
pub fn pat(p: &Pat) -> String {
    let mut pr = Printer::default();
    pr.pat_atom(p);
    pr.out
}

/// How loosely an expression binds, loosest first. An expression printed
/// where a tighter level is required gets parentheses. Shared with the
/// printer of the reference semantics' terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Lvl {
    /// Anything, including a type ascription.
    Expr,
    /// `a with [i] = v`.
    With,
    /// `a..<b`, `a..b...c`.
    Range,
    /// A binary operator of the given precedence.
    Op(u8),
    /// `if`, `let`, `loop`, lambdas, `#[attr] e`: allowed as the operand of
    /// a binary operator, but not of a unary one.
    Operand,
    Unary,
    Apply,
    Atom,
}

fn level(e: &Expr) -> Lvl {
    match &e.kind {
        ExprKind::Ascript(..) | ExprKind::Coerce(..) => Lvl::Expr,
        ExprKind::Update(..) | ExprKind::RecordUpdate(..) => Lvl::With,
        ExprKind::Range(_) => Lvl::Range,
        ExprKind::BinOp(op, ..) => Lvl::Op(op.precedence()),
        ExprKind::If(..)
        | ExprKind::Match(..)
        | ExprKind::Let(..)
        | ExprKind::LetSizes(..)
        | ExprKind::LetFun(_)
        | ExprKind::Loop(_)
        | ExprKind::Lambda(..)
        | ExprKind::Attr(..) => Lvl::Operand,
        ExprKind::UnOp(..) => Lvl::Unary,
        ExprKind::Apply(..) => Lvl::Apply,
        ExprKind::Constr(_, args) if !args.is_empty() => Lvl::Apply,
        ExprKind::Constr(..) => Lvl::Atom,
        ExprKind::Literal(_)
        | ExprKind::Var(_)
        | ExprKind::OpValue(_)
        | ExprKind::OpSection { .. }
        | ExprKind::ProjSection(_)
        | ExprKind::ArrayLit(_)
        | ExprKind::Tuple(_)
        | ExprKind::Record(_)
        | ExprKind::Project(..)
        | ExprKind::Index(..)
        | ExprKind::StringLit(_)
        | ExprKind::Hole
        | ExprKind::OpenIn(..) => Lvl::Atom,
    }
}

/// Does the printed expression end in a body that would swallow an
/// operator, `with` or `:` written after it (`if c then a else b + 1`)?
fn is_open(mut e: &Expr) -> bool {
    // A loop, not recursion: the right operands may chain 10^5 deep.
    loop {
        e = match &e.kind {
            ExprKind::BinOp(_, _, _, r) => r,
            ExprKind::Update(_, _, v) | ExprKind::RecordUpdate(_, _, v) => v,
            ExprKind::Range(r) => &r.end,
            _ => return level(e) == Lvl::Operand,
        }
    }
}

/// Does the printed expression end in a `match`, whose cases would take
/// a `case` written after it as their own?
fn ends_in_match(mut e: &Expr) -> bool {
    loop {
        e = match &e.kind {
            ExprKind::Match(..) => return true,
            ExprKind::BinOp(_, _, _, x)
            | ExprKind::Update(_, _, x)
            | ExprKind::RecordUpdate(_, _, x)
            | ExprKind::If(_, _, x)
            | ExprKind::Let(_, _, x)
            | ExprKind::LetSizes(_, _, _, x)
            | ExprKind::Lambda(_, _, x)
            | ExprKind::Attr(_, x) => x,
            ExprKind::LetFun(f) => &f.body,
            ExprKind::Loop(l) => &l.body,
            _ => return false,
        }
    }
}

/// The indices and value of `a with [is] = v` whose array is the variable
/// `a` itself: what `let a[is] = v` means.
fn in_place<'e>(a: &Ident, e: &'e Expr) -> Option<(&'e [IndexExp], &'e Expr)> {
    match &e.kind {
        ExprKind::Update(arr, is, v) if matches!(&arr.kind, ExprKind::Var(q) if q.is_local() && q.name == *a) => {
            Some((is, v))
        }
        _ => None,
    }
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum TLvl {
    Arrow,
    Term,
    Atom,
}

/// Lines longer than this are broken where the layout allows it.
const WIDTH: usize = 80;

#[derive(Default)]
struct Printer {
    out: String,
    indent: usize,
    /// Set when measuring: print everything on one line, and give up (set
    /// `overflow`) past this many bytes or at anything that needs a line
    /// break.
    flat_limit: Option<usize>,
    overflow: bool,
    /// Comment lines to print above `let` bindings, by the node of the
    /// `let` ([`dec_with_notes`]).
    notes: HashMap<NodeId, String>,
}

impl Printer {
    fn w(&mut self, s: &str) {
        self.out.push_str(s);
        if self.flat_limit.is_some_and(|l| self.out.len() > l) {
            self.overflow = true;
        }
    }

    fn nl(&mut self) {
        if self.flat_limit.is_some() {
            self.overflow = true;
            return;
        }
        let kept = self.out.trim_end_matches(' ').len();
        self.out.truncate(kept);
        self.out.push('\n');
        self.out.extend(std::iter::repeat_n(' ', self.indent));
    }

    fn column(&self) -> usize {
        self.out.len() - self.out.rfind('\n').map(|i| i + 1).unwrap_or(0)
    }

    fn at_line_start(&self) -> bool {
        self.out[self.out.len() - self.column()..].trim().is_empty()
    }

    /// Does `e` fit on one line from the current column, leaving `reserve`
    /// bytes for what follows it? Measuring stops at the width limit, so
    /// this costs O(WIDTH) however large `e` is.
    fn fits(&self, e: &Expr, reserve: usize) -> bool {
        if self.flat_limit.is_some() {
            return true;
        }
        let room = WIDTH.saturating_sub(self.column() + reserve);
        let mut m = Printer {
            flat_limit: Some(room),
            ..Printer::default()
        };
        m.expr(e, Lvl::Expr, false);
        !m.overflow
    }

    /// Print `e` after `=`, `->`, `then`, `else`, `in` or `do`: on the same
    /// line when it fits, else indented on the following lines.
    fn block(&mut self, e: &Expr) {
        if self.fits(e, 1) {
            self.w(" ");
            self.expr(e, Lvl::Expr, false);
        } else {
            self.indent += 2;
            self.nl();
            self.expr(e, Lvl::Expr, false);
            self.indent -= 2;
        }
    }

    fn doc(&mut self, doc: &Option<String>) {
        let Some(doc) = doc else { return };
        for (i, line) in doc.split('\n').enumerate() {
            self.w(if i == 0 { "-- |" } else { "--" });
            // `-- |` would start a new doc comment: a later line
            // beginning with a bar is written without the blank.
            if !line.is_empty() && (i == 0 || !line.starts_with('|')) {
                self.w(" ");
            }
            self.w(line);
            self.nl();
        }
    }

    fn dec(&mut self, d: &Dec) {
        match d {
            Dec::Val(v) => {
                self.doc(&v.doc);
                for a in &v.attrs {
                    self.w(&format!("#[{a}]"));
                    self.nl();
                }
                self.w(match v.keyword {
                    DefKeyword::Def => "def ",
                    DefKeyword::Let => "let ",
                    DefKeyword::Entry => "entry ",
                });
                self.w(&name(&v.name, &v.name));
                self.type_params(&v.type_params);
                for p in &v.params {
                    self.w(" ");
                    self.pat_atom(p);
                }
                if let Some(t) = &v.ret {
                    self.w(" : ");
                    self.ty(t, TLvl::Arrow);
                }
                self.w(" =");
                self.block(&v.body);
            }
            Dec::Type(t) => {
                self.w(match t.lifted {
                    Liftedness::Plain => "type ",
                    Liftedness::SizeLifted => "type~ ",
                    Liftedness::Lifted => "type^ ",
                });
                self.w(&t.name);
                self.type_params(&t.params);
                self.w(" = ");
                self.ty(&t.ty, TLvl::Arrow);
            }
            Dec::Module(m) => {
                self.doc(&m.doc);
                self.w("module ");
                self.w(&m.name);
                for p in &m.params {
                    self.w(" ");
                    self.mod_param(p);
                }
                if let Some(t) = &m.sig {
                    self.w(" : ");
                    self.mod_type(t, false);
                }
                self.w(" = ");
                self.mod_exp(&m.body, false);
            }
            Dec::ModType(m) => {
                self.doc(&m.doc);
                self.w(&format!("module type {} = ", m.name));
                self.mod_type(&m.ty, false);
            }
            Dec::Open(m, _) => {
                self.w("open ");
                self.mod_exp(m, true);
            }
            Dec::Import(path, _) => self.w(&format!("import {}", string_literal(path))),
            Dec::Local(d, _) => {
                self.w("local ");
                self.dec(d);
            }
        }
    }

    fn mod_param(&mut self, p: &ModParam) {
        self.w(&format!("({}: ", p.name));
        self.mod_type(&p.ty, false);
        self.w(")");
    }

    /// A module expression; `atom`: where an application's argument goes.
    fn mod_exp(&mut self, m: &ModExp, atom: bool) {
        let open = !matches!(m, ModExp::Var(..) | ModExp::Struct(..) | ModExp::Import(..));
        if atom && open {
            self.w("(");
            self.mod_exp(m, false);
            self.w(")");
            return;
        }
        match m {
            ModExp::Var(q, _) => self.w(&q.to_string()),
            ModExp::Import(path, _) => self.w(&format!("import {}", string_literal(path))),
            ModExp::Struct(ds, _) => {
                self.w("{");
                self.indent += 2;
                for (i, d) in ds.iter().enumerate() {
                    if i > 0 {
                        self.nl();
                    }
                    self.nl();
                    self.dec(d);
                }
                self.indent -= 2;
                if !ds.is_empty() {
                    self.nl();
                }
                self.w("}");
            }
            ModExp::Ascribe(m, t, _) => {
                let lambda = matches!(**m, ModExp::Lambda(..));
                self.mod_exp(m, lambda);
                self.w(" : ");
                self.mod_type(t, false);
            }
            ModExp::Apply(f, a, _) => {
                let lambda = matches!(**f, ModExp::Lambda(..) | ModExp::Ascribe(..));
                self.mod_exp(f, lambda);
                self.w(" ");
                self.mod_exp(a, true);
            }
            ModExp::Lambda(p, t, body, _) => {
                self.w("\\");
                self.mod_param(p);
                if let Some(t) = t {
                    self.w(" : ");
                    self.mod_type(t, true);
                }
                self.w(" -> ");
                self.mod_exp(body, false);
            }
        }
    }

    /// A module type; `inner`: where `->` would be read otherwise (an
    /// arrow's parameter, a lambda's result type).
    fn mod_type(&mut self, t: &ModTypeExp, inner: bool) {
        match t {
            ModTypeExp::Var(q, _) => self.w(&q.to_string()),
            ModTypeExp::Specs(specs, _) => {
                self.w("{");
                self.indent += 2;
                for spec in specs {
                    self.nl();
                    self.spec(spec);
                }
                self.indent -= 2;
                if !specs.is_empty() {
                    self.nl();
                }
                self.w("}");
            }
            ModTypeExp::With(m, q, ps, ty, _) => {
                let paren = matches!(**m, ModTypeExp::Arrow(..));
                if paren {
                    self.w("(");
                }
                self.mod_type(m, false);
                if paren {
                    self.w(")");
                }
                self.w(&format!(" with {q}"));
                self.type_params(ps);
                self.w(" = ");
                self.ty(ty, TLvl::Arrow);
            }
            ModTypeExp::Arrow(p, a, b, _) => {
                if inner {
                    self.w("(");
                }
                match p {
                    Some((n, _)) => {
                        self.w(&format!("({n}: "));
                        self.mod_type(a, false);
                        self.w(")");
                    }
                    None => self.mod_type(a, true),
                }
                self.w(" -> ");
                self.mod_type(b, false);
                if inner {
                    self.w(")");
                }
            }
        }
    }

    fn spec(&mut self, spec: &Spec) {
        match spec {
            Spec::Val(v) => {
                self.doc(&v.doc);
                self.w("val ");
                self.w(&name(&v.name, &v.name));
                self.type_params(&v.type_params);
                self.w(" : ");
                self.ty(&v.ty, TLvl::Arrow);
            }
            Spec::Type(t) => {
                self.w(match t.lifted {
                    Liftedness::Plain => "type ",
                    Liftedness::SizeLifted => "type~ ",
                    Liftedness::Lifted => "type^ ",
                });
                self.w(&t.name);
                self.type_params(&t.params);
                if let Some(def) = &t.def {
                    self.w(" = ");
                    self.ty(def, TLvl::Arrow);
                }
            }
            Spec::Module(n, _, t, _) => {
                self.w(&format!("module {n} : "));
                self.mod_type(t, false);
            }
            Spec::Include(t, _) => {
                self.w("include ");
                self.mod_type(t, false);
            }
        }
    }

    fn type_params(&mut self, tps: &[TypeParam]) {
        let mut after_size = false;
        for tp in tps {
            match tp {
                TypeParam::Size(n, _) => {
                    // `[n][m]`, the usual spelling, but a space after a name.
                    if !after_size {
                        self.w(" ");
                    }
                    self.w(&format!("[{n}]"));
                    after_size = true;
                }
                TypeParam::Type(n, l, _) => {
                    self.w(match l {
                        Liftedness::Plain => " '",
                        Liftedness::SizeLifted => " '~",
                        Liftedness::Lifted => " '^",
                    });
                    self.w(n);
                    after_size = false;
                }
            }
        }
    }

    fn expr(&mut self, e: &Expr, lvl: Lvl, tail: bool) {
        urchin_base::stack::deep(|| self.expr_inner(e, lvl, tail))
    }

    fn expr_inner(&mut self, e: &Expr, lvl: Lvl, tail: bool) {
        if self.overflow {
            return;
        }
        if level(e) < lvl || (tail && is_open(e)) {
            self.w("(");
            self.expr(e, Lvl::Expr, false);
            self.w(")");
            return;
        }
        match &e.kind {
            ExprKind::Literal(l) => self.literal(l),
            ExprKind::Var(q) => self.w(&name(&q.to_string(), &q.name)),
            ExprKind::OpValue(op) => self.w(&format!("({})", op.symbol())),
            ExprKind::OpSection { op, left, right } => {
                let (ll, rl) = operand_levels(op);
                self.w("(");
                if let Some(l) = left {
                    self.expr(l, ll, true);
                    self.w(" ");
                }
                self.w(&op.symbol());
                if let Some(r) = right {
                    self.w(" ");
                    self.expr(r, rl, false);
                }
                self.w(")");
            }
            ExprKind::ProjSection(fs) => self.w(&format!("(.{})", fs.join("."))),
            ExprKind::ArrayLit(es) => {
                let one_line = self.fits(e, 0);
                self.list(one_line, "[", "]", es, |p, x| p.expr(x, Lvl::Expr, false));
            }
            ExprKind::Tuple(es) => {
                let one_line = self.fits(e, 0);
                self.list(one_line, "(", ")", es, |p, x| p.expr(x, Lvl::Expr, false));
            }
            ExprKind::Record(fs) => {
                let one_line = self.fits(e, 0);
                self.list(one_line, "{", "}", fs, |p, (n, x)| {
                    p.w(n);
                    // `{x = x}` as it was likely written, `{x}`.
                    if !matches!(&x.kind, ExprKind::Var(q) if q.is_local() && q.name == *n) {
                        p.w(" = ");
                        p.expr(x, Lvl::Expr, false);
                    }
                });
            }
            ExprKind::Project(x, f) => {
                self.postfix_head(x);
                self.w(".");
                self.w(f);
            }
            ExprKind::Index(x, is) => {
                self.postfix_head(x);
                self.indices(is);
            }
            ExprKind::Apply(f, args) => {
                self.expr(f, Lvl::Atom, true);
                for a in args {
                    self.w(" ");
                    self.expr(a, Lvl::Atom, true);
                }
            }
            ExprKind::BinOp(op, _, l, r) => {
                let (ll, rl) = operand_levels(op);
                self.expr(l, ll, true);
                self.w(&format!(" {} ", op.symbol()));
                self.expr(r, rl, tail);
            }
            ExprKind::UnOp(op, x) => {
                self.w(match op {
                    UnOpKind::Neg => "-",
                    UnOpKind::Not => "!",
                });
                // `- -x` must not print as the comment `--x`, nor `!(!x)`
                // as the operator `!!`.
                if matches!(x.kind, ExprKind::UnOp(..)) {
                    self.w("(");
                    self.expr(x, Lvl::Expr, false);
                    self.w(")");
                } else {
                    self.expr(x, Lvl::Unary, tail);
                }
            }
            ExprKind::Lambda(ps, ret, body) => {
                self.w("\\");
                for (i, p) in ps.iter().enumerate() {
                    if i > 0 {
                        self.w(" ");
                    }
                    self.pat_atom(p);
                }
                if let Some(t) = ret {
                    self.w(" : ");
                    self.ty(t, TLvl::Term);
                }
                self.w(" ->");
                self.block(body);
            }
            ExprKind::Let(..) | ExprKind::LetFun(_) => self.let_chain(e),
            ExprKind::If(c, t, f) => {
                if !self.fits(e, 0) {
                    self.w("if ");
                    self.expr(c, Lvl::Expr, false);
                    self.nl();
                    self.w("then");
                    self.block(t);
                    self.nl();
                    self.w("else");
                    if matches!(f.kind, ExprKind::If(..)) {
                        self.w(" ");
                        self.expr(f, Lvl::Expr, false);
                    } else {
                        self.block(f);
                    }
                } else {
                    self.w("if ");
                    self.expr(c, Lvl::Expr, false);
                    self.w(" then ");
                    self.expr(t, Lvl::Expr, false);
                    self.w(" else ");
                    self.expr(f, Lvl::Expr, false);
                }
            }
            ExprKind::Loop(l) => {
                self.w("loop ");
                self.pat_full(&l.pat);
                if let Some(init) = &l.init {
                    self.w(" = ");
                    self.expr(init, Lvl::Expr, false);
                }
                match &l.form {
                    LoopForm::For(i, _, n) => {
                        self.w(&format!(" for {i} < "));
                        self.expr(n, Lvl::Expr, false);
                    }
                    LoopForm::ForIn(p, xs) => {
                        self.w(" for ");
                        self.pat_full(p);
                        self.w(" in ");
                        self.expr(xs, Lvl::Expr, false);
                    }
                    LoopForm::While(c) => {
                        self.w(" while ");
                        self.expr(c, Lvl::Expr, false);
                    }
                }
                self.w(" do");
                self.block(&l.body);
            }
            ExprKind::Update(a, is, v) => {
                self.expr(a, Lvl::With, true);
                self.w(" with ");
                self.indices(is);
                self.w(" = ");
                self.expr(v, Lvl::Op(1), tail);
            }
            ExprKind::RecordUpdate(r, path, v) => {
                self.expr(r, Lvl::With, true);
                self.w(&format!(" with {} = ", path.join(".")));
                self.expr(v, Lvl::Op(1), tail);
            }
            ExprKind::Ascript(x, t) => {
                self.expr(x, Lvl::With, true);
                self.w(" : ");
                self.ty(t, TLvl::Arrow);
            }
            ExprKind::Attr(a, x) => {
                self.w(&format!("#[{a}] "));
                self.expr(x, Lvl::Expr, tail);
            }
            ExprKind::Range(r) => {
                self.expr(&r.start, Lvl::Op(0), true);
                if let Some(x) = &r.second {
                    self.w("..");
                    self.expr(x, Lvl::Op(0), true);
                }
                self.w(r.kind.symbol());
                // `..<-1` would lex as `..<` and the operator `-`; either
                // way a space keeps the end readable.
                if matches!(r.end.kind, ExprKind::UnOp(..)) {
                    self.w(" ");
                }
                self.expr(&r.end, Lvl::Op(0), tail);
            }
            ExprKind::StringLit(text) => self.w(&string_literal(text)),
            ExprKind::Hole => self.w("???"),
            ExprKind::OpenIn(m, x) => {
                self.w(&format!("{m}.("));
                self.expr(x, Lvl::Expr, false);
                self.w(")");
            }
            ExprKind::Constr(c, args) => {
                self.w(&format!("#{c}"));
                for a in args {
                    self.w(" ");
                    self.expr(a, Lvl::Atom, true);
                }
            }
            ExprKind::Match(x, cases) => {
                let one_line = self.fits(e, 0);
                self.w("match ");
                self.match_part(x, false);
                for (i, c) in cases.iter().enumerate() {
                    if one_line {
                        self.w(" ");
                    } else {
                        self.nl();
                    }
                    self.w("case ");
                    // `case x: a -> b -> e` would read `a -> b -> e` as
                    // the type.
                    match &c.pat {
                        Pat::Ascribed(_, t, _)
                            if matches!(**t, TypeExp::Arrow(..) | TypeExp::Exists(..)) =>
                        {
                            self.pat_atom(&c.pat)
                        }
                        p => self.pat_full(p),
                    }
                    self.w(" ->");
                    let last = i + 1 == cases.len();
                    if !last && ends_in_match(&c.body) {
                        self.w(" ");
                        self.match_part(&c.body, true);
                    } else {
                        self.block(&c.body);
                    }
                }
            }
            ExprKind::Coerce(x, t) => {
                self.expr(x, Lvl::With, true);
                self.w(" :> ");
                self.ty(t, TLvl::Arrow);
            }
            ExprKind::LetSizes(..) => self.let_chain(e),
        }
    }

    /// The scrutinee of a `match` or the body of a case before another:
    /// in parentheses if it ends in a `match` (forced for case bodies).
    fn match_part(&mut self, x: &Expr, force: bool) {
        if force || ends_in_match(x) {
            self.w("(");
            self.expr(x, Lvl::Expr, false);
            self.w(")");
        } else {
            self.expr(x, Lvl::Expr, false);
        }
    }

    /// The expression before `[i]` or `.f`; a literal gets parentheses so
    /// that `(1).0` does not read as the float `1.0` (and strings and holes,
    /// which the lexer does not let `[` index).
    fn postfix_head(&mut self, x: &Expr) {
        // A constructor name takes no postfix: `#foo.x` does not parse.
        if matches!(
            x.kind,
            ExprKind::Literal(_) | ExprKind::StringLit(_) | ExprKind::Hole | ExprKind::Constr(..)
        ) {
            self.w("(");
            self.expr(x, Lvl::Expr, false);
            self.w(")");
        } else {
            self.expr(x, Lvl::Atom, true);
        }
    }

    /// Comma-separated items between brackets: on one line, or one item
    /// per line with leading commas aligned under the opening bracket.
    fn list<T>(
        &mut self,
        one_line: bool,
        open: &str,
        close: &str,
        items: &[T],
        mut item: impl FnMut(&mut Printer, &T),
    ) {
        if one_line || items.len() < 2 {
            self.w(open);
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    self.w(", ");
                }
                item(self, x);
            }
            self.w(close);
            return;
        }
        let saved = self.indent;
        self.indent = self.column();
        for (i, x) in items.iter().enumerate() {
            if i > 0 {
                self.nl();
            }
            self.w(if i == 0 { open } else { "," });
            self.w(" ");
            item(self, x);
        }
        self.w(" ");
        self.w(close);
        self.indent = saved;
    }

    fn indices(&mut self, is: &[IndexExp]) {
        self.w("[");
        for (i, ix) in is.iter().enumerate() {
            if i > 0 {
                self.w(", ");
            }
            match ix {
                IndexExp::Single(x) => self.expr(x, Lvl::With, true),
                IndexExp::Slice { start, end, stride } => {
                    if let Some(x) = start {
                        self.expr(x, Lvl::With, true);
                    }
                    self.w(":");
                    if let Some(x) = end {
                        self.expr(x, Lvl::With, true);
                    }
                    if let Some(x) = stride {
                        self.w(":");
                        self.expr(x, Lvl::With, true);
                    }
                }
            }
        }
        self.w("]");
    }

    fn literal(&mut self, l: &Literal) {
        let suffix = |s: &Option<urchin_prim::PrimType>| s.map(|t| t.name()).unwrap_or("");
        let s = match l {
            Literal::Int { value, suffix: s } => format!("{value}{}", suffix(s)),
            Literal::Float {
                text, suffix: s, ..
            } => format!("{text}{}", suffix(s)),
            Literal::Bool(b) => b.to_string(),
        };
        self.w(&s);
    }

    /// A `let` chain: one binding per line, then `in` and the body. It
    /// starts on a fresh line (indented further when it is nested inside
    /// other code on the current line).
    fn let_chain(&mut self, e: &Expr) {
        if self.flat_limit.is_some() {
            self.overflow = true;
            return;
        }
        let nested = !self.at_line_start();
        if nested {
            self.indent += 2;
            self.nl();
        }
        let mut cur = e;
        loop {
            if let Some(note) = self.notes.get(&cur.id) {
                let line = format!("-- {note}");
                self.w(&line);
                self.nl();
            }
            match &cur.kind {
                ExprKind::Let(p, v, body) => {
                    self.w("let ");
                    // `let a = a with [i] = v`, as its sugar `let a[i] = v`.
                    let sugar = match p {
                        Pat::Id(a, _) => in_place(a, v).map(|u| (a, u)),
                        _ => None,
                    };
                    match sugar {
                        Some((a, (indices, value))) => {
                            self.w(a);
                            self.indices(indices);
                            self.w(" =");
                            self.block(value);
                        }
                        None => {
                            self.pat_full(p);
                            self.w(" =");
                            self.block(v);
                        }
                    }
                    cur = body;
                }
                ExprKind::LetSizes(ns, p, v, body) => {
                    self.w("let ");
                    for (n, _) in ns {
                        self.w(&format!("[{n}]"));
                    }
                    self.w(" ");
                    self.pat_full(p);
                    self.w(" =");
                    self.block(v);
                    cur = body;
                }
                ExprKind::LetFun(f) => {
                    self.w("let ");
                    self.w(&name(&f.name, &f.name));
                    self.type_params(&f.type_params);
                    for p in &f.params {
                        self.w(" ");
                        self.pat_atom(p);
                    }
                    if let Some(t) = &f.ret {
                        self.w(" : ");
                        self.ty(t, TLvl::Arrow);
                    }
                    self.w(" =");
                    self.block(&f.value);
                    cur = &f.body;
                }
                _ => break,
            }
            self.nl();
        }
        self.w("in");
        self.block(cur);
        if nested {
            self.indent -= 2;
        }
    }

    fn pat_atom(&mut self, p: &Pat) {
        match p {
            Pat::Id(x, _) => self.w(&name(x, x)),
            Pat::Wildcard(_) => self.w("_"),
            Pat::Tuple(ps, _) => {
                self.w("(");
                for (i, p) in ps.iter().enumerate() {
                    if i > 0 {
                        self.w(", ");
                    }
                    self.pat_full(p);
                }
                self.w(")");
            }
            Pat::Record(fs, _) => {
                self.w("{");
                for (i, (n, p)) in fs.iter().enumerate() {
                    if i > 0 {
                        self.w(", ");
                    }
                    self.w(n);
                    if let Some(p) = p {
                        self.w(" = ");
                        self.pat_full(p);
                    }
                }
                self.w("}");
            }
            // `def f -1 = ...` would define the operator `-`.
            Pat::Literal(l, true, _) => {
                self.w("(-");
                self.literal(l);
                self.w(")");
            }
            Pat::Literal(l, false, _) => self.literal(l),
            Pat::Constr(c, ps, _) if ps.is_empty() => self.w(&format!("#{c}")),
            Pat::Ascribed(..) | Pat::Constr(..) => {
                self.w("(");
                self.pat_full(p);
                self.w(")");
            }
        }
    }

    /// A pattern with its ascription or payload unparenthesised: `x: i32`,
    /// `#some x`.
    fn pat_full(&mut self, p: &Pat) {
        match p {
            Pat::Ascribed(q, t, _) => {
                self.pat_atom(q);
                self.w(": ");
                self.ty(t, TLvl::Arrow);
            }
            Pat::Constr(c, ps, _) => {
                self.w(&format!("#{c}"));
                for p in ps {
                    self.w(" ");
                    self.pat_atom(p);
                }
            }
            _ => self.pat_atom(p),
        }
    }

    fn ty(&mut self, t: &TypeExp, lvl: TLvl) {
        let own = match t {
            TypeExp::Arrow(..) | TypeExp::Exists(..) => TLvl::Arrow,
            TypeExp::Array(..) | TypeExp::Unique(..) | TypeExp::Sum(..) => TLvl::Term,
            TypeExp::Named(_, args, _) if !args.is_empty() => TLvl::Term,
            _ => TLvl::Atom,
        };
        if own < lvl {
            self.w("(");
            self.ty(t, TLvl::Arrow);
            self.w(")");
            return;
        }
        match t {
            TypeExp::Prim(p, _) => self.w(p.name()),
            TypeExp::Named(q, args, _) => {
                self.w(&q.to_string());
                for a in args {
                    self.w(" ");
                    match a {
                        TypeArg::Size(d) => self.dim(d),
                        TypeArg::Type(t) => self.ty(t, TLvl::Atom),
                    }
                }
            }
            TypeExp::Array(d, t, _) => {
                self.dim(d);
                self.ty(t, TLvl::Term);
            }
            TypeExp::Tuple(ts, _) => {
                self.w("(");
                for (i, t) in ts.iter().enumerate() {
                    if i > 0 {
                        self.w(", ");
                    }
                    self.ty(t, TLvl::Arrow);
                }
                self.w(")");
            }
            TypeExp::Record(fs, _) => {
                self.w("{");
                for (i, (n, t)) in fs.iter().enumerate() {
                    if i > 0 {
                        self.w(", ");
                    }
                    self.w(n);
                    self.w(": ");
                    self.ty(t, TLvl::Arrow);
                }
                self.w("}");
            }
            TypeExp::Arrow(None, a, b, _) => {
                self.ty(a, TLvl::Term);
                self.w(" -> ");
                self.ty(b, TLvl::Arrow);
            }
            TypeExp::Arrow(Some(x), a, b, _) => {
                self.w(&format!("({x}: "));
                self.ty(a, TLvl::Arrow);
                self.w(") -> ");
                self.ty(b, TLvl::Arrow);
            }
            TypeExp::Unique(t, _) => {
                self.w("*");
                // `**t` would lex as the operator `**`.
                if matches!(**t, TypeExp::Unique(..)) {
                    self.ty(t, TLvl::Atom);
                } else {
                    self.ty(t, TLvl::Term);
                }
            }
            TypeExp::Sum(cs, _) => {
                for (i, (c, ts)) in cs.iter().enumerate() {
                    if i > 0 {
                        self.w(" | ");
                    }
                    self.w(&format!("#{c}"));
                    for t in ts {
                        self.w(" ");
                        self.ty(t, TLvl::Atom);
                    }
                }
            }
            TypeExp::Exists(ns, t, _) => {
                self.w("?");
                for n in ns {
                    self.w(&format!("[{n}]"));
                }
                self.w(".");
                self.ty(t, TLvl::Arrow);
            }
        }
    }

    fn dim(&mut self, d: &Dim) {
        match d {
            Dim::Any => self.w("[]"),
            Dim::Named(n) => self.w(&format!("[{n}]")),
            Dim::Const(c) => self.w(&format!("[{c}]")),
            Dim::Exp(e) => {
                self.w("[");
                self.expr(e, Lvl::Expr, false);
                self.w("]");
            }
        }
    }
}

/// A name as written where an identifier is expected: an operator symbol
/// in parentheses (`(+^)`, `(i32.+)`). `bare` is the unqualified part.
fn name(full: &str, bare: &str) -> String {
    if is_symbol_name(bare) {
        format!("({full})")
    } else {
        full.to_string()
    }
}

/// A string literal with the escapes the lexer reads back.
pub fn string_literal(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The levels of the left and right operands of a binary operator.
pub fn operand_levels(op: &BinOpKind) -> (Lvl, Lvl) {
    let p = op.precedence();
    if op.right_assoc() {
        (Lvl::Op(p + 1), Lvl::Op(p))
    } else {
        (Lvl::Op(p), Lvl::Op(p + 1))
    }
}
