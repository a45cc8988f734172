//! The defining equations of the primitives (δ-rules): the SOACs of thesis
//! section 2.2.2, the array functions, the operators, indexing and
//! in-place updates. Scalar arithmetic is `urchin_prim`'s, so the reference
//! and the fast evaluator compute the same numbers; error messages are the
//! fast evaluator's, word for word.
//!
//! SOACs that combine elements unfold one element per step (`reduce`,
//! `reduce_by_index`, `scatter`), so a term never nests deeper than the
//! program that produced it.

use super::dual;
use super::step::{R, Rule, beta, not_defined, scalar, truth};
use super::term::*;
use urchin_base::mem::Budget;
use urchin_base::source::Span;
use urchin_prim::{self as prim, BinOp};
use urchin_runtime::Error;
use urchin_runtime::Raise;
use urchin_runtime::index::Ix;
use urchin_syntax::ast::{BinOpKind, Ident, RangeKind};
use urchin_types::intrinsics::Intrinsic;

/// A primitive applied to all its arguments.
pub fn delta(
    name: &Ident,
    op: &Intrinsic,
    args: Vec<Value>,
    span: Span,
    mem: Budget,
) -> R<(Term, Rule)> {
    let val = |v: Value, rule: &'static str| Ok((Term::val(v, span), Rule::new(rule)));
    let prim = |op: Intrinsic, name: &str| super::convert::prim_term(op, name, span);
    let call = |f: Term, args: Vec<Term>| args.into_iter().fold(f, |f, a| Term::app(f, a, span));
    let v = |x: &Value| Term::val(x.clone(), span);
    match op {
        Intrinsic::Map(_) => map(&args[0], &args[1..], span, mem),
        Intrinsic::Rep => val(Value::rep(args[0].clone()), "REP"),
        Intrinsic::Reduce { .. } => {
            let (f, ne) = (&args[0], &args[1]);
            match &args[2] {
                Value::Array(es) => match es.first() {
                    None => val(ne.clone(), "REDUCE-END"),
                    Some(x) => {
                        let acc = apply_term(f, vec![ne.clone(), x.clone()], span)?;
                        let t = call(prim(op.clone(), name), vec![v(f), acc, v(&es.drop(1))]);
                        Ok((t, Rule::new("REDUCE")))
                    }
                },
                other => Err(not_array(other)),
            }
        }
        Intrinsic::Scan => {
            let (f, ne) = (&args[0], &args[1]);
            let es = array(&args[2])?;
            if es.is_empty() {
                // Its elements would have the shape of the neutral element.
                return val(Value::array_of(Vec::new(), Some(ne)), "SCAN");
            }
            let reduce = prim(Intrinsic::Reduce { commutative: false }, "reduce");
            let prefixes = terms(es.len(), mem, |i| {
                Ok(call(reduce.clone(), vec![v(f), v(ne), v(&es.take(i + 1))]))
            })?;
            Ok((
                Term::new(TermKind::Array(prefixes, ArrayOrigin::Map, 0), span),
                Rule::new("SCAN"),
            ))
        }
        Intrinsic::Hist => {
            let (f, ne, k, is, vs) = (&args[0], &args[1], &args[2], &args[3], &args[4]);
            let dest = call(prim(Intrinsic::Replicate, "replicate"), vec![v(k), v(ne)]);
            let rbi = prim(Intrinsic::ReduceByIndex, "reduce_by_index");
            Ok((
                call(rbi, vec![dest, v(f), v(ne), v(is), v(vs)]),
                Rule::new("HIST"),
            ))
        }
        Intrinsic::ReduceByIndex => {
            let (dest, f, ne, is, vs) = (&args[0], &args[1], &args[2], &args[3], &args[4]);
            let n = soac_len(&[is, vs], "reduce_by_index")?;
            let d = array(dest)?;
            if n == 0 {
                return val(dest.clone(), "REDUCE-BY-INDEX-END");
            }
            let again = |dest: Term| {
                call(
                    prim(op.clone(), name),
                    vec![dest, v(f), v(ne), v(&tail(is)), v(&tail(vs))],
                )
            };
            let b = scalar(&elem(is, 0))?.as_i64();
            match usize::try_from(b).ok().filter(|&b| b < d.len()) {
                Some(b) => {
                    let x = apply_term(f, vec![d[b].clone(), elem(vs, 0)], span)?;
                    let upd = TermKind::Update(
                        Box::new(v(dest)),
                        vec![Slice::Fix(Term::val(Value::i64(b as i64), span))],
                        Box::new(x),
                    );
                    Ok((again(Term::new(upd, span)), Rule::new("REDUCE-BY-INDEX")))
                }
                None => Ok((again(v(dest)), Rule::new("REDUCE-BY-INDEX-SKIP"))),
            }
        }
        Intrinsic::Scatter | Intrinsic::Scatter2d => {
            let (dest, is, vs) = (&args[0], &args[1], &args[2]);
            let n = soac_len(&[is, vs], "scatter")?;
            array(dest)?;
            if n == 0 {
                return val(dest.clone(), "SCATTER-END");
            }
            let again = |dest: Term| {
                call(
                    prim(op.clone(), name),
                    vec![dest, v(&tail(is)), v(&tail(vs))],
                )
            };
            let at: Vec<i64> = match elem(is, 0) {
                Value::Tuple(cs) => cs
                    .iter()
                    .map(|c| Ok(scalar(c)?.as_i64()))
                    .collect::<R<_>>()?,
                i => vec![scalar(&i)?.as_i64()],
            };
            if !in_range(dest, &at) {
                return Ok((again(v(dest)), Rule::new("SCATTER-SKIP")));
            }
            let upd = TermKind::Update(
                Box::new(v(dest)),
                at.iter()
                    .map(|&i| Slice::Fix(Term::val(Value::i64(i), span)))
                    .collect(),
                Box::new(Term::val(elem(vs, 0), span)),
            );
            Ok((again(Term::new(upd, span)), Rule::new("SCATTER")))
        }
        Intrinsic::Iota => {
            let n = scalar(&args[0])?.as_i64();
            let n = usize::try_from(n).map_err(|_| Error::iota_negative(n))?;
            let mut elems = room(n, mem)?;
            elems.extend((0..n as i64).map(Value::i64));
            val(Value::array_of(elems, Some(&Value::i64(0))), "IOTA")
        }
        Intrinsic::Replicate => {
            let n = size(scalar(&args[0])?.as_i64(), "replicate")?;
            let mut elems = room(n, mem)?;
            elems.resize(n, args[1].clone());
            val(Value::array_of(elems, Some(&args[1])), "REPLICATE")
        }
        Intrinsic::Length => val(Value::i64(array(&args[0])?.len() as i64), "LENGTH"),
        Intrinsic::Zip(_) => val(zip(&args)?, "ZIP"),
        Intrinsic::Unzip(k) => val(unzip(&args[0], *k)?, "UNZIP"),
        Intrinsic::Transpose => val(transpose(&args[0])?, "TRANSPOSE"),
        Intrinsic::Flatten => {
            let rows = array(&args[0])?;
            let mut out = Vec::new();
            for row in rows.iter() {
                out.extend(array(row)?.iter().cloned());
            }
            let inner = rows.row().and_then(Value::as_array).and_then(|r| r.row());
            val(Value::array_of(out, inner), "FLATTEN")
        }
        // Its sizes come from the argument's type, which this semantics
        // does not track.
        Intrinsic::Unflatten => Err(not_defined(
            "`unflatten` (its sizes come from its argument's type)",
        )),
        Intrinsic::Concat => val(concat(&args[0], &args[1])?, "CONCAT"),
        Intrinsic::Rotate => {
            let r = scalar(&args[0])?.as_i64();
            let out = match &args[1] {
                Value::Array(es) if !es.is_empty() => {
                    let n = es.len();
                    let k = r.rem_euclid(n as i64) as usize;
                    Value::array((0..n).map(|i| es[(i + k) % n].clone()).collect())
                }
                other => other.clone(),
            };
            val(out, "ROTATE")
        }
        Intrinsic::Reverse => {
            let out = match &args[0] {
                Value::Array(es) => Value::array_of(es.iter().rev().cloned().collect(), es.row()),
                other => other.clone(),
            };
            val(out, "REVERSE")
        }
        Intrinsic::Copy => val(args[0].clone(), "COPY"),
        Intrinsic::Assert => {
            if truth(&args[0])? {
                val(args[1].clone(), "ASSERT")
            } else {
                // The fast evaluator's message for an `assert` of the
                // source, whose condition it does not have as text.
                Err(Error::assertion_failed("assert"))
            }
        }
        // JMP: a `jvp` per tangent.
        Intrinsic::Jmp => {
            let jvp = Value::fun(Fun::Prim {
                name: "jvp".into(),
                op: Intrinsic::Jvp,
                args: args[..2].to_vec(),
            });
            let map = prim(Intrinsic::Map(1), "map");
            Ok((call(map, vec![v(&jvp), v(&args[2])]), Rule::new("JMP")))
        }
        // `jvp` needs the number of its `ε`: `step` contracts it (JVP).
        Intrinsic::Jvp | Intrinsic::Jvp2 => Err(Error::internal("`jvp` reached δ")),
        Intrinsic::Vjp | Intrinsic::Vjp2 | Intrinsic::Mjp => Err(Error::unsupported(format!(
            "`{name}` (reverse-mode AD) is not supported by the reference semantics, which defines `jvp` only: the fast evaluator runs it (evaluate without `:step`, or leave out `--engine small-step`)"
        ))),
        // Without differentiation, only the primal matters.
        Intrinsic::WithVjp => Ok((
            apply_term(&args[0], vec![args[2].clone()], span)?,
            Rule::new("WITH-VJP"),
        )),
        Intrinsic::Operator(op) => {
            let mut it = args.into_iter();
            let (Some(l), Some(r)) = (it.next(), it.next()) else {
                return Err(Error::internal("an operator without two operands"));
            };
            binary(op, l, r, span)
        }
        Intrinsic::Neg => val(dual::unop(prim::UnOp::Neg, &args[0])?, "δ"),
        Intrinsic::Not => val(dual::unop(prim::UnOp::Not, &args[0])?, "δ"),
        Intrinsic::Bin(_, b) => Ok((
            Term::val(dual::binop(*b, &args[0], &args[1])?, span),
            Rule::on("δ", name.clone()),
        )),
        Intrinsic::Un(_, u) => Ok((
            Term::val(dual::unop(*u, &args[0])?, span),
            Rule::on("δ", name.clone()),
        )),
        Intrinsic::Convert { to, .. } => Ok((
            Term::val(dual::convert(*to, &args[0])?, span),
            Rule::on("δ", name.clone()),
        )),
        Intrinsic::Const(s) => val(Value::Scalar(*s), "δ"),
        Intrinsic::Opaque => val(args[0].clone(), "OPAQUE"),
        Intrinsic::Manifest => val(args[0].clone(), "MANIFEST"),
        Intrinsic::Trace => val(args[0].clone(), "TRACE"),
        Intrinsic::Range { kind, stepped } => {
            let xs: Vec<prim::Scalar> = args.iter().map(scalar).collect::<R<_>>()?;
            let elems = range(*kind, *stepped, &xs)?;
            let zero = prim::convert(prim::Scalar::I64(0), xs[0].ty());
            val(Value::array_of(elems, Some(&Value::Scalar(zero))), "RANGE")
        }
        Intrinsic::Hole => Err(Error::assertion_failed(urchin_opt::lower::HOLE_MESSAGE)),
    }
}

