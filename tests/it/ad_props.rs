//! Random differentiable programs (f64 scalar and array arithmetic with
//! smooth functions, map, reduce (+, *, a general operator), scan (+, *,
//! over pairs), reduce and scan whose operator reads a differentiated
//! value, if, for, while and strip-mined loops, `with_vjp`, indexing,
//! gathers, hist (+, a general operator, a tuple operator, one reading a
//! differentiated value), scatter, implicit maps) pass the checks of
//! `ad_support`: `vjp` and `jvp` against finite differences and the
//! dot-product test.
//!
//! Programs stay smooth near the sample point: divisions and logarithms
//! are of positive expressions, and branches test only the parameters
//! `a` and `b`, which are kept away from 0.
//!
//! 600 cases in CI (`URCHIN_PROPTEST_SCALE=1`), 60 by default.
//!
//! Integer programs (docs/AD.md, "Integers and booleans") have laws of
//! their own, checked exactly: forward and reverse mode agree (the
//! dot-product test holds in wrapping arithmetic), and a program without
//! division has the derivative of the same program over f64 at integer
//! points (its derivative is a polynomial in them, exact in both).

use crate::ad_support::{Function, Rng};
use crate::support::{lazy, session};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use urchin_eval::EvalOptions;
use urchin_prim::{PrimType, Scalar};
use urchin_runtime::value::{Array, Value};

#[derive(Clone, Copy, Debug, PartialEq)]
enum Ty {
    /// f64
    S,
    /// [n]f64
    A,
}

/// Variables in scope.
#[derive(Clone, Debug)]
struct Env {
    scalars: Vec<String>,
    arrays: Vec<String>,
}

impl Env {
    fn with(&self, t: Ty, name: &str) -> Env {
        let mut e = self.clone();
        let vs = match t {
            Ty::S => &mut e.scalars,
            Ty::A => &mut e.arrays,
        };
        vs.retain(|v| v != name);
        vs.push(name.to_string());
        e
    }
}

fn literal() -> BoxedStrategy<String> {
    (1i32..8)
        .prop_map(|k| format!("{:.2}", f64::from(k) / 4.0))
        .boxed()
}

/// A condition far from its boundary at the sample point.
fn condition() -> BoxedStrategy<String> {
    prop_oneof![
        Just("a > 0".to_string()),
        Just("b < 0".to_string()),
        Just("a * b > 0".to_string()),
        Just("n > 2".to_string()),
    ]
    .boxed()
}

fn leaf(t: Ty, env: &Env) -> BoxedStrategy<String> {
    let vars = match t {
        Ty::S => env.scalars.clone(),
        Ty::A => env.arrays.clone(),
    };
    // The innermost binding (a lambda parameter, a loop accumulator) is
    // favoured, so that bodies depend on what they are mapped or looped
    // over.
    let last = Just(vars.last().expect("parameters are in scope").clone());
    let var = prop_oneof![2 => last, 3 => proptest::sample::select(vars)].boxed();
    match t {
        Ty::S => prop_oneof![4 => var, 1 => literal()].boxed(),
        Ty::A => var,
    }
}

fn expr(t: Ty, env: &Env, depth: u32) -> BoxedStrategy<String> {
    if depth == 0 {
        return leaf(t, env);
    }
    // Built when drawn from: only the alternatives taken build their
    // sub-expressions.
    let (env, d) = (env.clone(), depth - 1);
    lazy(move || match t {
        Ty::S => scalar(&env, d),
        Ty::A => array(&env, d),
    })
}

