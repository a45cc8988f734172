//! Forward-mode derivatives in the reference semantics: dual numbers.
//!
//! `jvp f x ẋ` steps to `tangent ε (f (x + ẋε))` (rule JVP): every scalar
//! of `x` becomes a dual number `x + ẋε` carrying its tangent, and when
//! `f`'s result is a value, TANGENT takes its `ε` parts out (zero where a
//! scalar does not depend on `x`). In between, the primitives compute on
//! dual numbers by the chain rule, `op(x + ẋε, y + ẏε) = op(x, y) +
//! (∂op/∂x·ẋ + ∂op/∂y·ẏ)ε`, with the partial derivatives of `ad::deriv`,
//! the table the AD transformation uses, so both engines differentiate
//! every primitive the same way. Control flow, indices and sizes see the
//! primal (`step::scalar`).
//!
//! Each `jvp` has its own `ε`, numbered by how many `jvp`s it is nested
//! in (a `jvp` in the function of another one runs inside the other's
//! TANGENT), so that a derivative of a derivative does not confuse the two
//! perturbations: a dual number's parts may be dual numbers of a smaller
//! `ε`, and an operation splits its operands on the largest `ε` they have.

use super::step::{R, not_defined};
use super::term::{Dual, Value};
use std::collections::HashMap;
use std::rc::Rc;
use urchin_core::build::Builder;
use urchin_core::ir::{Atom, Exp, Type, Vars};
use urchin_opt::ad::deriv;
use urchin_prim::{self as prim, BinOp, PrimType, Scalar, UnOp};
use urchin_runtime::Error;
use urchin_runtime::Raise;

/// Which part of `jvp`'s result TANGENT takes: `jvp` the tangent, `jvp2`
/// the primal and the tangent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    Tangent,
    Both,
}

/// `x + ẋε`, component by component (`x` and `ẋ` have one type; a `rep`
/// tangent stands for its value at every index).
pub fn make(tag: u32, x: &Value, dx: &Value) -> R<Value> {
    let each = |xs: &[Value], dxs: &[Value]| -> R<Vec<Value>> {
        xs.iter().zip(dxs).map(|(x, d)| make(tag, x, d)).collect()
    };
    Ok(match (x, dx) {
        (Value::Scalar(_) | Value::Dual(_), Value::Scalar(_) | Value::Dual(_)) => {
            Value::Dual(Rc::new(Dual {
                tag,
                primal: x.clone(),
                tangent: dx.clone(),
            }))
        }
        (Value::Array(xs), Value::Array(ds)) => {
            if xs.len() != ds.len() {
                return Err(Error::lengths_differ(
                    "`jvp` of a point and a tangent",
                    xs.len(),
                    ds.len(),
                ));
            }
            Value::array_of(each(xs, ds)?, xs.row())
        }
        (Value::Array(xs), Value::Rep(d)) => Value::array_of(
            xs.iter().map(|x| make(tag, x, d)).collect::<R<_>>()?,
            xs.row(),
        ),
        (Value::Rep(x), Value::Rep(d)) => Value::rep(make(tag, x, d)?),
        (Value::Rep(_), Value::Array(_)) => return Err(Error::rep_length()),
        (Value::Tuple(xs), Value::Tuple(ds)) => Value::tuple(each(xs, ds)?),
        (Value::Record(xs), Value::Record(ds)) => Value::Record(
            xs.iter()
                .zip(ds.iter())
                .map(|((n, x), (_, d))| Ok((n.clone(), make(tag, x, d)?)))
                .collect::<R<Vec<_>>>()?
                .into(),
        ),
        (Value::Sum(c, xs), Value::Sum(_, ds)) => Value::Sum(c.clone(), each(xs, ds)?.into()),
        _ => return Err(not_defined("`jvp` at a function")),
    })
}

/// The `ε`-tangent of a value (TANGENT): the tangent of its dual numbers
/// of this `ε`, zero for its other scalars.
pub fn tangent(tag: u32, v: &Value) -> R<Value> {
    part(tag, v, false)
}

/// The value without its `ε` parts.
pub fn primal(tag: u32, v: &Value) -> R<Value> {
    part(tag, v, true)
}

