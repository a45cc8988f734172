//! The reduction relation: contexts, redexes and rules (thesis Figures
//! 4.4 and 4.5, extended to the whole language; docs/SEMANTICS.md lists
//! every rule).
//!
//! A step finds the unique decomposition `K⟨r⟩` of a term (left-to-right,
//! call by value: [`Term::context`] lists the evaluation contexts of every
//! kind of term) and replaces the redex `r` by its contractum. Terms that
//! are values by their form — `\x -> e`, `(v1, v2)`, `[v1, v2]`, `rep v`,
//! `map f` — are turned into [`Value`]s as the search passes them; that is
//! a change of representation, not a step. An array whose elements turn
//! out to have different shapes is the one such form that is stuck.

use super::convert::{self, ReplValues, ascribe};
use super::dual;
use super::prims;
use super::term::*;
use std::fmt;
use std::rc::Rc;
use urchin_base::mem::Budget;
use urchin_base::source::Span;
use urchin_prim::{self as prim, BinOp, Scalar};
use urchin_runtime::index::Ix;
use urchin_runtime::{CallFrame, Error, Raise, RuntimeError};
use urchin_syntax::ast::{BinOpKind, Dim, Ident, Pat, TypeExp, UnOpKind};
use urchin_syntax::pretty;
use urchin_types::intrinsics::Intrinsic;
use urchin_types::sizes::{ArgPlace, ArgSizes, SizeOp, invalid_argument};
use urchin_types::{CheckedDef, TypeEnv};

/// What a redex that cannot be contracted raises (a stuck state): the
/// run-time error vocabulary both evaluators share.
pub(crate) fn not_defined(what: impl fmt::Display) -> Error {
    Error::unsupported(format!(
        "{what} is not supported by the reference semantics"
    ))
}

/// Why evaluation stopped before reaching a value.
#[derive(Clone, Debug, PartialEq)]
pub enum Stop {
    /// A stuck state: a run-time error at the span of the redex (of kind
    /// `Unsupported` where the program is valid but the reference does
    /// not define what it does).
    Error(RuntimeError),
    /// The step budget ran out after this many steps.
    Budget(u64),
    Interrupted,
}

impl From<RuntimeError> for Stop {
    fn from(e: RuntimeError) -> Stop {
        Stop::Error(e)
    }
}

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stop::Error(e) => write!(f, "{}", e.message),
            Stop::Budget(n) => write!(f, "gave up after {n} steps (the step budget)"),
            Stop::Interrupted => f.write_str("interrupted"),
        }
    }
}

/// The name of a reduction rule, with what it applied to (`DEF main`,
/// `δ +`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    pub name: &'static str,
    pub subject: Option<Rc<str>>,
}

impl Rule {
    pub fn new(name: &'static str) -> Rule {
        Rule {
            name,
            subject: None,
        }
    }

    pub fn on(name: &'static str, subject: impl Into<Rc<str>>) -> Rule {
        Rule {
            name,
            subject: Some(subject.into()),
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.subject {
            Some(s) => write!(f, "{} {s}", self.name),
            None => f.write_str(self.name),
        }
    }
}

pub type R<T> = Result<T, Error>;

/// The reduction relation of one session: definitions to unfold, values
/// bound at the REPL.
pub struct Machine<'a> {
    pub types: &'a TypeEnv,
    /// The session's memory limit, which unfolded terms are checked
    /// against.
    pub memory: Budget,
    pub values: ReplValues<'a>,
}

/// A term split into a context and what fills its hole: paths are
/// context indices from the root.
#[derive(Debug)]
pub enum Decomposition {
    Value,
    Redex(Vec<usize>),
    /// A value form that cannot be a value (an irregular array).
    Stuck(Vec<usize>, Stop),
}

/// A stuck state at the end of `path` in `t`, inside the calls on the
/// path (`TermKind::Call`), innermost first.
fn in_calls(stop: Stop, t: &Term, path: &[usize]) -> Stop {
    let Stop::Error(e) = stop else {
        return stop;
    };
    let mut calls = Vec::new();
    let mut node = Some(t);
    for &i in path {
        let Some(n) = node else { break };
        if let TermKind::Call(f, _) = &n.kind {
            calls.push(CallFrame {
                callee: f.as_ref().into(),
                site: n.span,
            });
        }
        node = n.context(i);
    }
    calls.reverse();
    Stop::Error(e.within(calls))
}

/// How many `tangent ε` terms (running `jvp`s) are on the path.
fn count_tangents(t: &Term, path: &[usize]) -> u32 {
    let mut n = 0;
    let mut node = Some(t);
    for &i in path {
        let Some(x) = node else { break };
        n += u32::from(matches!(x.kind, TermKind::Tangent(..)));
        node = x.context(i);
    }
    n
}