/// The elements of a range (`xs` is its start, second element if
/// `stepped`, and end), or Futhark's error for an invalid one: a zero
/// stride, or one that runs away from the end.
fn range(kind: RangeKind, stepped: bool, xs: &[prim::Scalar]) -> R<Vec<Value>> {
    let (start, end) = (xs[0].as_i64(), xs[xs.len() - 1].as_i64());
    let step = match (stepped, kind) {
        (true, _) => xs[1].as_i64().wrapping_sub(start),
        (false, RangeKind::DownTo) => -1,
        (false, _) => 1,
    };
    let (up, down) = (step > 0 && start <= end, step < 0 && start >= end);
    let ok = match kind {
        RangeKind::UpTo => up,
        RangeKind::DownTo => down,
        RangeKind::Inclusive => up || down,
    };
    if !ok {
        let plain = |s: &prim::Scalar| s.plain();
        let second = stepped.then(|| plain(&xs[1]));
        return Err(Error::check_failed(kind.invalid_message(
            plain(&xs[0]),
            second,
            plain(&xs[xs.len() - 1]),
        )));
    }
    let (dist, stride) = ((end - start).unsigned_abs(), step.unsigned_abs());
    let n = match kind {
        RangeKind::Inclusive => dist / stride + 1,
        _ => dist.div_ceil(stride),
    };
    let ty = xs[0].ty();
    Ok((0..n as i64)
        .map(|i| Value::Scalar(prim::convert(prim::Scalar::I64(start + i * step), ty)))
        .collect())
}

