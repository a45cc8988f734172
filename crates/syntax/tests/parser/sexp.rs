//! A compact S-expression view of ASTs, so tests can state the shape a
//! snippet parses to in one readable line (independently of the printer).

use urchin_base::source::FileId;
use urchin_syntax::ast::*;
use urchin_syntax::{parse_expr, parse_program, parse_type};

/// The shape an expression parses to.
#[track_caller]
pub fn parse_e(src: &str) -> String {
    match parse_expr(src, FileId(0)) {
        Ok(x) => expr(&x),
        Err(ds) => panic!("{src:?} failed to parse: {ds:?}"),
    }
}

/// The shape a type parses to.
#[track_caller]
pub fn parse_t(src: &str) -> String {
    match parse_type(src, FileId(0)) {
        Ok(x) => ty(&x),
        Err(ds) => panic!("{src:?} failed to parse: {ds:?}"),
    }
}

/// The shapes the declarations of a program parse to.
#[track_caller]
pub fn parse_d(src: &str) -> Vec<String> {
    match parse_program(src, FileId(0)) {
        Ok(p) => p.decs.iter().map(dec).collect(),
        Err(ds) => panic!("{src:?} failed to parse: {ds:?}"),
    }
}

fn join<T>(xs: &[T], f: impl Fn(&T) -> String) -> String {
    xs.iter().map(f).collect::<Vec<_>>().join(" ")
}

pub fn ty(t: &TypeExp) -> String {
    match t {
        TypeExp::Prim(p, _) => p.name().to_string(),
        TypeExp::Named(q, args, _) if args.is_empty() => q.to_string(),
        TypeExp::Named(q, args, _) => format!(
            "({q} {})",
            join(args, |a| match a {
                TypeArg::Size(d) => dim(d),
                TypeArg::Type(t) => ty(t),
            })
        ),
        TypeExp::Array(d, t, _) => format!("({} {})", dim(d), ty(t)),
        TypeExp::Tuple(ts, _) => format!("(tuple {})", join(ts, ty)).replace(" )", ")"),
        TypeExp::Record(fs, _) => format!("{{{}}}", join(fs, |(n, t)| format!("{n}:{}", ty(t)))),
        TypeExp::Arrow(None, a, b, _) => format!("(-> {} {})", ty(a), ty(b)),
        TypeExp::Arrow(Some(x), a, b, _) => format!("(-> ({x}: {}) {})", ty(a), ty(b)),
        TypeExp::Unique(t, _) => format!("(* {})", ty(t)),
        TypeExp::Sum(cs, _) => format!(
            "(sum {})",
            join(cs, |(c, ts)| format!("(#{c} {})", join(ts, ty))
                .replace(" )", ")"))
        ),
        TypeExp::Exists(ns, t, _) => format!("(? [{}] {})", ns.join(" "), ty(t)),
    }
}

fn dim(d: &Dim) -> String {
    match d {
        Dim::Any => "[]".into(),
        Dim::Named(n) => format!("[{n}]"),
        Dim::Const(c) => format!("[{c}]"),
        Dim::Exp(e) => format!("[{}]", expr(e)),
    }
}

pub fn pat(p: &Pat) -> String {
    match p {
        Pat::Id(x, _) => x.to_string(),
        Pat::Wildcard(_) => "_".into(),
        Pat::Tuple(ps, _) => format!("(tuple {})", join(ps, pat)).replace(" )", ")"),
        Pat::Record(fs, _) => format!(
            "{{{}}}",
            join(fs, |(n, p)| match p {
                Some(p) => format!("{n}={}", pat(p)),
                None => n.to_string(),
            })
        ),
        Pat::Ascribed(p, t, _) => format!("(: {} {})", pat(p), ty(t)),
        Pat::Literal(l, neg, _) => format!("{}{}", if *neg { "-" } else { "" }, lit(l)),
        Pat::Constr(c, ps, _) => format!("(#{c} {})", join(ps, pat)).replace(" )", ")"),
    }
}

fn tparam(t: &TypeParam) -> String {
    match t {
        TypeParam::Size(n, _) => format!("[{n}]"),
        TypeParam::Type(n, Liftedness::Plain, _) => format!("'{n}"),
        TypeParam::Type(n, Liftedness::SizeLifted, _) => format!("'~{n}"),
        TypeParam::Type(n, Liftedness::Lifted, _) => format!("'^{n}"),
    }
}

fn index(i: &IndexExp) -> String {
    match i {
        IndexExp::Single(e) => expr(e),
        IndexExp::Slice { start, end, stride } => {
            let o = |x: &Option<Box<Expr>>| x.as_deref().map(expr).unwrap_or_default();
            match stride {
                Some(_) => format!("{}:{}:{}", o(start), o(end), o(stride)),
                None => format!("{}:{}", o(start), o(end)),
            }
        }
    }
}

fn lit(l: &Literal) -> String {
    let suf = |s: &Option<urchin_prim::PrimType>| s.map(|t| t.name()).unwrap_or("");
    match l {
        Literal::Int { value, suffix } => format!("{value}{}", suf(suffix)),
        Literal::Float {
            value,
            text,
            suffix,
        } => format!("{text}{}={value}", suf(suffix)),
        Literal::Bool(b) => b.to_string(),
    }
}