fn part(tag: u32, v: &Value, primal: bool) -> R<Value> {
    let each =
        |vs: &[Value]| -> R<Vec<Value>> { vs.iter().map(|v| part(tag, v, primal)).collect() };
    Ok(match v {
        Value::Scalar(s) if primal => Value::Scalar(*s),
        Value::Scalar(s) => Value::Scalar(Scalar::zero(s.ty())),
        Value::Dual(d) if d.tag == tag => {
            if primal {
                d.primal.clone()
            } else {
                d.tangent.clone()
            }
        }
        // A dual number of an enclosing `jvp`: its parts may hold this `ε`.
        Value::Dual(d) => dual(
            d.tag,
            part(tag, &d.primal, primal)?,
            part(tag, &d.tangent, primal)?,
        ),
        Value::Array(es) => {
            let row = es.row().map(|r| part(tag, r, primal)).transpose()?;
            Value::array_of(each(es)?, row.as_ref())
        }
        Value::Rep(x) => Value::rep(part(tag, x, primal)?),
        Value::Tuple(es) => Value::tuple(each(es)?),
        Value::Record(fs) => Value::Record(
            fs.iter()
                .map(|(n, x)| Ok((n.clone(), part(tag, x, primal)?)))
                .collect::<R<Vec<_>>>()?
                .into(),
        ),
        Value::Sum(c, es) => Value::Sum(c.clone(), each(es)?.into()),
        Value::Fun(_) => return Err(not_defined("a function as the result of `jvp`")),
    })
}

/// `p + tε`, or `p` where the tangent is known to be zero.
fn dual(tag: u32, primal: Value, tangent: Value) -> Value {
    Value::Dual(Rc::new(Dual {
        tag,
        primal,
        tangent,
    }))
}

/// The primal scalar under every `ε`.
pub fn base(v: &Value) -> Option<Scalar> {
    match v {
        Value::Scalar(s) => Some(*s),
        Value::Dual(d) => base(&d.primal),
        _ => None,
    }
}

fn tag_of(v: &Value) -> Option<u32> {
    match v {
        Value::Dual(d) => Some(d.tag),
        _ => None,
    }
}

/// The parts of `v` on `ε` number `tag`; no tangent if `v` does not move
/// with that `ε`. Such a zero contributes no term to a chain rule, as an
/// inactive variable does in the AD transformation: multiplying it by its
/// partial derivative would turn an infinite partial (at a singularity of
/// a value that does not depend on `x`) into a NaN.
fn split(tag: u32, v: &Value) -> (Value, Option<Value>) {
    match v {
        Value::Dual(d) if d.tag == tag => (d.primal.clone(), Some(d.tangent.clone())),
        _ => (v.clone(), None),
    }
}

/// `x op y` on scalars and dual numbers.
pub fn binop(op: BinOp, x: &Value, y: &Value) -> R<Value> {
    let Some(tag) = tag_of(x).max(tag_of(y)) else {
        let (a, b) = (plain(x)?, plain(y)?);
        return Ok(Value::Scalar(prim::binop(op, a, b)?));
    };
    let ((x0, x1), (y0, y1)) = (split(tag, x), split(tag, y));
    let r0 = binop(op, &x0, &y0)?;
    let p = base(&x0)
        .ok_or_else(|| Error::internal("expected a scalar"))?
        .ty();
    let (dx, dy) = partials(p, &[&x0, &y0, &r0], |b, a| {
        deriv::binop(b, op, a[0], a[1], a[2])
    })?;
    let mut terms = Vec::new();
    for (d, t) in [(dx, x1), (dy, y1)] {
        if let (Some(d), Some(t)) = (d, t) {
            terms.push(binop(deriv::mul_op(p), &d, &t)?);
        }
    }
    with_tangent(tag, r0, p, terms)
}