/// `mapN f xs1 ... xsN ⇝ [f x11 ... xN1, ..., f x1n ... xNn]`, and
/// `mapN f (rep v1) ... (rep vN) ⇝ rep (f v1 ... vN)`. A `rep` among
/// arrays stands for its value at every index.
fn map(f: &Value, arrays: &[Value], span: Span, mem: Budget) -> R<(Term, Rule)> {
    if arrays.iter().all(|a| matches!(a, Value::Rep(_))) {
        let body = apply_term(f, arrays.iter().map(|a| elem(a, 0)).collect(), span)?;
        let rep = Value::fun(Fun::Prim {
            name: "rep".into(),
            op: Intrinsic::Rep,
            args: Vec::new(),
        });
        return Ok((
            Term::app(Term::val(rep, span), body, span),
            Rule::new("MAP-REP"),
        ));
    }
    let refs: Vec<&Value> = arrays.iter().collect();
    let n = soac_len(&refs, "map")?;
    let elems = terms(n, mem, |i| {
        apply_term(f, arrays.iter().map(|a| elem(a, i)).collect(), span)
    })?;
    Ok((
        Term::new(TermKind::Array(elems, ArrayOrigin::Map, 0), span),
        Rule::new("MAP"),
    ))
}

/// `f v1 ... vk` as a term. A lambda is applied on the spot, as in the
/// thesis's `map (λx.e) [v1, ..., vn] ⇝ [e[v1/x], ..., e[vn/x]]`; an
/// operator is written infix, `v1 + v2` for `(+) v1 v2`.
fn apply_term(f: &Value, args: Vec<Value>, span: Span) -> R<Term> {
    if let Value::Fun(fun) = f {
        if let Fun::Prim {
            op: Intrinsic::Operator(op),
            args: given,
            ..
        } = &**fun
        {
            if let [l, r] = &given.iter().chain(&args).collect::<Vec<_>>()[..] {
                let t = TermKind::BinOp(
                    op.clone(),
                    Box::new(Term::val((*l).clone(), span)),
                    Box::new(Term::val((*r).clone(), span)),
                );
                return Ok(Term::new(t, span));
            }
        }
        if let Fun::Lambda(l) = &**fun {
            if l.params.len() >= args.len() {
                let mut lam = l.clone();
                let mut out = Term::val(f.clone(), span);
                for a in &args {
                    out = beta(&lam, a, span)?;
                    if let TermKind::Lambda(next) = &out.kind {
                        lam = next.clone();
                    }
                }
                return Ok(out);
            }
        }
    }
    Ok(args.into_iter().fold(Term::val(f.clone(), span), |t, a| {
        Term::app(t, Term::val(a, span), span)
    }))
}