/// The subterm at a path of context indices.
pub fn at<'t>(t: &'t Term, path: &[usize]) -> Option<&'t Term> {
    path.iter().try_fold(t, |t, &i| t.context(i))
}

/// Whether the term at `path` is an array of no elements (what a `map`
/// over empty arrays contracts to).
pub(crate) fn is_empty_array(t: &Term, path: &[usize]) -> bool {
    at(t, path).is_some_and(|n| matches!(&n.kind, TermKind::Array(es, _, _) if es.is_empty()))
}

fn at_mut<'t>(t: &'t mut Term, path: &[usize]) -> Option<&'t mut Term> {
    path.iter().try_fold(t, |t, &i| t.context_mut(i))
}

impl Machine<'_> {
    /// Decomposes `t` as `K⟨r⟩`.
    pub fn decompose(&self, t: &mut Term) -> Decomposition {
        let mut path = Vec::new();
        match find(t, &mut path) {
            Ok(true) => Decomposition::Value,
            Ok(false) => Decomposition::Redex(path),
            Err(stop) => {
                let stop = in_calls(stop, t, &path);
                Decomposition::Stuck(path, stop)
            }
        }
    }

    /// Contracts the redex at `path` (found by [`Machine::decompose`]).
    pub fn contract(&self, t: &mut Term, path: &[usize]) -> Result<Rule, Stop> {
        let span = t.span;
        let jvps = count_tangents(t, path);
        let r = at_mut(t, path).ok_or_else(|| Error::internal("no redex at the path").at(span))?;
        match self.reduce(r, jvps) {
            Ok((new, rule)) => {
                *r = new;
                Ok(rule)
            }
            Err(f) => {
                let stop = f.at(r.span).into();
                Err(in_calls(stop, t, path))
            }
        }
    }

    /// One step: `K⟨r⟩ ⇝ K⟨e⟩`; `None` when `t` is already a value.
    pub fn step(&self, t: &mut Term) -> Result<Option<Rule>, Stop> {
        match self.decompose(t) {
            Decomposition::Value => Ok(None),
            Decomposition::Redex(path) => self.contract(t, &path).map(Some),
            Decomposition::Stuck(_, stop) => Err(stop),
        }
    }

    /// `r ⇝ e`, for a redex `r` whose contexts hold values, inside `jvps`
    /// `jvp`s (the number of the next one's `ε` is one more).
    fn reduce(&self, t: &Term, jvps: u32) -> R<(Term, Rule)> {
        let mem = self.memory;
        let span = t.span;
        let v = |x: &Term| {
            x.value()
                .cloned()
                .ok_or_else(|| Error::internal("a context that is not a value"))
        };
        let out = |kind: TermKind| Term::new(kind, span);
        match &t.kind {
            TermKind::Global { name, def, inst } => {
                let body = convert::unfold(self.types, *def, inst.clone(), self.values)?;
                Ok((body, Rule::on("DEF", name.clone())))
            }
            TermKind::App(f, x) => {
                let f = v(f)?;
                if let Value::Fun(fun) = &f
                    && let Fun::Prim {
                        op: op @ (Intrinsic::Jvp | Intrinsic::Jvp2),
                        args,
                        ..
                    } = &**fun
                    && let [g, at] = &args[..]
                {
                    // JVP: `jvp f x ẋ ⇝ tangent ε (f (x + ẋε))`.
                    let tag = jvps + 1;
                    let point = dual::make(tag, at, &v(x)?)?;
                    let part = if *op == Intrinsic::Jvp {
                        dual::Part::Tangent
                    } else {
                        dual::Part::Both
                    };
                    let call = Term::app(Term::val(g.clone(), span), Term::val(point, span), span);
                    return Ok((
                        out(TermKind::Tangent(tag, part, Box::new(call))),
                        Rule::new("JVP"),
                    ));
                }
                apply(&f, v(x)?, span, mem)
            }
            TermKind::Tangent(tag, part, x) => {
                let x = v(x)?;
                let r = match part {
                    dual::Part::Tangent => dual::tangent(*tag, &x)?,
                    dual::Part::Both => {
                        Value::tuple(vec![dual::primal(*tag, &x)?, dual::tangent(*tag, &x)?])
                    }
                };
                Ok((Term::val(r, span), Rule::new("TANGENT")))
            }
            TermKind::BinOp(op, l, r) => {
                let lv = v(l)?;
                match op {
                    BinOpKind::And | BinOpKind::Or => {
                        let and = *op == BinOpKind::And;
                        let b = truth(&lv)?;
                        let rule = Rule::new(if and { "AND" } else { "OR" });
                        if b == and {
                            Ok(((**r).clone(), rule))
                        } else {
                            // A constant: `x || y` is `if x then true
                            // else y` (no tangent when `x` is a dual).
                            Ok((Term::val(Value::bool(b), span), rule))
                        }
                    }
                    _ => prims::binary(op, lv, v(r)?, span),
                }
            }
            TermKind::UnOp(op, x) => {
                let u = match op {
                    UnOpKind::Neg => prim::UnOp::Neg,
                    UnOpKind::Not => prim::UnOp::Not,
                };
                let sym = if *op == UnOpKind::Neg { "-" } else { "!" };
                Ok((
                    out(TermKind::Val(dual::unop(u, &v(x)?)?)),
                    Rule::on("δ", sym),
                ))
            }
            TermKind::Project(x, f) => Ok((
                Term::val(prims::project(&v(x)?, f)?, span),
                Rule::new("PROJ"),
            )),
            TermKind::RecordUpdate(r, path, x) => {
                let new = prims::update_field(&v(r)?, path, v(x)?)?;
                Ok((Term::val(new, span), Rule::new("WITH-FIELD")))
            }
            TermKind::Let(p, e, body) | TermKind::LetSizes(_, p, e, body) => {
                let mut s = Subst::new();
                match_pat(p, &v(e)?, "the let-bound value", &mut s)?;
                Ok((body.subst(&s), Rule::new("LET")))
            }
            TermKind::Match(x, cases) => {
                let x = v(x)?;
                for (p, body) in cases {
                    let mut s = Subst::new();
                    if try_match(p, &x, "the matched value", &mut s)? {
                        return Ok((body.subst(&s), Rule::on("MATCH", pretty::pat(p))));
                    }
                }
                Err(Error::internal("no case of a `match` matches"))
            }
            TermKind::LetFun(f, lam, body) => {
                let mut s = Subst::new();
                s.bind(f.clone(), Value::fun(Fun::Lambda(lam.clone())));
                Ok((body.subst(&s), Rule::on("LET-FUN", f.clone())))
            }
            TermKind::If(c, a, b) => {
                if truth(&v(c)?)? {
                    Ok(((**a).clone(), Rule::new("IF-TRUE")))
                } else {
                    Ok(((**b).clone(), Rule::new("IF-FALSE")))
                }
            }
            TermKind::Loop(l) => self.loop_(l, span),
            TermKind::Index(a, ix) => {
                let r = prims::index(&v(a)?, &index_values(ix)?)?;
                Ok((Term::val(r, span), Rule::new("INDEX")))
            }
            TermKind::Update(a, ix, x) => {
                let r = prims::update(&v(a)?, &index_values(ix)?, v(x)?)?;
                Ok((Term::val(r, span), Rule::new("WITH")))
            }
            TermKind::Ascribe(x, ty, what) => {
                let x = v(x)?;
                let mut sizes = Subst::new();
                bind_sizes(ty, &x, 0, what, &mut sizes)?;
                let x = adopt_shape(ty, x, &sizes, mem)?;
                Ok((Term::val(x, span), Rule::new("ASCRIBE")))
            }
            TermKind::Var(x) => Err(Error::internal(format!("the variable `{x}` is not bound"))),
            TermKind::Val(_)
            | TermKind::Call(..)
            | TermKind::Lambda(_)
            | TermKind::Section(..)
            | TermKind::Array(..)
            | TermKind::Tuple(_)
            | TermKind::Constr(..)
            | TermKind::Record(_) => Err(Error::internal("a value taken for a redex")),
        }
    }

    fn loop_(&self, l: &Loop, span: Span) -> R<(Term, Rule)> {
        let init = l
            .init
            .value()
            .cloned()
            .ok_or_else(|| Error::internal("a loop whose initial value is not a value"))?;
        let again = |init: Term, form: Form| {
            Term::new(
                TermKind::Loop(Box::new(Loop {
                    pat: l.pat.clone(),
                    init,
                    form,
                    body: l.body.clone(),
                })),
                span,
            )
        };
        let mut s = Subst::new();
        match &l.form {
            Form::For { i, bound, from } => {
                let n = scalar(
                    bound
                        .value()
                        .ok_or_else(|| Error::internal("a loop bound that is not a value"))?,
                )?;
                let k = from.unwrap_or(Scalar::zero(n.ty()));
                if !truth(&Value::Scalar(prim::binop(BinOp::Lt, k, n)?))? {
                    return Ok((Term::val(init, span), Rule::new("LOOP-END")));
                }
                match_pat(&l.pat, &init, "the loop parameter", &mut s)?;
                s.bind(i.clone(), Value::Scalar(k));
                let form = Form::For {
                    i: i.clone(),
                    bound: bound.clone(),
                    from: Some(prim::binop(BinOp::Add, k, Scalar::one(k.ty()))?),
                };
                Ok((again(l.body.subst(&s), form), Rule::new("LOOP-FOR")))
            }
            Form::ForIn(p, xs) => {
                let xs = xs
                    .value()
                    .ok_or_else(|| Error::internal("a loop array that is not a value"))?;
                let es = match xs {
                    Value::Array(es) => es,
                    Value::Rep(_) => return Err(Error::rep_length()),
                    _ => return Err(Error::internal("a for-in loop over a non-array")),
                };
                let Some(first) = es.first() else {
                    return Ok((Term::val(init, span), Rule::new("LOOP-END")));
                };
                match_pat(&l.pat, &init, "the loop parameter", &mut s)?;
                match_pat(p, first, "the loop element", &mut s)?;
                let form = Form::ForIn(p.clone(), Term::val(es.drop(1), xs_span(l)));
                Ok((again(l.body.subst(&s), form), Rule::new("LOOP-IN")))
            }
            Form::While(c) => {
                match_pat(&l.pat, &init, "the loop parameter", &mut s)?;
                let next = again(l.body.subst(&s), l.form.clone());
                let t = TermKind::If(
                    Box::new(c.subst(&s)),
                    Box::new(next),
                    Box::new(Term::val(init, span)),
                );
                Ok((Term::new(t, span), Rule::new("LOOP-WHILE")))
            }
        }
    }
}