fn scalar(env: &Env, d: u32) -> BoxedStrategy<String> {
    let s = || expr(Ty::S, env, d);
    let a = || expr(Ty::A, env, d);
    let x = format!("x{d}");
    let acc = format!("acc{d}");
    let inner = env.with(Ty::S, &acc);
    prop_oneof![
        2 => leaf(Ty::S, env),
        2 => (s(), s(), prop::sample::select(vec!["+", "-", "*"]))
            .prop_map(|(p, q, op)| format!("({p} {op} {q})")),
        1 => (s(), s()).prop_map(|(p, q)| format!("({p} / (1.5 + {q} * {q}))")),
        2 => (s(), prop::sample::select(vec!["f64.sin", "f64.cos", "f64.tanh", "f64.atan"]))
            .prop_map(|(p, f)| format!("{f} {}", paren(&p))),
        1 => s().prop_map(|p| format!("f64.sqrt (1 + {p} * {p})")),
        1 => s().prop_map(|p| format!("f64.log (1 + {p} * {p})")),
        1 => s().prop_map(|p| format!("f64.exp (f64.tanh {})", paren(&p))),
        1 => (s(), s()).prop_map(|(p, q)| format!("f64.atan2 {} (2 + {q} * {q})", paren(&p))),
        2 => a().prop_map(|p| format!("f64.sum {}", paren(&p))),
        1 => a().prop_map(|p| format!("reduce (+) 0 {}", paren(&p))),
        1 => a().prop_map(|p| format!("f64.product {}", paren(&p))),
        // A general associative operator (neutral element 0).
        1 => a().prop_map(|p| format!("reduce (\\u v -> u + v + u * v) 0 {}", paren(&p))),
        // An operator reading a differentiated value: associative for any c,
        // as 1 + c·(u ⊙ v) = (1 + c·u)(1 + c·v).
        1 => (s(), a()).prop_map(|(c, p)| {
            format!("reduce (\\u v -> u + v + 0.25 * f64.tanh {} * u * v) 0 {}", paren(&c), paren(&p))
        }),
        2 => (a(), 0i64..5).prop_map(|(p, k)| format!("{}[{k} % n]", paren(&p))),
        1 => (condition(), s(), s())
            .prop_map(|(c, p, q)| format!("(if {c} then {p} else {q})")),
        1 => (s(), expr(Ty::S, &env.with(Ty::S, &x), d)).prop_map(move |(p, q)| {
            format!("(let {x} = {p} in {q})")
        }),
        1 => (s(), expr(Ty::S, &inner, d), 1i64..4).prop_map({
            let acc = acc.clone();
            move |(init, body, k)| format!("(loop {acc} = {init} for _i < {k} do {body})")
        }),
        // The initial value is a variable the body may also read.
        1 => (leaf(Ty::S, env), expr(Ty::S, &inner, d), 1i64..4).prop_map({
            let acc = acc.clone();
            move |(init, body, k)| format!("(loop {acc} = {init} for _i < {k} do {body})")
        }),
        1 => (s(), expr(Ty::S, &inner, d), 1i64..4).prop_map({
            let acc = acc.clone();
            move |(init, body, k)| {
                format!("(let ({acc}, _) = loop ({acc}, k) = ({init}, 0i64) while k < {k} do ({body}, k + 1) in {acc})")
            }
        }),
        1 => (s(), expr(Ty::S, &inner, d), 4i64..12, 2u32..4).prop_map({
            let acc = acc.clone();
            move |(init, body, k, depth)| {
                format!("(#[stripmine({depth})] loop {acc} = {init} for _i < {k} do 0.5 * {})", paren(&body))
            }
        }),
        // A user adjoint that is the true derivative.
        1 => s().prop_map(|p| {
            format!("with_vjp (\\x -> f64.sin x) (\\x ybar -> f64.cos x * ybar) {}", paren(&p))
        }),
    ]
    .boxed()
}