/// The value of a binary operator on two values.
pub fn binary(op: &BinOpKind, l: Value, r: Value, span: Span) -> R<(Term, Rule)> {
    // `&&` and `||` on values: both operands are already evaluated.
    let simple = op.scalar_op().or(match op {
        BinOpKind::And => Some(BinOp::LogAnd),
        BinOpKind::Or => Some(BinOp::LogOr),
        _ => None,
    });
    let delta = |v: Value| Ok((Term::val(v, span), Rule::on("δ", op.symbol())));
    if let Some(b) = simple {
        return delta(dual::binop(b, &l, &r)?);
    }
    match op {
        BinOpKind::Eq => delta(Value::bool(equal(&l, &r)?)),
        BinOpKind::Neq => delta(Value::bool(!equal(&l, &r)?)),
        BinOpKind::Concat => delta(concat(&l, &r)?),
        BinOpKind::PipeRight => Ok((
            Term::app(Term::val(r, span), Term::val(l, span), span),
            Rule::new("PIPE"),
        )),
        BinOpKind::PipeLeft => Ok((
            Term::app(Term::val(l, span), Term::val(r, span), span),
            Rule::new("PIPE"),
        )),
        BinOpKind::ComposeRight | BinOpKind::ComposeLeft => {
            let forward = *op == BinOpKind::ComposeRight;
            let (first, second) = if forward { (l, r) } else { (r, l) };
            let f = Value::fun(Fun::Compose {
                first,
                second,
                forward,
            });
            Ok((Term::val(f, span), Rule::new("COMPOSE")))
        }
        BinOpKind::Backtick(q) => Err(not_defined(format!("`{q}` as an operator value"))),
        _ => Err(Error::internal(format!("the operator {}", op.symbol()))),
    }
}