/// `op x` on scalars and dual numbers.
pub fn unop(op: UnOp, x: &Value) -> R<Value> {
    let Some(tag) = tag_of(x) else {
        return Ok(Value::Scalar(prim::unop(op, plain(x)?)?));
    };
    let (x0, Some(x1)) = split(tag, x) else {
        return Err(Error::internal("a dual number without its tangent"));
    };
    let r0 = unop(op, &x0)?;
    let p = base(&x0)
        .ok_or_else(|| Error::internal("expected a scalar"))?
        .ty();
    // A reinterpretation of the bits takes the tangent along.
    if deriv::bit_cast_inverse(op).is_some() {
        let t = unop(op, &x1)?;
        return Ok(dual(tag, r0, t));
    }
    let (d, _) = partials(p, &[&x0, &r0], |b, a| {
        (deriv::unop(b, op, a[0], a[1]), None)
    })?;
    let terms = match d {
        Some(d) => vec![binop(deriv::mul_op(p), &d, &x1)?],
        None => Vec::new(),
    };
    let rp = base(&r0).map_or(p, |s| s.ty());
    with_tangent(tag, r0, rp, terms)
}

/// A conversion: the tangent is converted along (a conversion is the
/// identity on the reals), as in the AD transformation.
pub fn convert(to: PrimType, x: &Value) -> R<Value> {
    match x {
        Value::Dual(d) => Ok(dual(
            d.tag,
            convert(to, &d.primal)?,
            convert(to, &d.tangent)?,
        )),
        _ => Ok(Value::Scalar(prim::convert(plain(x)?, to))),
    }
}

/// `r0 + (Σ terms)ε`; without terms the result does not move with `ε`.
fn with_tangent(tag: u32, r0: Value, p: PrimType, terms: Vec<Value>) -> R<Value> {
    let mut it = terms.into_iter();
    let Some(first) = it.next() else {
        return Ok(r0);
    };
    let t = it.try_fold(first, |acc, t| binop(deriv::add_op(p), &acc, &t))?;
    Ok(dual(tag, r0, t))
}

fn plain(v: &Value) -> R<Scalar> {
    match v {
        Value::Scalar(s) => Ok(*s),
        Value::Rep(_) => Err(Error::rep_length()),
        _ => Err(Error::internal("expected a scalar")),
    }
}

/// The partial derivatives `build` writes with the derivative table,
/// computed at `args` (which may themselves be dual numbers: a derivative
/// of a derivative). The table builds core IR statements over variables
/// standing for the arguments; they are scalar operations, run here.
fn partials(
    p: PrimType,
    args: &[&Value],
    build: impl FnOnce(&mut Builder, &[Atom]) -> (Option<Atom>, Option<Atom>),
) -> R<(Option<Value>, Option<Value>)> {
    let mut vars = Vars::new();
    let mut env: HashMap<urchin_core::ir::Var, Value> = HashMap::new();
    let atoms: Vec<Atom> = args
        .iter()
        .map(|v| {
            let ty = base(v).map_or(p, |s| s.ty());
            let x = vars.fresh("x", Type::Prim(ty));
            env.insert(x, (*v).clone());
            Atom::Var(x)
        })
        .collect();
    let mut b = Builder::new(&mut vars);
    let (dx, dy) = build(&mut b, &atoms);
    let atom = |env: &HashMap<_, Value>, a: &Atom| -> R<Value> {
        match a {
            Atom::Const(s) => Ok(Value::Scalar(*s)),
            Atom::Var(v) => env
                .get(v)
                .cloned()
                .ok_or_else(|| Error::internal("a derivative reads an unbound variable")),
        }
    };
    for s in std::mem::take(&mut b.stms) {
        let v = match &s.exp {
            Exp::Atom(a) => atom(&env, a)?,
            Exp::BinOp(op, x, y) => binop(*op, &atom(&env, x)?, &atom(&env, y)?)?,
            Exp::UnOp(op, x) => unop(*op, &atom(&env, x)?)?,
            Exp::Convert(to, x) => convert(*to, &atom(&env, x)?)?,
            Exp::Select(c, x, y) => {
                let c = base(&atom(&env, c)?).is_some_and(|c| c == Scalar::Bool(true));
                atom(&env, if c { x } else { y })?
            }
            _ => {
                return Err(Error::internal(
                    "a derivative that is not scalar arithmetic",
                ));
            }
        };
        let [var] = s.pat[..] else {
            return Err(Error::internal(
                "a derivative statement with several results",
            ));
        };
        env.insert(var, v);
    }
    let get = |a: Option<Atom>| a.map(|a| atom(&env, &a)).transpose();
    Ok((get(dx)?, get(dy)?))
}