pub fn expr(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Literal(l) => lit(l),
        ExprKind::Var(q) => q.to_string(),
        ExprKind::OpValue(o) => format!("(op {})", o.symbol()),
        ExprKind::OpSection { op, left, right } => match (left, right) {
            (Some(l), None) => format!("(lsec {} {})", op.symbol(), expr(l)),
            (None, Some(r)) => format!("(rsec {} {})", op.symbol(), expr(r)),
            _ => format!("(section? {})", op.symbol()),
        },
        ExprKind::ProjSection(fs) => format!("(.{})", fs.join(".")),
        ExprKind::ArrayLit(es) => format!("[{}]", join(es, expr)),
        ExprKind::Tuple(es) => format!("(tuple {})", join(es, expr)).replace(" )", ")"),
        ExprKind::Record(fs) => format!("{{{}}}", join(fs, |(n, e)| format!("{n}={}", expr(e)))),
        ExprKind::Project(e, f) => format!("(. {} {f})", expr(e)),
        ExprKind::RecordUpdate(r, path, v) => {
            format!("(with {} {} {})", expr(r), path.join("."), expr(v))
        }
        ExprKind::Apply(f, args) => format!("(app {} {})", expr(f), join(args, expr)),
        ExprKind::BinOp(op, _, l, r) => format!("({} {} {})", op.symbol(), expr(l), expr(r)),
        ExprKind::UnOp(UnOpKind::Neg, e) => format!("(neg {})", expr(e)),
        ExprKind::UnOp(UnOpKind::Not, e) => format!("(not {})", expr(e)),
        ExprKind::Lambda(ps, ret, body) => format!(
            "(\\ ({}){} {})",
            join(ps, pat),
            ret.as_deref()
                .map(|t| format!(" : {}", ty(t)))
                .unwrap_or_default(),
            expr(body)
        ),
        ExprKind::Let(p, v, b) => format!("(let {} {} {})", pat(p), expr(v), expr(b)),
        ExprKind::LetFun(f) => format!(
            "(letfun {}{} ({}){} {} {})",
            f.name,
            f.type_params
                .iter()
                .map(|t| format!(" {}", tparam(t)))
                .collect::<String>(),
            join(&f.params, pat),
            f.ret
                .as_ref()
                .map(|t| format!(" : {}", ty(t)))
                .unwrap_or_default(),
            expr(&f.value),
            expr(&f.body)
        ),
        ExprKind::If(c, t, f) => format!("(if {} {} {})", expr(c), expr(t), expr(f)),
        ExprKind::Loop(l) => format!(
            "(loop {}{} {} {})",
            pat(&l.pat),
            l.init
                .as_ref()
                .map(|e| format!(" {}", expr(e)))
                .unwrap_or_default(),
            match &l.form {
                LoopForm::For(i, _, n) => format!("(for {i} < {})", expr(n)),
                LoopForm::ForIn(p, xs) => format!("(for {} in {})", pat(p), expr(xs)),
                LoopForm::While(c) => format!("(while {})", expr(c)),
            },
            expr(&l.body)
        ),
        ExprKind::Index(a, is) => format!("(index {} [{}])", expr(a), join(is, index)),
        ExprKind::Update(a, is, v) => {
            format!("(with {} [{}] {})", expr(a), join(is, index), expr(v))
        }
        ExprKind::Ascript(e, t) => format!("(: {} {})", expr(e), ty(t)),
        ExprKind::Attr(a, e) => format!("(#[{a}] {})", expr(e)),
        ExprKind::Range(r) => format!(
            "(range {}{} {} {})",
            expr(&r.start),
            r.second
                .as_ref()
                .map(|x| format!(" {}", expr(x)))
                .unwrap_or_default(),
            r.kind.symbol(),
            expr(&r.end)
        ),
        ExprKind::StringLit(s) => format!("(string {s:?})"),
        ExprKind::Hole => "???".into(),
        ExprKind::OpenIn(m, x) => format!("(open {m} {})", expr(x)),
        ExprKind::Constr(c, es) => format!("(#{c} {})", join(es, expr)).replace(" )", ")"),
        ExprKind::Match(x, cases) => format!(
            "(match {} {})",
            expr(x),
            join(cases, |c| format!(
                "(case {} {})",
                pat(&c.pat),
                expr(&c.body)
            ))
        ),
        ExprKind::Coerce(e, t) => format!("(:> {} {})", expr(e), ty(t)),
        ExprKind::LetSizes(ns, p, v, b) => format!(
            "(let [{}] {} {} {})",
            join(ns, |(n, _)| n.to_string()),
            pat(p),
            expr(v),
            expr(b)
        ),
    }
}

pub fn dec(d: &Dec) -> String {
    match d {
        Dec::Val(v) => format!(
            "({}{} {}{} ({}){} {}){}",
            match v.keyword {
                DefKeyword::Def => "def",
                DefKeyword::Let => "let",
                DefKeyword::Entry => "entry",
            },
            v.attrs
                .iter()
                .map(|a| format!(" #[{a}]"))
                .collect::<String>(),
            v.name,
            v.type_params
                .iter()
                .map(|t| format!(" {}", tparam(t)))
                .collect::<String>(),
            join(&v.params, pat),
            v.ret
                .as_ref()
                .map(|t| format!(" : {}", ty(t)))
                .unwrap_or_default(),
            expr(&v.body),
            v.doc
                .as_ref()
                .map(|d| format!(" doc={d:?}"))
                .unwrap_or_default(),
        ),
        Dec::Type(t) => format!(
            "(type{} {}{} {})",
            match t.lifted {
                Liftedness::Plain => "",
                Liftedness::SizeLifted => "~",
                Liftedness::Lifted => "^",
            },
            t.name,
            t.params
                .iter()
                .map(|p| format!(" {}", tparam(p)))
                .collect::<String>(),
            ty(&t.ty)
        ),
        // Module declarations print as written.
        _ => urchin_syntax::pretty::dec(d),
    }
}