fn array(env: &Env, d: u32) -> BoxedStrategy<String> {
    let s = || expr(Ty::S, env, d);
    let a = || expr(Ty::A, env, d);
    let x = format!("x{d}");
    let y = format!("y{d}");
    let acc = format!("acc{d}");
    let in_map = env.with(Ty::S, &x);
    let in_map2 = in_map.with(Ty::S, &y);
    let in_loop = env.with(Ty::A, &acc);
    prop_oneof![
        2 => leaf(Ty::A, env),
        3 => (expr(Ty::S, &in_map, d), a()).prop_map({
            let x = x.clone();
            move |(body, p)| format!("map (\\{x} -> {body}) {}", paren(&p))
        }),
        2 => (expr(Ty::S, &in_map2, d), a(), a()).prop_map({
            let x = x.clone();
            move |(body, p, q)| {
                format!("map2 (\\{x} {y} -> {body}) {} {}", paren(&p), paren(&q))
            }
        }),
        // Implicit maps.
        2 => (a(), a(), prop::sample::select(vec!["+", "-", "*"]))
            .prop_map(|(p, q, op)| format!("({p} {op} {q})")),
        1 => (s(), a()).prop_map(|(p, q)| format!("({} * {q})", paren(&p))),
        1 => a().prop_map(|p| format!("f64.sin {}", paren(&p))),
        2 => a().prop_map(|p| format!("scan (+) 0 {}", paren(&p))),
        1 => a().prop_map(|p| format!("scan (*) 1 {}", paren(&p))),
        1 => (s(), a()).prop_map(|(c, p)| {
            format!("scan (\\u v -> u + v + 0.25 * f64.tanh {} * u * v) 0 {}", paren(&c), paren(&p))
        }),
        // A scan over pairs: composition of affine maps x ↦ v·x + u.
        1 => (a(), a()).prop_map(|(p, q)| {
            format!(
                "(let (u, _) = unzip (scan (\\(u1, v1) (u2, v2) -> (u1 * v2 + u2, v1 * v2)) (0, 1) (zip {} {})) in u)",
                paren(&p),
                paren(&q)
            )
        }),
        1 => a().prop_map(|p| format!("reverse {}", paren(&p))),
        1 => a().prop_map(|p| format!("rotate 1 {}", paren(&p))),
        1 => a().prop_map(|p| {
            format!("(let g = {p} in map (\\i -> g[(i * 2 + 1) % n]) (iota n))")
        }),
        1 => a().prop_map(|p| {
            format!("hist (+) 0 n (map (\\i -> (i * 3) % n) (iota n)) {}", paren(&p))
        }),
        // General operators (the sort-based rule): bins with two values,
        // one and none, in reverse order; the last index is -1 (ignored).
        1 => a().prop_map(|p| {
            format!(
                "hist (\\u v -> u + v + u * v) 0 n (map (\\i -> (n - 2 - i) / 2) (iota n)) {}",
                paren(&p)
            )
        }),
        // An operator reading a differentiated value (a segmented scan).
        1 => (s(), a()).prop_map(|(c, p)| {
            format!(
                "hist (\\u v -> u + v + 0.25 * f64.tanh {} * u * v) 0 n (map (\\i -> (n - 2 - i) / 2) (iota n)) {}",
                paren(&c),
                paren(&p)
            )
        }),
        // A tuple operator: composing affine maps x ↦ u·x + v.
        1 => (a(), a()).prop_map(|(p, q)| {
            format!(
                "(let (_, h) = unzip (hist (\\(u1, v1) (u2, v2) -> (u1 * u2, v1 * u2 + v2)) (1, 0) n \
                 (map (\\i -> (n - 2 - i) / 2) (iota n)) (zip {} {})) in h)",
                paren(&p),
                paren(&q)
            )
        }),
        1 => (a(), a()).prop_map(|(p, q)| {
            format!(
                "scatter (copy {}) (map (\\i -> if i % 2 == 0 then n - 1 - i else -1) (iota n)) {}",
                paren(&p),
                paren(&q)
            )
        }),
        1 => (condition(), a(), a())
            .prop_map(|(c, p, q)| format!("(if {c} then {p} else {q})")),
        1 => (a(), expr(Ty::A, &in_loop, d), 1i64..4).prop_map(move |(init, body, k)| {
            format!("(loop {acc} = {init} for _i < {k} do {body})")
        }),
    ]
    .boxed()
}

fn paren(s: &str) -> String {
    if s.chars()
        .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
    {
        s.to_string()
    } else {
        format!("({s})")
    }
}

#[derive(Clone, Debug)]
struct Case {
    ret: Ty,
    body: String,
    a: f64,
    b: f64,
    xs: Vec<f64>,
    ys: Vec<f64>,
    seed: u64,
}

impl Case {
    fn program(&self) -> String {
        let ret = match self.ret {
            Ty::S => "f64",
            Ty::A => "[n]f64",
        };
        format!(
            "entry f_main [n] (a: f64) (b: f64) (xs: [n]f64) (ys: [n]f64) : {ret} =\n  {}\n",
            self.body
        )
    }

    fn inputs(&self) -> Vec<Value> {
        let vector = |v: &[f64]| {
            let s: Vec<Scalar> = v.iter().map(|x| Scalar::F64(*x)).collect();
            Value::Array(Array::from_scalars(PrimType::F64, vec![v.len()], &s))
        };
        vec![
            Value::Scalar(Scalar::F64(self.a)),
            Value::Scalar(Scalar::F64(self.b)),
            vector(&self.xs),
            vector(&self.ys),
        ]
    }
}

/// A parameter value at least 0.25 away from 0 (the branch threshold).
fn away_from_zero() -> BoxedStrategy<f64> {
    (prop::bool::ANY, 1i32..7)
        .prop_map(|(neg, k)| {
            let v = f64::from(k) / 4.0;
            if neg { -v } else { v }
        })
        .boxed()
}

fn element() -> BoxedStrategy<f64> {
    (-12i32..13)
        .prop_map(|k| f64::from(k) / 8.0 + 0.0625)
        .boxed()
}

fn case() -> BoxedStrategy<Case> {
    let env = Env {
        scalars: vec!["a".into(), "b".into()],
        arrays: vec!["xs".into(), "ys".into()],
    };
    (prop_oneof![Just(Ty::S), Just(Ty::A)], 2u32..5, 1usize..5)
        .prop_flat_map(move |(ret, depth, n)| {
            (
                Just(ret),
                expr(ret, &env, depth),
                away_from_zero(),
                away_from_zero(),
                prop::collection::vec(element(), n),
                prop::collection::vec(element(), n),
                any::<u64>(),
            )
        })
        .prop_map(|(ret, body, a, b, xs, ys, seed)| Case {
            ret,
            body,
            a,
            b,
            xs,
            ys,
            seed,
        })
        .boxed()
}