fn xs_span(l: &Loop) -> Span {
    match &l.form {
        Form::ForIn(_, xs) => xs.span,
        _ => l.init.span,
    }
}

/// Searches `t` for the redex in evaluation order, turning value forms
/// into values on the way. Returns whether `t` is a value; if not, `path`
/// leads to the redex.
/// Terms nested deeper than this are a stack overflow: recursion grows
/// the term by a few levels per call, and the term's own traversals
/// (finding the redex, substitution, dropping) recurse over its depth.
pub const MAX_TERM_DEPTH: usize = 2_000;

fn find(t: &mut Term, path: &mut Vec<usize>) -> Result<bool, Stop> {
    if t.is_value() {
        return Ok(true);
    }
    if path.len() >= MAX_TERM_DEPTH {
        return Err(Error::term_too_deep(MAX_TERM_DEPTH).at(t.span).into());
    }
    if let TermKind::Array(es, _, done) = &mut t.kind {
        while let Some(c) = es.get_mut(*done) {
            if !c.is_value() {
                path.push(*done);
                if !find(c, path)? {
                    return Ok(false);
                }
                path.pop();
            }
            *done += 1;
        }
    } else {
        let mut i = 0;
        while let Some(c) = t.context_mut(i) {
            if !c.is_value() {
                path.push(i);
                if !find(c, path)? {
                    return Ok(false);
                }
                path.pop();
            }
            i += 1;
        }
    }
    match as_value(t).map_err(|f| f.at(t.span))? {
        Some(v) => {
            t.kind = TermKind::Val(v);
            Ok(true)
        }
        None => Ok(false),
    }
}