/// `==` on scalars, and component-wise on tuples, records and arrays.
fn equal(a: &Value, b: &Value) -> R<bool> {
    let all = |xs: &[Value], ys: &[Value]| -> R<bool> {
        if xs.len() != ys.len() {
            return Ok(false);
        }
        for (x, y) in xs.iter().zip(ys) {
            if !equal(x, y)? {
                return Ok(false);
            }
        }
        Ok(true)
    };
    match (a, b) {
        (Value::Scalar(_) | Value::Dual(_), Value::Scalar(_) | Value::Dual(_)) => truth(
            &Value::Scalar(prim::binop(BinOp::Eq, scalar(a)?, scalar(b)?)?),
        ),
        (Value::Tuple(xs), Value::Tuple(ys)) => all(xs, ys),
        (Value::Sum(c, xs), Value::Sum(d, ys)) => Ok(c == d && all(xs, ys)?),
        (Value::Array(xs), Value::Array(ys)) => all(xs, ys),
        (Value::Record(xs), Value::Record(ys)) => {
            let values = |fs: &[(urchin_syntax::ast::Ident, Value)]| -> Vec<Value> {
                fs.iter().map(|(_, v)| v.clone()).collect()
            };
            all(&values(xs), &values(ys))
        }
        (Value::Rep(_), _) | (_, Value::Rep(_)) => Err(Error::rep_length()),
        _ => Err(Error::internal("comparing values of different kinds")),
    }
}

fn not_array(v: &Value) -> Error {
    match v {
        Value::Rep(_) => Error::rep_length(),
        _ => Error::internal("an array operation on a non-array"),
    }
}

/// The elements of an array; a `rep` has none to list.
fn array(v: &Value) -> R<&Arr> {
    match v {
        Value::Array(es) => Ok(es),
        other => Err(not_array(other)),
    }
}

/// Element `i` of an array or rep.
fn elem(v: &Value, i: usize) -> Value {
    match v {
        Value::Array(es) => es[i].clone(),
        Value::Rep(x) => (**x).clone(),
        other => other.clone(),
    }
}

/// All but the first element (a rep stays a rep).
fn tail(v: &Value) -> Value {
    match v {
        Value::Array(es) => es.drop(1),
        other => other.clone(),
    }
}

/// The common length of SOAC arguments; reps fit any length, but at least
/// one argument must be an array.
fn soac_len(vals: &[&Value], what: &str) -> R<usize> {
    let mut n: Option<usize> = None;
    for v in vals {
        let len = match v {
            Value::Array(es) => es.len(),
            Value::Rep(_) => continue,
            _ => return Err(Error::internal(format!("{what} over a non-array"))),
        };
        match n {
            Some(m) if m != len => {
                return Err(Error::lengths_differ(what, m, len));
            }
            _ => n = Some(len),
        }
    }
    n.ok_or_else(Error::rep_length)
}

pub(super) fn size(n: i64, what: &str) -> R<usize> {
    usize::try_from(n).map_err(|_| Error::negative_size(n, what))
}

/// The `n` terms a SOAC step unfolds into (`[f x1, ..., f xn]`), built
/// within the memory limit: a term takes far more than the element it
/// computes (a `map` over 2·10^7 numbers took 5 GB), so the process's
/// memory is checked as they are built, every `CHECK_EVERY` terms, for
/// what the rest would need at the size of those so far.
fn terms(n: usize, mem: Budget, mut f: impl FnMut(usize) -> R<Term>) -> R<Vec<Term>> {
    const CHECK_EVERY: usize = 4096;
    let mut out = mem.vec_with_capacity::<Term>(n).map_err(Error::too_large)?;
    let before = urchin_base::mem::live_bytes();
    for i in 0..n {
        if i > 0 && i % CHECK_EVERY == 0 {
            let each = urchin_base::mem::live_bytes().saturating_sub(before) / i;
            mem.check(&[n - i], each).map_err(Error::too_large)?;
        }
        out.push(f(i)?);
    }
    Ok(out)
}

/// Room for `n` elements, through the resource model (`urchin_base::mem`).
pub(super) fn room(n: usize, mem: Budget) -> R<Vec<Value>> {
    mem.vec_with_capacity(n).map_err(Error::too_large)
}