fn check(c: &Case) -> Result<(), TestCaseError> {
    let program = c.program();
    let fail = |why: String| {
        TestCaseError::fail(format!(
            "{why}\nprogram:\n{program}inputs: a = {}, b = {}, xs = {:?}, ys = {:?}",
            c.a, c.b, c.xs, c.ys
        ))
    };
    let mut s = session();
    s.load("<generated>", &program).map_err(|d| {
        fail(format!(
            "the generated program does not check:\n{}",
            urchin_base::diag::render_all(&d, &s.sources, false)
        ))
    })?;
    let f = Function::new(&mut s, "f_main").map_err(fail)?;
    // Finite differences lose their accuracy on huge values; the
    // generator rarely makes them (products in loops).
    let ys = f.primal_values(&s, &c.inputs()).map_err(fail)?;
    prop_assume!(ys.iter().all(|y| y.is_finite() && y.abs() < 1e4));
    let cov = f
        .check(&s, &c.inputs(), &mut Rng::new(c.seed))
        .map_err(fail)?;
    prop_assert!(cov.partials >= 2 + 2 * c.xs.len());
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: crate::test_env::proptest_cases(600),
        max_shrink_iters: 200,
        failure_persistence: Some(Box::new(proptest::test_runner::FileFailurePersistence::WithSource("regressions"))),
        ..ProptestConfig::default()
    })]

    #[test]
    fn derivatives_agree_with_finite_differences_and_each_other(c in case()) {
        check(&c)?;
    }
}

/// An integer program: the same text over `i64` and over `f64` (`T` is
/// the element type), with or without integer division and bit
/// operations (which have no f64 counterpart).
fn int_expr(t: Ty, env: &Env, depth: u32, division: bool) -> BoxedStrategy<String> {
    let int_leaf = |t: Ty| match t {
        Ty::S => {
            let var = proptest::sample::select(env.scalars.clone());
            prop_oneof![4 => var, 1 => (0i32..4).prop_map(|k| k.to_string())].boxed()
        }
        Ty::A => leaf(Ty::A, env),
    };
    if depth == 0 {
        return int_leaf(t);
    }
    let d = depth - 1;
    let s = || int_expr(Ty::S, env, d, division);
    let a = || int_expr(Ty::A, env, d, division);
    let x = format!("x{d}");
    let y = format!("y{d}");
    let acc = format!("acc{d}");
    match t {
        Ty::S => {
            let inner = env.with(Ty::S, &acc);
            let mut cases = vec![
                (2, int_leaf(Ty::S)),
                (3, (s(), s(), prop::sample::select(vec!["+", "-", "*"]))
                    .prop_map(|(p, q, op)| format!("({p} {op} {q})"))
                    .boxed()),
                (1, (s(), s(), prop::sample::select(vec!["T.min", "T.max"]))
                    .prop_map(|(p, q, f)| format!("{f} {} {}", paren(&p), paren(&q)))
                    .boxed()),
                (1, s().prop_map(|p| format!("T.abs {}", paren(&p))).boxed()),
                (1, s().prop_map(|p| format!("(-{})", paren(&p))).boxed()),
                (2, a().prop_map(|p| format!("T.sum {}", paren(&p))).boxed()),
                (1, a().prop_map(|p| format!("T.product {}", paren(&p))).boxed()),
                (1, a().prop_map(|p| format!("T.maximum {}", paren(&p))).boxed()),
                (1, a().prop_map(|p| format!("reduce (\\u v -> u + v + u * v) 0 {}", paren(&p))).boxed()),
                (2, (a(), 0i64..5).prop_map(|(p, k)| format!("{}[{k} % n]", paren(&p))).boxed()),
                (1, (condition(), s(), s())
                    .prop_map(|(c, p, q)| format!("(if {c} then {p} else {q})"))
                    .boxed()),
                (1, (s(), int_expr(Ty::S, &inner, d, division), 1i64..4)
                    .prop_map({
                        let acc = acc.clone();
                        move |(init, body, k)| format!("(loop {acc} = {init} for _i < {k} do {body})")
                    })
                    .boxed()),
                (1, (s(), int_expr(Ty::S, &inner, d, division), 1i64..4)
                    .prop_map({
                        let acc = acc.clone();
                        move |(init, body, k)| {
                            format!("(let ({acc}, _) = loop ({acc}, k) = ({init}, 0i64) while k < {k} do ({body}, k + 1) in {acc})")
                        }
                    })
                    .boxed()),
            ];
            if division {
                cases.push((
                    3,
                    (s(), s(), prop::sample::select(vec!["/", "%", "//", "%%"]))
                        .prop_map(|(p, q, op)| format!("({p} {op} (T.abs {} + 1))", paren(&q)))
                        .boxed(),
                ));
                cases.push((
                    1,
                    (
                        s(),
                        prop::sample::select(vec!["<<", ">>", "&", "|", "^"]),
                        0i32..3,
                    )
                        .prop_map(|(p, op, k)| format!("({p} {op} {k})"))
                        .boxed(),
                ));
            }
            proptest::strategy::Union::new_weighted(cases).boxed()
        }
        Ty::A => {
            let in_map = env.with(Ty::S, &x);
            let in_map2 = in_map.with(Ty::S, &y);
            prop_oneof![
                2 => leaf(Ty::A, env),
                3 => (int_expr(Ty::S, &in_map, d, division), a()).prop_map({
                    let x = x.clone();
                    move |(body, p)| format!("map (\\{x} -> {body}) {}", paren(&p))
                }),
                1 => (int_expr(Ty::S, &in_map2, d, division), a(), a()).prop_map({
                    let x = x.clone();
                    move |(body, p, q)| format!("map2 (\\{x} {y} -> {body}) {} {}", paren(&p), paren(&q))
                }),
                2 => (a(), a(), prop::sample::select(vec!["+", "-", "*"]))
                    .prop_map(|(p, q, op)| format!("({p} {op} {q})")),
                1 => a().prop_map(|p| format!("scan (+) 0 {}", paren(&p))),
                1 => a().prop_map(|p| format!("scan (*) 1 {}", paren(&p))),
                1 => a().prop_map(|p| format!("reverse {}", paren(&p))),
                1 => a().prop_map(|p| {
                    format!("(let g = {p} in map (\\i -> g[(i * 2 + 1) % n]) (iota n))")
                }),
                1 => a().prop_map(|p| {
                    format!("hist (+) 0 n (map (\\i -> (i * 3) % n) (iota n)) {}", paren(&p))
                }),
                1 => a().prop_map(|p| {
                    format!("hist (*) 1 n (map (\\i -> (n - 2 - i) / 2) (iota n)) {}", paren(&p))
                }),
                1 => (a(), a()).prop_map(|(p, q)| {
                    format!(
                        "scatter (copy {}) (map (\\i -> if i % 2 == 0 then n - 1 - i else -1) (iota n)) {}",
                        paren(&p),
                        paren(&q)
                    )
                }),
            ]
            .boxed()
        }
    }
}