/// The value a term whose contexts hold values denotes by its form, or
/// `None` if it is a redex.
fn as_value(t: &Term) -> R<Option<Value>> {
    let v = |x: &Term| x.value().cloned();
    Ok(match &t.kind {
        TermKind::Lambda(l) => Some(Value::fun(Fun::Lambda(l.clone()))),
        TermKind::Call(_, body) => v(body),
        TermKind::Tuple(es) => Some(Value::tuple(es.iter().filter_map(v).collect())),
        TermKind::Constr(c, es) => Some(Value::Sum(c.clone(), es.iter().filter_map(v).collect())),
        TermKind::Record(fs) => {
            let mut fs: Vec<(urchin_syntax::ast::Ident, Value)> = fs
                .iter()
                .filter_map(|(n, e)| Some((n.clone(), v(e)?)))
                .collect();
            fs.sort_by(|a, b| a.0.cmp(&b.0));
            Some(Value::Record(fs.into()))
        }
        TermKind::Array(es, origin, _) => {
            let vs: Vec<Value> = es.iter().filter_map(v).collect();
            prims::check_regular(&vs, *origin)?;
            Some(Value::array(vs))
        }
        TermKind::Section(op, l, r) => Some(Value::fun(Fun::Section {
            op: op.clone(),
            left: l.as_deref().and_then(v),
            right: r.as_deref().and_then(v),
        })),
        TermKind::BinOp(op @ (BinOpKind::ComposeRight | BinOpKind::ComposeLeft), l, r) => {
            let (l, r) = (v(l), v(r));
            let forward = *op == BinOpKind::ComposeRight;
            let (first, second) = if forward { (l, r) } else { (r, l) };
            first.zip(second).map(|(first, second)| {
                Value::fun(Fun::Compose {
                    first,
                    second,
                    forward,
                })
            })
        }
        TermKind::App(f, x) => match (v(f), v(x)) {
            (Some(Value::Fun(f)), Some(x)) => match &*f {
                Fun::Prim {
                    op: Intrinsic::Rep, ..
                } => Some(Value::rep(x)),
                Fun::Prim { name, op, args } if args.len() + 1 < op.arity() => {
                    let mut args = args.clone();
                    args.push(x);
                    Some(Value::fun(Fun::Prim {
                        name: name.clone(),
                        op: op.clone(),
                        args,
                    }))
                }
                _ => None,
            },
            _ => None,
        },
        _ => None,
    })
}