fn in_range(dest: &Value, at: &[i64]) -> bool {
    let Some((&i, rest)) = at.split_first() else {
        return true;
    };
    match dest {
        Value::Array(es) => usize::try_from(i)
            .ok()
            .and_then(|i| es.get(i))
            .is_some_and(|e| in_range(e, rest)),
        _ => false,
    }
}

fn zip(args: &[Value]) -> R<Value> {
    let n = args.iter().find_map(|a| a.as_array().map(|es| es.len()));
    let Some(n) = n else {
        return Ok(Value::rep(Value::tuple(
            args.iter().map(|a| elem(a, 0)).collect(),
        )));
    };
    for (k, a) in args.iter().enumerate() {
        if let Value::Array(es) = a {
            if es.len() != n {
                let own = leaf_shape(a).unwrap_or_else(|| vec![Some(es.len())]);
                let mut exp = own.clone();
                if let Some(outer) = exp.first_mut() {
                    *outer = Some(n);
                }
                return Err(Error::cannot_match(
                    &format!("argument {} of zip", k + 1),
                    &own,
                    &exp,
                ));
            }
        }
    }
    let rows: Option<Vec<Value>> = args.iter().map(row_of).collect();
    Ok(Value::array_of(
        (0..n)
            .map(|i| Value::tuple(args.iter().map(|a| elem(a, i)).collect()))
            .collect(),
        rows.map(Value::tuple).as_ref(),
    ))
}

/// A value of the shape of an array's elements (a rep's value).
fn row_of(v: &Value) -> Option<Value> {
    match v {
        Value::Array(es) => es.row().cloned(),
        Value::Rep(x) => Some((**x).clone()),
        _ => None,
    }
}

fn unzip(v: &Value, k: usize) -> R<Value> {
    let comp = |x: &Value, i: usize| -> R<Value> {
        x.field(&i.to_string())
            .cloned()
            .ok_or_else(|| Error::internal("unzip of a non-tuple"))
    };
    match v {
        Value::Array(es) => Ok(Value::tuple(
            (0..k)
                .map(|i| {
                    let row = es.row().and_then(|r| r.field(&i.to_string()));
                    Ok(Value::array_of(
                        es.iter().map(|e| comp(e, i)).collect::<R<_>>()?,
                        row,
                    ))
                })
                .collect::<R<_>>()?,
        )),
        Value::Rep(x) => Ok(Value::tuple(
            (0..k)
                .map(|i| Ok(Value::rep(comp(x, i)?)))
                .collect::<R<_>>()?,
        )),
        _ => Err(Error::internal("unzip of a non-array")),
    }
}

/// `[n][m]` to `[m][n]`; the shapes of empty arrays follow.
fn transpose(v: &Value) -> R<Value> {
    let outer = array(v)?;
    let rows: Vec<&Arr> = outer.iter().map(array).collect::<R<_>>()?;
    let first = outer.row().map(array).transpose()?;
    let m = first.map_or(0, |r| r.len());
    let inner = first.and_then(|r| r.row());
    let n = outer.len();
    let column = |j: usize| Value::array_of(rows.iter().map(|r| r[j].clone()).collect(), inner);
    let row = inner.map(|x| Value::array_of(vec![x.clone(); n], inner));
    Ok(Value::array_of((0..m).map(column).collect(), row.as_ref()))
}

fn concat(a: &Value, b: &Value) -> R<Value> {
    let (xs, ys) = (array(a)?, array(b)?);
    let (sa, sb) = (
        leaf_shape(a).unwrap_or_default(),
        leaf_shape(b).unwrap_or_default(),
    );
    if !xs.row().zip(ys.row()).is_none_or(|(x, y)| same_shape(x, y)) {
        return Err(Error::cannot_concat(&sa, &sb));
    }
    Ok(Value::array_of(
        xs.iter().chain(ys.iter()).cloned().collect(),
        xs.row().or(ys.row()),
    ))
}

/// The elements of an array term, once values, must have one shape.
pub fn check_regular(vs: &[Value], origin: ArrayOrigin) -> R<()> {
    let Some(first) = vs.first() else {
        return Ok(());
    };
    if let Some(other) = vs.iter().find(|v| !same_shape(first, v)) {
        let (a, b) = (
            leaf_shape(first).unwrap_or_default(),
            leaf_shape(other).unwrap_or_default(),
        );
        return Err(match origin {
            ArrayOrigin::Literal => Error::irregular_literal(&a, &b),
            ArrayOrigin::Map => Error::irregular_map(&a, &b),
        });
    }
    Ok(())
}