#[derive(Clone, Debug)]
struct IntCase {
    ret: Ty,
    body: String,
    division: bool,
    /// a, b, xs, ys; then their tangents; then the result's cotangent
    /// (one element per result element).
    point: Vec<Vec<i64>>,
    tangent: Vec<Vec<i64>>,
    cotangent: Vec<i64>,
}

impl IntCase {
    /// The function over `T`, its `jvp` and its `vjp`, as entries
    /// `f_T`, `jvp_T`, `vjp_T`.
    fn entries(&self, t: &str) -> String {
        let ret = match self.ret {
            Ty::S => t.to_string(),
            Ty::A => format!("[n]{t}"),
        };
        let body = self.body.replace("T.", &format!("{t}."));
        format!(
            "entry f_{t} [n] (a: {t}) (b: {t}) (xs: [n]{t}) (ys: [n]{t}) : {ret} =\n  {body}\n\
             entry jvp_{t} [n] (a: {t}) (b: {t}) (xs: [n]{t}) (ys: [n]{t}) (da: {t}) (db: {t}) (dxs: [n]{t}) (dys: [n]{t}) =\n  \
               jvp (\\(a, b, xs, ys) -> f_{t} a b xs ys) (a, b, xs, ys) (da, db, dxs, dys)\n\
             entry vjp_{t} [n] (a: {t}) (b: {t}) (xs: [n]{t}) (ys: [n]{t}) (ybar: {ret}) =\n  \
               vjp (\\(a, b, xs, ys) -> f_{t} a b xs ys) (a, b, xs, ys) ybar\n"
        )
    }

    fn program(&self) -> String {
        let mut p = self.entries("i64");
        if !self.division {
            p.push_str(&self.entries("f64"));
        }
        p
    }
}