/// `f v ⇝ ...`: β for lambdas, the defining equation for primitives.
pub fn apply(f: &Value, x: Value, span: Span, mem: Budget) -> R<(Term, Rule)> {
    let Value::Fun(fun) = f else {
        return Err(Error::internal("applying a value that is not a function"));
    };
    match &**fun {
        Fun::Lambda(l) => Ok((beta(l, &x, span)?, Rule::new("β"))),
        Fun::Prim { name, op, args } => {
            let mut all = args.clone();
            all.push(x);
            prims::delta(name, op, all, span, mem)
        }
        Fun::Section { op, left, right } => {
            let (l, r) = match (left, right) {
                (Some(l), _) => (l.clone(), x),
                (None, Some(r)) => (x, r.clone()),
                (None, None) => return Err(Error::internal("a section without an operand")),
            };
            let t = TermKind::BinOp(
                op.clone(),
                Box::new(Term::val(l, span)),
                Box::new(Term::val(r, span)),
            );
            Ok((Term::new(t, span), Rule::new("SECTION")))
        }
        Fun::Compose { first, second, .. } => {
            let inner = Term::app(Term::val(first.clone(), span), Term::val(x, span), span);
            Ok((
                Term::app(Term::val(second.clone(), span), inner, span),
                Rule::new("COMPOSE"),
            ))
        }
        Fun::Proj(fields) => {
            let mut v = x;
            for f in fields {
                v = prims::project(&v, f)?;
            }
            Ok((Term::val(v, span), Rule::new("PROJ")))
        }
    }
}

/// `(\p ps -> e) v ⇝ (\ps -> e)[v/p]`, and `e[v/p]` for the last
/// parameter (with the return type's sizes checked, when it has some).
pub fn beta(l: &Lambda, x: &Value, span: Span) -> R<Term> {
    let Some((p, rest)) = l.params.split_first() else {
        return Err(Error::internal("a lambda without parameters"));
    };
    let mut s = Subst::new();
    match_pat(p, x, &l.origin.param_what(p), &mut s)?;
    if !rest.is_empty() {
        let params = match (p, &l.origin) {
            (Pat::Ascribed(_, ty, _), Origin::Def(_, vars)) => match &**ty {
                TypeExp::Named(t, args, _)
                    if args.is_empty() && t.is_unqualified() && vars.contains(&t.name) =>
                {
                    instance(&t.name, x, rest)
                }
                _ => rest.to_vec(),
            },
            _ => rest.to_vec(),
        };
        let inner = Lambda {
            params,
            ret: l.ret.clone(),
            body: l.body.clone(),
            origin: l.origin.clone(),
        };
        return Ok(Term::new(TermKind::Lambda(Rc::new(inner.subst(&s))), span));
    }
    let body = l.body.subst(&s);
    let body = match &l.ret {
        Some(t) => ascribe(body, subst_type(t, &s), l.origin.result_what()),
        None => body,
    };
    Ok(match &l.origin {
        Origin::Def(f, _) | Origin::Local(f) => {
            Term::new(TermKind::Call(f.clone(), Box::new(body)), span)
        }
        Origin::Lambda => body,
    })
}