/// Whether two values have the same shape; a `rep` fits any length, and
/// so does the unknown shape of an empty array's elements.
fn same_shape(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.row().zip(y.row()).is_none_or(|(p, q)| same_shape(p, q))
        }
        (Value::Rep(x), Value::Array(y)) | (Value::Array(y), Value::Rep(x)) => {
            y.row().is_none_or(|e| same_shape(x, e))
        }
        (Value::Rep(x), Value::Rep(y)) => same_shape(x, y),
        (Value::Tuple(x), Value::Tuple(y)) => x.iter().zip(y.iter()).all(|(p, q)| same_shape(p, q)),
        // Values of different constructors have no payload in common.
        (Value::Sum(c, x), Value::Sum(d, y)) => {
            c != d || x.iter().zip(y.iter()).all(|(p, q)| same_shape(p, q))
        }
        (Value::Record(x), Value::Record(y)) => x
            .iter()
            .zip(y.iter())
            .all(|((_, p), (_, q))| same_shape(p, q)),
        _ => true,
    }
}

/// The shape of a value's first primitive leaf, as the fast evaluator
/// (which stores an array of tuples as a tuple of arrays) sees it: `None`
/// for a `rep`'s dimension, and nothing below an empty array. `None` when
/// the value has no leaf (an empty tuple, a function).
pub fn leaf_shape(v: &Value) -> Option<Vec<Option<usize>>> {
    match v {
        // A sum's first leaf is its tag.
        Value::Scalar(_) | Value::Dual(_) | Value::Sum(..) => Some(Vec::new()),
        Value::Array(es) => {
            let mut s = vec![Some(es.len())];
            if let Some(e) = es.row() {
                s.extend(leaf_shape(e)?);
            }
            Some(s)
        }
        Value::Rep(x) => {
            let mut s = vec![None];
            s.extend(leaf_shape(x)?);
            Some(s)
        }
        Value::Tuple(cs) => cs.iter().find_map(leaf_shape),
        Value::Record(fs) => fs.iter().find_map(|(_, c)| leaf_shape(c)),
        Value::Fun(_) => None,
    }
}

/// The component `field` of every record or tuple `depth` dimensions
/// down: the fast evaluator's array for that field.
pub fn column(v: &Value, depth: usize, field: &str) -> Option<Value> {
    match (depth, v) {
        (0, _) => v.field(field).cloned(),
        (_, Value::Array(es)) => Some(Value::array_of(
            es.iter()
                .map(|e| column(e, depth - 1, field))
                .collect::<Option<_>>()?,
            es.row().and_then(|r| column(r, depth - 1, field)).as_ref(),
        )),
        (_, Value::Rep(x)) => Some(Value::rep(column(x, depth - 1, field)?)),
        _ => None,
    }
}

/// Checks an access against the shape of the array, all indices first.
fn check_index(v: &Value, ix: &[Ix]) -> R<()> {
    let own = leaf_shape(v).unwrap_or_default();
    for (i, d) in ix.iter().zip(&own) {
        if d.is_some_and(|n| i.resolve(n).is_none()) {
            return Err(Error::index_out_of_bounds(ix, &own));
        }
    }
    Ok(())
}

/// `v[ix]`. Any index of a `rep` is its value; a slice of one is the rep.
pub fn index(v: &Value, ix: &[Ix]) -> R<Value> {
    let Some((first, rest)) = ix.split_first() else {
        return Ok(v.clone());
    };
    match v {
        Value::Rep(x) => match first {
            Ix::Fix(_) => index(x, rest),
            Ix::Slice { .. } => Ok(Value::rep(index(x, rest)?)),
        },
        Value::Array(_) => {
            check_index(v, ix)?;
            select(v, ix)
        }
        _ => Err(Error::internal("indexing a non-array")),
    }
}