fn int_values(p: PrimType, vs: &[Vec<i64>], scalars: usize) -> Vec<Value> {
    vs.iter()
        .enumerate()
        .map(|(i, v)| {
            let s: Vec<Scalar> = v.iter().map(|x| Scalar::from_i64(p, *x)).collect();
            if i < scalars {
                Value::Scalar(s[0])
            } else {
                Value::Array(Array::from_scalars(p, vec![v.len()], &s))
            }
        })
        .collect()
}

/// Every element of the values, as i64 (f64 values must be integers).
fn int_elements(vs: &[Value]) -> Result<Vec<i64>, String> {
    let mut out = Vec::new();
    for v in vs {
        let scalars = match v {
            Value::Scalar(s) => vec![*s],
            Value::Array(a) => a.to_scalars(),
            other => return Err(format!("unexpected value {other:?}")),
        };
        for s in scalars {
            let x = s.as_f64();
            match s {
                Scalar::F64(_) if x.abs() > 1e15 || x.fract() != 0.0 => {
                    return Err(format!("f64 value {x} is not a small integer"));
                }
                Scalar::F64(_) => out.push(x as i64),
                _ => out.push(s.as_i64()),
            }
        }
    }
    Ok(out)
}

fn small_ints(n: usize) -> BoxedStrategy<Vec<i64>> {
    prop::collection::vec(-3i64..4, n).boxed()
}

fn int_case() -> BoxedStrategy<IntCase> {
    let env = Env {
        scalars: vec!["a".into(), "b".into()],
        arrays: vec!["xs".into(), "ys".into()],
    };
    (
        prop_oneof![Just(Ty::S), Just(Ty::A)],
        2u32..5,
        1usize..5,
        prop::bool::ANY,
    )
        .prop_flat_map(move |(ret, depth, n, division)| {
            let point = (small_ints(1), small_ints(1), small_ints(n), small_ints(n));
            let m = if ret == Ty::S { 1 } else { n };
            (
                Just(ret),
                int_expr(ret, &env, depth, division),
                Just(division),
                point.clone(),
                point,
                small_ints(m),
            )
        })
        .prop_map(
            |(ret, body, division, (a, b, xs, ys), (da, db, dxs, dys), cotangent)| IntCase {
                ret,
                body,
                division,
                point: vec![a, b, xs, ys],
                tangent: vec![da, db, dxs, dys],
                cotangent,
            },
        )
        .boxed()
}

fn check_int(c: &IntCase) -> Result<(), TestCaseError> {
    let program = c.program();
    let fail = |why: String| {
        TestCaseError::fail(format!(
            "{why}\nprogram:\n{program}point {:?}, tangent {:?}, cotangent {:?}",
            c.point, c.tangent, c.cotangent
        ))
    };
    let mut s = session();
    s.load("<generated>", &program).map_err(|d| {
        fail(format!(
            "the generated program does not check:\n{}",
            urchin_base::diag::render_all(&d, &s.sources, false)
        ))
    })?;
    let run = |t: &str, what: &str, extra: &[Vec<i64>], scalars_extra: usize| {
        let p = if t == "i64" {
            PrimType::I64
        } else {
            PrimType::F64
        };
        let name = format!("{what}_{t}");
        let id = s.lookup_def(&name).expect("the entry was just loaded");
        let compiled = s
            .compile(id)
            .map_err(|d| format!("`{name}` does not compile: {}", d.message))?;
        let mut args = int_values(p, &c.point, 2);
        let (sc, ar): (Vec<Vec<i64>>, Vec<Vec<i64>>) = (
            extra[..scalars_extra].to_vec(),
            extra[scalars_extra..].to_vec(),
        );
        args.extend(int_values(p, &sc, sc.len()));
        args.extend(int_values(p, &ar, 0));
        let out = s
            .run(&compiled, args, &EvalOptions::default())
            .map_err(|e| format!("`{name}`: {}", e.message))?;
        int_elements(&out)
    };
    let ybar_scalars = usize::from(c.ret == Ty::S);
    let primal = run("i64", "f", &[], 0).map_err(fail)?;
    // Keep to values where the f64 program is exact.
    prop_assume!(primal.iter().all(|y| y.abs() < 1 << 40));
    let tangent = run("i64", "jvp", &c.tangent, 2).map_err(fail)?;
    let gradient = run(
        "i64",
        "vjp",
        std::slice::from_ref(&c.cotangent),
        ybar_scalars,
    )
    .map_err(fail)?;
    // Forward and reverse mode agree, exactly in wrapping arithmetic.
    let dot = |u: &[i64], v: &[i64]| {
        u.iter()
            .zip(v)
            .fold(0i64, |s, (p, q)| s.wrapping_add(p.wrapping_mul(*q)))
    };
    let xdot: Vec<i64> = c.tangent.iter().flatten().copied().collect();
    let (lhs, rhs) = (dot(&gradient, &xdot), dot(&c.cotangent, &tangent));
    if lhs != rhs {
        return Err(fail(format!(
            "⟨vjp f x ȳ, ẋ⟩ = {lhs} but ⟨ȳ, jvp f x ẋ⟩ = {rhs} (jvp {tangent:?}, vjp {gradient:?})"
        )));
    }
    // The f64 program computes the same derivatives only where it is exact
    // throughout: a primal that wraps around in i64 (a value squared past
    // 2^63 on the way to a small result) is not, whatever its result.
    let exact = || run("f64", "f", &[], 0).is_ok_and(|y| y == primal);
    if !c.division && tangent.iter().chain(&gradient).all(|d| d.abs() < 1 << 40) && exact() {
        let ftangent = run("f64", "jvp", &c.tangent, 2).map_err(fail)?;
        let fgradient = run(
            "f64",
            "vjp",
            std::slice::from_ref(&c.cotangent),
            ybar_scalars,
        )
        .map_err(fail)?;
        if (&tangent, &gradient) != (&ftangent, &fgradient) {
            return Err(fail(format!(
                "integer derivatives differ from f64 ones: jvp {tangent:?} vs {ftangent:?}, vjp {gradient:?} vs {fgradient:?}"
            )));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: crate::test_env::proptest_cases(400),
        max_shrink_iters: 200,
        failure_persistence: Some(Box::new(proptest::test_runner::FileFailurePersistence::WithSource("regressions"))),
        ..ProptestConfig::default()
    })]

    #[test]
    fn integer_derivatives_agree_between_modes_and_with_f64(c in int_case()) {
        check_int(&c)?;
    }
}