/// `params` with type parameter `t` given the shape of `x`, the first
/// parameter's of type `t`: a type parameter stands for one type in an
/// application, sizes included (as the fast evaluator checks, see
/// `opt::lower::value`), so a later parameter's `t` is `[d1]..[dk]t`.
fn instance(t: &Ident, x: &Value, params: &[Pat]) -> Vec<Pat> {
    let dims: Option<Vec<usize>> = prims::leaf_shape(x).and_then(|s| s.into_iter().collect());
    let Some(dims) = dims.filter(|d| !d.is_empty()) else {
        return params.to_vec();
    };
    fn sized(ty: &TypeExp, t: &Ident, dims: &[usize]) -> TypeExp {
        match ty {
            TypeExp::Named(q, args, sp)
                if args.is_empty() && q.is_unqualified() && q.name == *t =>
            {
                dims.iter().rev().fold(ty.clone(), |inner, d| {
                    TypeExp::Array(Dim::Const(*d as u64), Box::new(inner), *sp)
                })
            }
            _ => ty.map_children(|c| sized(c, t, dims)),
        }
    }
    params
        .iter()
        .map(|p| match p {
            Pat::Ascribed(q, ty, sp) => {
                Pat::Ascribed(q.clone(), Box::new(sized(ty, t, &dims)), *sp)
            }
            p => p.clone(),
        })
        .collect()
}

/// Matches a value against a pattern, adding the bindings to `s`. Sizes
/// in type ascriptions are bound where they are new and checked where they
/// are known, as the fast evaluator does; `what` names the value in
/// errors.
pub fn match_pat(p: &Pat, v: &Value, what: &str, s: &mut Subst) -> R<()> {
    if try_match(p, v, what, s)? {
        Ok(())
    } else {
        Err(Error::internal("a binding's pattern does not match"))
    }
}

/// Matches a value against a pattern that may fail to match (a `case`):
/// whether it matches, with the bindings added to `s` when it does.
fn try_match(p: &Pat, v: &Value, what: &str, s: &mut Subst) -> R<bool> {
    match p {
        Pat::Id(x, _) => s.bind(x.clone(), v.clone()),
        Pat::Wildcard(_) => {}
        Pat::Tuple(ps, _) => {
            let Value::Tuple(vs) = v else {
                return Err(Error::internal("a tuple pattern against a non-tuple"));
            };
            for (p, v) in ps.iter().zip(vs.iter()) {
                if !try_match(p, v, what, s)? {
                    return Ok(false);
                }
            }
        }
        Pat::Record(fs, _) => {
            for (n, p) in fs {
                let c = v
                    .field(n)
                    .ok_or_else(|| Error::internal(format!("a record without field {n}")))?;
                match p {
                    Some(p) => {
                        if !try_match(p, c, what, s)? {
                            return Ok(false);
                        }
                    }
                    None => s.bind(n.clone(), c.clone()),
                }
            }
        }
        Pat::Ascribed(p, t, _) => {
            bind_sizes(t, v, 0, what, s)?;
            return try_match(p, v, what, s);
        }
        Pat::Literal(l, neg, _) => {
            let x = scalar(v)?;
            let lit = urchin_types::patterns::literal_scalar(l, *neg, x.ty());
            return truth(&Value::Scalar(prim::binop(BinOp::Eq, x, lit)?));
        }
        Pat::Constr(c, ps, _) => {
            let Value::Sum(d, vs) = v else {
                return Err(Error::internal("a constructor pattern against a non-sum"));
            };
            if c != d {
                return Ok(false);
            }
            for (p, v) in ps.iter().zip(vs.iter()) {
                if !try_match(p, v, what, s)? {
                    return Ok(false);
                }
            }
        }
    }
    Ok(true)
}

/// The value `v`, checked against `t` in an ascription or a declared
/// result, with the shape `t` gives to its empty arrays: an empty array
/// records the shape of the elements it would have (`[] : [0][3]i32` is
/// not `[0][0]i32`), which the literal `[]` cannot know. Arrays with no
/// empty dimension are returned as they are, without a walk over their
/// elements. (Parameters keep their arguments' shapes, as in the fast
/// evaluator.)
fn adopt_shape(t: &TypeExp, v: Value, s: &Subst, mem: Budget) -> R<Value> {
    let has_empty = |v: &Value| prims::leaf_shape(v).is_some_and(|own| own.contains(&Some(0)));
    Ok(match (t, v) {
        (TypeExp::Array(_, inner, _), Value::Array(a)) if a.is_empty() => {
            match row_of(inner, s, mem)? {
                Some(row) => Value::array_of(Vec::new(), Some(&row)),
                None => Value::Array(a),
            }
        }
        (TypeExp::Array(..), v @ Value::Array(_)) if !has_empty(&v) => v,
        (TypeExp::Array(_, inner, _), Value::Array(a)) => {
            let elems = a
                .iter()
                .map(|e| adopt_shape(inner, e.clone(), s, mem))
                .collect::<R<Vec<_>>>()?;
            Value::array(elems)
        }
        (TypeExp::Tuple(ts, _), Value::Tuple(cs)) if ts.len() == cs.len() => Value::tuple(
            ts.iter()
                .zip(cs.iter())
                .map(|(t, c)| adopt_shape(t, c.clone(), s, mem))
                .collect::<R<_>>()?,
        ),
        (TypeExp::Record(fs, _), Value::Record(cs)) => Value::Record(
            cs.iter()
                .map(|(n, c)| {
                    let c = match fs.iter().find(|(m, _)| m == n) {
                        Some((_, t)) => adopt_shape(t, c.clone(), s, mem)?,
                        None => c.clone(),
                    };
                    Ok((n.clone(), c))
                })
                .collect::<R<_>>()?,
        ),
        (TypeExp::Unique(t, _), v) => adopt_shape(t, v, s, mem)?,
        (TypeExp::Exists(ns, t, _), v) => {
            let bound: Vec<(Ident, Span)> =
                ns.iter().map(|n| (n.clone(), Span::default())).collect();
            adopt_shape(t, v, &s.without(&bound), mem)?
        }
        (_, v) => v,
    })
}