/// Indexing once the bounds are checked.
fn select(v: &Value, ix: &[Ix]) -> R<Value> {
    let Some((first, rest)) = ix.split_first() else {
        return Ok(v.clone());
    };
    match (v, *first) {
        (Value::Rep(x), Ix::Fix(_)) => select(x, rest),
        (Value::Rep(x), Ix::Slice { .. }) => Ok(Value::rep(select(x, rest)?)),
        (Value::Array(es), Ix::Fix(i)) => {
            let e = usize::try_from(i).ok().and_then(|i| es.get(i));
            select(e.ok_or_else(|| out_of_bounds(v, ix))?, rest)
        }
        (Value::Array(es), slice @ Ix::Slice { .. }) => {
            let ps = slice
                .resolve(es.len())
                .ok_or_else(|| out_of_bounds(v, ix))?;
            let row = es.row().and_then(|r| select(r, rest).ok());
            Ok(Value::array_of(
                ps.positions()
                    .map(|p| select(&es[p], rest))
                    .collect::<R<_>>()?,
                row.as_ref(),
            ))
        }
        _ => Err(Error::internal("indexing a non-array")),
    }
}

/// An index the shape of the first leaf did not catch (below an empty
/// array, where the fast evaluator knows sizes the reference does not).
fn out_of_bounds(v: &Value, ix: &[Ix]) -> Error {
    Error::index_out_of_bounds(ix, &leaf_shape(v).unwrap_or_default())
}

/// `v with [ix] = x`. A `rep` written to a slice takes the slice's length.
pub fn update(v: &Value, ix: &[Ix], x: Value) -> R<Value> {
    match v {
        Value::Array(_) => {}
        other => return Err(not_array(other)),
    }
    check_index(v, ix)?;
    let target = select(v, ix)?;
    let x = match (&x, &target) {
        (Value::Rep(inner), Value::Array(es)) => Value::array(vec![(**inner).clone(); es.len()]),
        _ => x,
    };
    let (want, got) = (
        leaf_shape(&target).unwrap_or_default(),
        leaf_shape(&x).unwrap_or_default(),
    );
    if !same_shape(&target, &x) {
        return Err(Error::cannot_write(&got, &want));
    }
    write(v, ix, x)
}

fn write(v: &Value, ix: &[Ix], x: Value) -> R<Value> {
    let Some((first, rest)) = ix.split_first() else {
        return Ok(x);
    };
    let es = array(v)?;
    let mut out = es.to_vec();
    match *first {
        Ix::Fix(i) => {
            let i = usize::try_from(i).map_err(|_| out_of_bounds(v, ix))?;
            let e = es.get(i).ok_or_else(|| out_of_bounds(v, ix))?;
            out[i] = write(e, rest, x)?;
        }
        slice @ Ix::Slice { .. } => {
            let ps = slice
                .resolve(es.len())
                .ok_or_else(|| out_of_bounds(v, ix))?;
            for (k, p) in ps.positions().enumerate() {
                out[p] = write(&es[p], rest, elem(&x, k))?;
            }
        }
    }
    Ok(Value::array_of(out, es.row()))
}

/// `v.f`; on an array of records or tuples, the field of every element.
pub fn project(v: &Value, f: &str) -> R<Value> {
    match v {
        Value::Tuple(_) | Value::Record(_) => v
            .field(f)
            .cloned()
            .ok_or_else(|| Error::internal(format!("no field {f}"))),
        Value::Array(es) => {
            let row = es.row().and_then(|r| project(r, f).ok());
            Ok(Value::array_of(
                es.iter().map(|e| project(e, f)).collect::<R<_>>()?,
                row.as_ref(),
            ))
        }
        Value::Rep(x) => Ok(Value::rep(project(x, f)?)),
        _ => Err(Error::internal(format!("the field {f} of a non-record"))),
    }
}

/// `r with a.b = x`.
pub fn update_field(r: &Value, path: &[Ident], x: Value) -> R<Value> {
    let Some((f, rest)) = path.split_first() else {
        return Ok(x);
    };
    let old = r
        .field(f)
        .ok_or_else(|| Error::internal(format!("no field {f}")))?;
    let new = update_field(old, rest, x)?;
    match r {
        Value::Tuple(cs) => {
            let mut cs = cs.to_vec();
            if let Some(slot) = f.parse::<usize>().ok().and_then(|i| cs.get_mut(i)) {
                *slot = new;
            }
            Ok(Value::tuple(cs))
        }
        Value::Record(fs) => Ok(Value::Record(
            fs.iter()
                .map(|(n, c)| (n.clone(), if n == f { new.clone() } else { c.clone() }))
                .collect(),
        )),
        _ => Err(Error::internal("a field update of a non-record")),
    }
}