// ----- Layout operations at every depth of nested maps -----
//
// Issue 43, item 12b: `vjp` of a function that transposed the
// differentiated matrix inside a nested `map` stopped with an internal
// error, while `jvp` was right. These programs put `transpose`, `rotate`,
// `reverse` and slices of a square matrix `m` (and of matrices made from
// it) at every depth of maps over `x` and over the matrices' rows, and
// reduce to a scalar; `vjp` is checked against `jvp` (the dot-product
// test) and finite differences.

/// The side of the square matrix `m`.
const SIDE: usize = 3;

/// A `SIDE × SIDE` matrix from those in scope: one of them, or one with
/// its rows or elements moved about.
fn layout_matrix(mats: &[String], depth: u32) -> BoxedStrategy<String> {
    let name = prop::sample::select(mats.to_vec()).boxed();
    if depth == 0 {
        return name;
    }
    let mats = mats.to_vec();
    let inner = lazy(move || layout_matrix(&mats, depth - 1));
    prop_oneof![
        2 => name,
        2 => inner.clone().prop_map(|e| format!("transpose ({e})")),
        1 => inner.clone().prop_map(|e| format!("rotate 1 ({e})")),
        1 => inner.clone().prop_map(|e| format!("map (rotate 2) ({e})")),
        1 => inner.clone().prop_map(|e| format!("map reverse ({e})")),
        1 => inner.clone().prop_map(|e| format!("(({e})[1:] ++ ({e})[:1])")),
        1 => inner.prop_map(|e| format!("map (\\r -> r[2:] ++ r[:2]) ({e})")),
    ]
    .boxed()
}

/// A scalar from the matrices and rows in scope, with maps nested to
/// `depth`: over `x`, over a matrix's rows, and `let`s of matrices.
fn layout_scalar(mats: &[String], rows: &[String], depth: u32) -> BoxedStrategy<String> {
    let m = layout_matrix(mats, 1);
    let mut leaves = vec![
        m.clone()
            .prop_map(|e| format!("f64.sum (map f64.sum ({e}))"))
            .boxed(),
        m.clone().prop_map(|e| format!("({e})[1, 2]")).boxed(),
        m.prop_map(|e| format!("f64.sum (map (\\r -> f64.sum r[1:]) ({e}))"))
            .boxed(),
    ];
    for r in rows {
        let r = r.clone();
        leaves.push(Just(format!("f64.sum ({r} * reverse {r})")).boxed());
        leaves.push(Just(format!("{r}[0] * f64.sum (rotate 1 {r})")).boxed());
    }
    let leaf = prop::strategy::Union::new(leaves).boxed();
    if depth == 0 {
        return leaf;
    }
    let (mats, rows) = (mats.to_vec(), rows.to_vec());
    let k = depth;
    let sub = {
        let (mats, rows) = (mats.clone(), rows.clone());
        lazy(move || layout_scalar(&mats, &rows, depth - 1))
    };
    let over_x = sub
        .clone()
        .prop_map(|s| format!("f64.sum (map (\\_ -> {s}) x)"));
    let over_rows = {
        let (mats, rows) = (mats.clone(), rows.clone());
        layout_matrix(&mats, 1).prop_flat_map(move |e| {
            let mut rows = rows.clone();
            rows.push(format!("r{k}"));
            let mats = mats.clone();
            lazy(move || layout_scalar(&mats, &rows, depth - 1))
                .prop_map(move |s| format!("f64.sum (map (\\r{k} -> {s}) ({e}))"))
        })
    };
    let bound = {
        let (mats, rows) = (mats.clone(), rows.clone());
        layout_matrix(&mats, 2).prop_flat_map(move |e| {
            let mut mats = mats.clone();
            mats.push(format!("y{k}"));
            let rows = rows.clone();
            lazy(move || layout_scalar(&mats, &rows, depth - 1))
                .prop_map(move |s| format!("(let y{k} = {e} in {s})"))
        })
    };
    prop_oneof![
        1 => leaf,
        2 => over_x,
        2 => over_rows,
        2 => bound,
        1 => (sub.clone(), sub).prop_map(|(a, b)| format!("{a} * f64.sin ({b})")),
    ]
    .boxed()
}