/// A value of type `t` (zeros), where `t` gives every size: the row of an
/// empty array of `t`s. `None` where a size or the element type is not
/// known, or the row would not fit in memory.
fn row_of(t: &TypeExp, s: &Subst, mem: Budget) -> R<Option<Value>> {
    Ok(match t {
        TypeExp::Prim(p, _) => Some(Value::Scalar(urchin_prim::Scalar::zero(*p))),
        TypeExp::Array(d, inner, _) => {
            let n = match d {
                Dim::Const(k) => *k as i64,
                Dim::Named(n) => match s.get(n) {
                    Some(k) => scalar(k)?.as_i64(),
                    None => return Ok(None),
                },
                Dim::Any | Dim::Exp(_) => return Ok(None),
            };
            let Some(row) = row_of(inner, s, mem)? else {
                return Ok(None);
            };
            let n = prims::size(n, "an array's type")?;
            // A row too large to build leaves the shape unknown rather
            // than failing where the fast evaluator does not.
            let Ok(mut elems) = prims::room(n, mem) else {
                return Ok(None);
            };
            elems.resize(n, row.clone());
            Some(Value::array_of(elems, Some(&row)))
        }
        TypeExp::Tuple(ts, _) => {
            let mut cs = Vec::with_capacity(ts.len());
            for t in ts {
                match row_of(t, s, mem)? {
                    Some(c) => cs.push(c),
                    None => return Ok(None),
                }
            }
            Some(Value::tuple(cs))
        }
        TypeExp::Unique(t, _) => row_of(t, s, mem)?,
        _ => None,
    })
}

/// Walks a type annotation `[n][m]t` against a value: a size name not yet
/// known is bound to the length (an `i64`), a known one or a constant is
/// checked. The lengths are those of the value's first primitive leaf,
/// `depth` dimensions down.
fn bind_sizes(t: &TypeExp, v: &Value, depth: usize, what: &str, s: &mut Subst) -> R<()> {
    match t {
        TypeExp::Array(dim, inner, _) => {
            if let Some(own) = prims::leaf_shape(v) {
                let len = own.get(depth).copied();
                let expected = match dim {
                    Dim::Any => None,
                    Dim::Exp(e) => {
                        return Err(not_defined(format!(
                            "a size expression in a type (`[{}]`)",
                            urchin_syntax::pretty::expr(e)
                        )));
                    }
                    Dim::Const(k) => Some(*k as i64),
                    Dim::Named(n) => match s.get(n) {
                        Some(k) => Some(scalar(k)?.as_i64()),
                        None => {
                            let n_val = match len {
                                Some(Some(l)) => l as i64,
                                Some(None) => return Err(Error::rep_length()),
                                // Below an empty array: no element to measure.
                                None => 0,
                            };
                            s.bind(n.clone(), Value::i64(n_val));
                            None
                        }
                    },
                };
                if let Some(e) = expected {
                    check_dim(&own, depth, e, what, false)?;
                }
            }
            bind_sizes(inner, v, depth + 1, what, s)
        }
        TypeExp::Tuple(ts, _) => {
            for (i, t) in ts.iter().enumerate() {
                if let Some(c) = prims::column(v, depth, &i.to_string()) {
                    bind_sizes(t, &c, depth, what, s)?;
                }
            }
            Ok(())
        }
        TypeExp::Record(fs, _) => {
            for (n, t) in fs {
                if let Some(c) = prims::column(v, depth, n) {
                    bind_sizes(t, &c, depth, what, s)?;
                }
            }
            Ok(())
        }
        TypeExp::Unique(t, _) => bind_sizes(t, v, depth, what, s),
        // Existential sizes are bound by the value and forgotten after.
        TypeExp::Exists(ns, t, _) => {
            let bound: Vec<(Ident, Span)> =
                ns.iter().map(|n| (n.clone(), Span::default())).collect();
            bind_sizes(t, v, depth, what, &mut s.without(&bound))
        }
        TypeExp::Prim(..) | TypeExp::Named(..) | TypeExp::Arrow(..) | TypeExp::Sum(..) => Ok(()),
    }
}