fn layout_case() -> BoxedStrategy<(String, Vec<f64>, u64)> {
    (
        1u32..5,
        prop::collection::vec(element(), SIDE * SIDE),
        any::<u64>(),
    )
        .prop_flat_map(|(depth, m, seed)| {
            (
                layout_scalar(&["m".to_string()], &[], depth),
                Just(m),
                Just(seed),
            )
        })
        .boxed()
}

fn check_layout(body: &str, m: &[f64], seed: u64) -> Result<(), TestCaseError> {
    let program = format!("entry f_main (m: [{SIDE}][{SIDE}]f64) (x: [2]f64) : f64 =\n  {body}\n");
    let fail = |why: String| TestCaseError::fail(format!("{why}\nprogram:\n{program}m = {m:?}"));
    let mut s = session();
    s.load("<generated>", &program).map_err(|d| {
        fail(format!(
            "the generated program does not check:\n{}",
            urchin_base::diag::render_all(&d, &s.sources, false)
        ))
    })?;
    let f = Function::new(&mut s, "f_main").map_err(fail)?;
    let ms: Vec<Scalar> = m.iter().map(|v| Scalar::F64(*v)).collect();
    let args = vec![
        Value::Array(Array::from_scalars(PrimType::F64, vec![SIDE, SIDE], &ms)),
        Value::Array(Array::from_scalars(
            PrimType::F64,
            vec![2],
            &[Scalar::F64(0.5), Scalar::F64(1.5)],
        )),
    ];
    let ys = f.primal_values(&s, &args).map_err(fail)?;
    prop_assume!(ys.iter().all(|y| y.is_finite() && y.abs() < 1e4));
    f.check(&s, &args, &mut Rng::new(seed)).map_err(fail)?;
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: crate::test_env::proptest_cases(300),
        max_shrink_iters: 200,
        failure_persistence: Some(Box::new(proptest::test_runner::FileFailurePersistence::WithSource("regressions"))),
        ..ProptestConfig::default()
    })]

    #[test]
    fn layout_operations_in_nested_maps_differentiate(c in layout_case()) {
        check_layout(&c.0, &c.1, c.2)?;
    }
}

/// The example, and the Gaussian-mixture form that hit it.
#[test]
fn transposes_inside_nested_maps_differentiate() {
    let mut s = session();
    s.load(
        "<12b>",
        "entry main (m: [2][2]f64) (x: [3]f64) =\n  vjp (\\m -> f64.sum (map (\\_ -> let y = transpose m\n    in f64.sum (map (\\_ -> f64.sum (map f64.sum y)) x)) x)) m 1.0\n",
    )
    .expect("the program checks");
    let id = s.lookup_def("main").expect("main");
    let c = s.compile(id).expect("main compiles");
    let m: Vec<Scalar> = [1.0, 2.0, 3.0, 4.0].map(Scalar::F64).to_vec();
    let x: Vec<Scalar> = [0.5, 1.0, 3.0].map(Scalar::F64).to_vec();
    let out = s
        .run(
            &c,
            vec![
                Value::Array(Array::from_scalars(PrimType::F64, vec![2, 2], &m)),
                Value::Array(Array::from_scalars(PrimType::F64, vec![3], &x)),
            ],
            &EvalOptions::default(),
        )
        .unwrap_or_else(|e| panic!("{}", e.message));
    assert_eq!(
        urchin_runtime::values::format_value(&out[0]),
        "[[9.0, 9.0], [9.0, 9.0]]"
    );
}