/// Checks that dimension `depth` of a value whose first leaf has the
/// shape `own` is `expected`. Past an empty dimension any size fits: the
/// annotation gives it (`adopt_shape`); unless `exact`, for an entry
/// point's argument, whose sizes came with it.
fn check_dim(own: &[Option<usize>], depth: usize, expected: i64, what: &str, exact: bool) -> R<()> {
    let empty_above = !exact && own[..depth.min(own.len())].contains(&Some(0));
    match own.get(depth) {
        Some(Some(l)) if !empty_above && expected != *l as i64 => {
            let mut exp: Vec<Option<i64>> = own.iter().map(|d| d.map(|d| d as i64)).collect();
            exp[depth] = Some(expected);
            Err(Error::cannot_match(what, own, &exp))
        }
        _ => Ok(()),
    }
}

/// Checks an entry point's arguments against the sizes its signature
/// gives them, inferred ones included (`urchin_types::sizes::args`), as
/// the fast evaluator does before the body runs.
pub(crate) fn check_entry_args(def: &CheckedDef, args: &[Value]) -> Result<(), RuntimeError> {
    match &def.sizes {
        Some(sig) => sig.check_args(&mut EntryArgs { def, args }),
        None => Ok(()),
    }
}

/// An entry point's arguments as `SizedSig::check_args` reads them:
/// sizes are numbers.
struct EntryArgs<'a> {
    def: &'a CheckedDef,
    args: &'a [Value],
}

impl EntryArgs<'_> {
    fn value(&self, place: &ArgPlace) -> Option<Value> {
        let arg = self.args.get(place.param)?.clone();
        (place.path.iter()).try_fold(arg, |v, (depth, c)| {
            prims::column(&v, *depth as usize, &c.name())
        })
    }
}

impl ArgSizes for EntryArgs<'_> {
    type Size = i64;
    type Error = RuntimeError;

    fn read(&mut self, place: &ArgPlace, _name: &str) -> Option<i64> {
        let v = self.value(place)?;
        match place.dim {
            Some(d) => prims::leaf_shape(&v)?
                .get(d as usize)
                .copied()
                .flatten()
                .map(|n| n as i64),
            None => scalar(&v).ok().map(|s| s.as_i64()),
        }
    }

    fn constant(&mut self, k: i64) -> i64 {
        k
    }

    fn op(&mut self, op: SizeOp, a: i64, b: i64) -> i64 {
        op.apply(a, b)
    }

    fn check(&mut self, place: &ArgPlace, expected: i64) -> Result<(), RuntimeError> {
        let (Some(d), Some(v)) = (place.dim, self.value(place)) else {
            return Ok(());
        };
        let own = prims::leaf_shape(&v).unwrap_or_default();
        let p = &self.def.target.params[place.param];
        check_dim(
            &own,
            d as usize,
            expected,
            &invalid_argument(p, &self.def.name),
            true,
        )
        .map_err(|e| e.at(p.span()))
    }
}

fn index_values(ix: &[Slice]) -> R<Vec<Ix>> {
    let int = |t: &Term| -> R<i64> {
        Ok(scalar(
            t.value()
                .ok_or_else(|| Error::internal("an index that is not a value"))?,
        )?
        .as_i64())
    };
    let opt = |t: &Option<Box<Term>>| t.as_deref().map(int).transpose();
    ix.iter()
        .map(|s| {
            Ok(match s {
                Slice::Fix(t) => Ix::Fix(int(t)?),
                Slice::Range { start, end, stride } => Ix::Slice {
                    start: opt(start)?,
                    end: opt(end)?,
                    stride: opt(stride)?,
                },
            })
        })
        .collect()
}

/// A scalar; of a dual number, its primal (what control flow, indices
/// and sizes see).
pub fn scalar(v: &Value) -> R<Scalar> {
    match v {
        Value::Scalar(s) => Ok(*s),
        Value::Dual(_) => dual::base(v).ok_or_else(|| Error::internal("expected a scalar")),
        Value::Rep(_) => Err(Error::rep_length()),
        _ => Err(Error::internal("expected a scalar")),
    }
}

pub fn truth(v: &Value) -> R<bool> {
    match scalar(v)? {
        Scalar::Bool(b) => Ok(b),
        _ => Err(Error::internal("expected a bool")),
    }
}
