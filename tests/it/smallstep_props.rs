//! small-step = fast evaluator: random well-typed programs (arithmetic,
//! tuples, arrays, SOACs, `if`, `loop`, implicit maps) give the same
//! result under the reference semantics and the fast evaluator (floats
//! within tolerance), or the same kind of error; and programs with a
//! recursive function (calls in the core IR).
//!
//! 2,000 cases in CI (`URCHIN_PROPTEST_SCALE=1`), 200 by default; 500 and
//! 50 for recursion; 1,000 and 100 for `jvp` (forward-mode derivatives of
//! generated functions, second derivatives included).

use crate::support::{lazy, session};
use proptest::prelude::*;
use proptest::test_runner::{TestCaseError, TestRunner};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use urchin::driver::Session;
use urchin_eval::EvalOptions;
use urchin_prim::{PrimType, Scalar};
use urchin_reference::{self as semantics, Stop};
use urchin_runtime::RuntimeErrorKind;
use urchin_runtime::value::{Array, Value};
use urchin_runtime::values::{Mismatch, Tolerance, compare};

#[derive(Clone, Debug, PartialEq)]
enum Ty {
    I32,
    I64,
    F64,
    Bool,
    Arr(Box<Ty>),
    Tup(Box<Ty>, Box<Ty>),
}

use Ty::*;

fn arr(t: Ty) -> Ty {
    Arr(Box::new(t))
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            I32 => write!(f, "i32"),
            I64 => write!(f, "i64"),
            F64 => write!(f, "f64"),
            Bool => write!(f, "bool"),
            Arr(t) => write!(f, "[]{t}"),
            Tup(a, b) => write!(f, "({a}, {b})"),
        }
    }
}

impl Ty {
    fn is_num(&self) -> bool {
        matches!(self, I32 | I64 | F64)
    }

    fn zero(&self) -> &'static str {
        match self {
            I32 => "0i32",
            I64 => "0i64",
            _ => "0f64",
        }
    }
}

/// Variables in scope, with their types.
type Env = Rc<Vec<(String, Ty)>>;

/// `env` with `name` bound to `t`, shadowing any other `name`.
fn with(env: &Env, name: &str, t: &Ty) -> Env {
    let mut e = (**env).clone();
    e.retain(|(n, _)| n != name);
    e.push((name.to_string(), t.clone()));
    Rc::new(e)
}

/// The parameters of every generated entry point.
fn params() -> Env {
    Rc::new(vec![
        ("a".into(), I32),
        ("b".into(), I64),
        ("c".into(), F64),
        ("xs".into(), arr(I32)),
        ("ys".into(), arr(I32)),
        ("zs".into(), arr(F64)),
        ("is".into(), arr(I64)),
        ("xss".into(), arr(arr(I32))),
    ])
}

fn scalar_ty() -> BoxedStrategy<Ty> {
    prop_oneof![Just(I32), Just(I64), Just(F64), Just(Bool)].boxed()
}

fn num_ty() -> BoxedStrategy<Ty> {
    prop_oneof![Just(I32), Just(I64), Just(F64)].boxed()
}

fn any_ty() -> BoxedStrategy<Ty> {
    prop_oneof![
        4 => scalar_ty(),
        2 => scalar_ty().prop_map(arr),
        1 => num_ty().prop_map(|t| arr(arr(t))),
        1 => (scalar_ty(), scalar_ty()).prop_map(|(a, b)| Tup(Box::new(a), Box::new(b))),
    ]
    .boxed()
}

fn literal(t: &Ty) -> BoxedStrategy<String> {
    match t {
        I32 => (-5i32..20).prop_map(|n| signed(format!("{n}i32"))).boxed(),
        I64 => (-3i64..6).prop_map(|n| signed(format!("{n}i64"))).boxed(),
        F64 => prop_oneof![
            (-20i32..20).prop_map(|n| signed(format!("{:.2}f64", f64::from(n) / 4.0))),
            Just("0f64".to_string())
        ]
        .boxed(),
        Bool => any::<bool>().prop_map(|b| b.to_string()).boxed(),
        Arr(e) => prop::collection::vec(literal(e), 1..4)
            .prop_map(|es| format!("[{}]", es.join(", ")))
            .boxed(),
        Tup(a, b) => (literal(a), literal(b))
            .prop_map(|(a, b)| format!("({a}, {b})"))
            .boxed(),
    }
}

/// A negative literal in parentheses, so that `f (-1)` is not `f - 1`.
fn signed(s: String) -> String {
    if s.starts_with('-') {
        format!("({s})")
    } else {
        s
    }
}

fn leaf(t: &Ty, env: &Env) -> BoxedStrategy<String> {
    let vars: Vec<String> = env
        .iter()
        .filter(|(_, u)| u == t)
        .map(|(n, _)| n.clone())
        .collect();
    if vars.is_empty() {
        literal(t)
    } else {
        prop_oneof![literal(t), prop::sample::select(vars)].boxed()
    }
}

/// A small loop count, so that nested loops stay cheap.
fn count() -> BoxedStrategy<String> {
    (0i32..4).prop_map(|n| n.to_string()).boxed()
}

fn expr(t: &Ty, env: &Env, depth: u32) -> BoxedStrategy<String> {
    if depth == 0 {
        return leaf(t, env);
    }
    // Built when drawn from: only the alternatives taken build their
    // sub-expressions.
    let (t, env) = (t.clone(), env.clone());
    lazy(move || forms(&t, &env, depth))
}

/// The expressions of type `t` of depth at most `depth` (> 0).
fn forms(t: &Ty, env: &Env, depth: u32) -> BoxedStrategy<String> {
    let d = depth - 1;
    let t2 = t.clone();
    let env2 = env.clone();
    // Forms every type has: if, let, loop, projection.
    let generic = {
        let (tt, e) = (t2.clone(), env2.clone());
        let iff = (expr(&Bool, &e, d), expr(&tt, &e, d), expr(&tt, &e, d))
            .prop_map(|(c, a, b)| format!("(if {c} then {a} else {b})"));
        let (tt, e) = (t2.clone(), env2.clone());
        let name = format!("v{depth}");
        let lett = any_ty().prop_flat_map(move |u| {
            let inner = with(&e, &name, &u);
            let name = name.clone();
            (expr(&u, &e, d), expr(&tt, &inner, d))
                .prop_map(move |(x, body)| format!("(let {name} = {x} in {body})"))
        });
        let (tt, e) = (t2.clone(), env2.clone());
        let acc = format!("acc{depth}");
        let i = format!("i{depth}");
        let inner = with(&with(&e, &acc, &tt), &i, &I32);
        let lp =
            (expr(&tt, &e, d), count(), expr(&tt, &inner, d)).prop_map(move |(init, n, body)| {
                format!("(loop {acc} = {init} for {i} < {n} do {body})")
            });
        let (tt, e) = (t2.clone(), env2.clone());
        let proj = scalar_ty().prop_flat_map(move |u| {
            let pair = Tup(Box::new(tt.clone()), Box::new(u));
            expr(&pair, &e, d).prop_map(|p| format!("({p}).0"))
        });
        let (tt, e) = (t2.clone(), env2.clone());
        let (w, acc) = (format!("w{depth}"), format!("acc{depth}"));
        let inner = with(&with(&e, &acc, &tt), &w, &I32);
        let wh =
            (expr(&tt, &e, d), count(), expr(&tt, &inner, d)).prop_map(move |(init, n, body)| {
                format!(
                    "((loop ({w}, {acc}) = (0i32, {init}) while {w} < {n} do ({w} + 1, {body})).1)"
                )
            });
        let (tt, e) = (t2.clone(), env2.clone());
        let (y, acc) = (format!("y{depth}"), format!("acc{depth}"));
        let forin = scalar_ty().prop_flat_map(move |u| {
            let inner = with(&with(&e, &acc, &tt), &y, &u);
            let (y, acc) = (y.clone(), acc.clone());
            (expr(&tt, &e, d), expr(&arr(u), &e, d), expr(&tt, &inner, d)).prop_map(
                move |(init, xs, body)| format!("(loop {acc} = {init} for {y} in {xs} do {body})"),
            )
        });
        prop_oneof![2 => iff, 2 => lett, 1 => lp, 1 => wh, 1 => forin, 1 => proj].boxed()
    };
    let specific: BoxedStrategy<String> = match t {
        I32 | I64 | F64 => {
            let ops: Vec<&str> = if *t == F64 {
                vec!["+", "-", "*", "/"]
            } else {
                vec!["+", "-", "*", "/", "%", "//", "%%"]
            };
            let bin = (expr(t, env, d), prop::sample::select(ops), expr(t, env, d))
                .prop_map(|(a, op, b)| format!("({a} {op} {b})"));
            let m = format!("{t}.max");
            let mx =
                (expr(t, env, d), expr(t, env, d)).prop_map(move |(a, b)| format!("({m} {a} {b})"));
            let z = t.zero();
            let red =
                expr(&arr(t.clone()), env, d).prop_map(move |xs| format!("(reduce (+) {z} {xs})"));
            let idx = (expr(&arr(t.clone()), env, d), expr(&I64, env, d))
                .prop_map(|(xs, i)| format!("{xs}[{i}]"));
            let from = match t {
                I32 => I64,
                _ => I32,
            };
            let conv_name = format!("{t}.{from}");
            let conv = expr(&from, env, d).prop_map(move |x| format!("({conv_name} {x})"));
            let mut forms = vec![
                (3, bin.boxed()),
                (1, mx.boxed()),
                (1, red.boxed()),
                (1, idx.boxed()),
                (1, conv.boxed()),
            ];
            if *t == I64 {
                let len = scalar_ty()
                    .prop_flat_map(move |u| expr(&arr(u), &env2, d))
                    .prop_map(|xs| format!("(length {xs})"));
                forms.push((1, len.boxed()));
            }
            if *t == F64 {
                let sq = expr(t, env, d).prop_map(|x| format!("(f64.sqrt (f64.abs {x}))"));
                forms.push((1, sq.boxed()));
            }
            prop::strategy::Union::new_weighted(forms).boxed()
        }
        Bool => {
            let (e1, e2) = (env.clone(), env.clone());
            let cmp = num_ty().prop_flat_map(move |u| {
                (
                    expr(&u, &e1, d),
                    prop::sample::select(vec!["<", "<=", "==", "!=", ">"]),
                    expr(&u, &e1, d),
                )
                    .prop_map(|(a, op, b)| format!("({a} {op} {b})"))
            });
            let logic = (
                expr(&Bool, env, d),
                prop::sample::select(vec!["&&", "||"]),
                expr(&Bool, env, d),
            )
                .prop_map(|(a, op, b)| format!("({a} {op} {b})"));
            let not = expr(&Bool, env, d).prop_map(|a| format!("(!{a})"));
            let all = scalar_ty().prop_flat_map(move |u| {
                let inner = with(&e2, "q", &u);
                (expr(&Bool, &inner, d), expr(&arr(u.clone()), &e2, d))
                    .prop_map(move |(p, xs)| format!("(all (\\(q: {u}) -> {p}) {xs})"))
            });
            prop_oneof![3 => cmp, 2 => logic, 1 => not, 1 => all].boxed()
        }
        Arr(e) => array(e, env, d),
        Tup(a, b) => (expr(a, env, d), expr(b, env, d))
            .prop_map(|(a, b)| format!("({a}, {b})"))
            .boxed(),
    };
    prop_oneof![2 => leaf(t, env), 2 => generic, 5 => specific].boxed()
}

/// Expressions of type `[]e`.
fn array(e: &Ty, env: &Env, d: u32) -> BoxedStrategy<String> {
    let t = arr(e.clone());
    let (e1, e2, env1, env2) = (e.clone(), e.clone(), env.clone(), env.clone());
    let map = any_ty().prop_flat_map(move |u| {
        let inner = with(&env1, "x", &u);
        (expr(&e1, &inner, d), expr(&arr(u.clone()), &env1, d))
            .prop_map(move |(body, xs)| format!("(map (\\(x: {u}) -> {body}) {xs})"))
    });
    let map2 = (scalar_ty(), scalar_ty()).prop_flat_map(move |(u, w)| {
        let inner = with(&with(&env2, "x", &u), "y", &w);
        (
            expr(&e2, &inner, d),
            expr(&arr(u.clone()), &env2, d),
            expr(&arr(w.clone()), &env2, d),
        )
            .prop_map(move |(body, xs, ys)| {
                format!("(map2 (\\(x: {u}) (y: {w}) -> {body}) {xs} {ys})")
            })
    });
    let (e3, env4) = (e.clone(), env.clone());
    let zipped = (scalar_ty(), scalar_ty()).prop_flat_map(move |(u, w)| {
        let pair = Tup(Box::new(u.clone()), Box::new(w.clone()));
        let inner = with(&env4, "p", &pair);
        (
            expr(&e3, &inner, d),
            expr(&arr(u.clone()), &env4, d),
            expr(&arr(w.clone()), &env4, d),
        )
            .prop_map(move |(body, xs, ys)| {
                format!("(map (\\(p: ({u}, {w})) -> {body}) (zip {xs} {ys}))")
            })
    });
    let small = (0i32..5).prop_map(|n| n.to_string());
    let rev = expr(&t, env, d).prop_map(|xs| format!("(reverse {xs})"));
    let slice =
        (expr(&t, env, d), 0i32..4, 0i32..5).prop_map(|(xs, lo, hi)| format!("{xs}[{lo}:{hi}]"));
    let rot = (expr(&t, env, d), -2i32..3).prop_map(|(xs, r)| format!("(rotate ({r}) {xs})"));
    let cat = (expr(&t, env, d), expr(&t, env, d)).prop_map(|(a, b)| format!("({a} ++ {b})"));
    let upd = (expr(&t, env, d), expr(&I64, env, d), expr(e, env, d))
        .prop_map(|(xs, i, v)| format!("(copy {xs} with [{i}] = {v})"));
    let repl = (small.clone(), expr(e, env, d)).prop_map(|(n, x)| format!("(replicate {n} {x})"));
    let lit =
        prop::collection::vec(expr(e, env, d), 1..4).prop_map(|es| format!("[{}]", es.join(", ")));
    let env3 = env.clone();
    let filt = expr(&t, env, d).prop_flat_map({
        let e = e.clone();
        move |xs| {
            let inner = with(&env3, "q", &e);
            let e = e.clone();
            expr(&Bool, &inner, d).prop_map(move |p| format!("(filter (\\(q: {e}) -> {p}) {xs})"))
        }
    });
    let mut forms: Vec<(u32, BoxedStrategy<String>)> = vec![
        (3, map.boxed()),
        (2, map2.boxed()),
        (1, zipped.boxed()),
        (1, rev.boxed()),
        (1, slice.boxed()),
        (1, rot.boxed()),
        (1, cat.boxed()),
        (1, upd.boxed()),
        (1, repl.boxed()),
        (2, lit.boxed()),
        (1, filt.boxed()),
    ];
    if e.is_num() {
        let z = e.zero();
        let ops = vec!["+", "*", "-"];
        // Implicit maps: AUTOMAP inserts `map2` and `rep`.
        let auto_vs = (
            expr(&t, env, d),
            prop::sample::select(ops.clone()),
            expr(e, env, d),
        )
            .prop_map(|(xs, op, y)| format!("({xs} {op} {y})"));
        let auto_sv = (
            expr(e, env, d),
            prop::sample::select(ops.clone()),
            expr(&t, env, d),
        )
            .prop_map(|(y, op, xs)| format!("({y} {op} {xs})"));
        let auto_vv = (
            expr(&t, env, d),
            prop::sample::select(ops),
            expr(&t, env, d),
        )
            .prop_map(|(xs, op, ys)| format!("({xs} {op} {ys})"));
        let rep = (expr(&t, env, d), expr(e, env, d))
            .prop_map(|(xs, y)| format!("(map2 (+) {xs} (rep {y}))"));
        let scan = expr(&t, env, d).prop_map(move |xs| format!("(scan (+) {z} {xs})"));
        let hist = (small.clone(), expr(&arr(I64), env, d), expr(&t, env, d))
            .prop_map(move |(k, is, vs)| format!("(hist (+) {z} {k} {is} {vs})"));
        let scat = (expr(&t, env, d), expr(&arr(I64), env, d), expr(&t, env, d))
            .prop_map(|(dst, is, vs)| format!("(scatter (copy {dst}) {is} {vs})"));
        forms.extend([
            (2, auto_vs.boxed()),
            (1, auto_sv.boxed()),
            (1, auto_vv.boxed()),
            (1, rep.boxed()),
            (1, scan.boxed()),
            (1, hist.boxed()),
            (1, scat.boxed()),
        ]);
    }
    if *e == I64 {
        forms.push((1, small.prop_map(|n| format!("(iota {n})")).boxed()));
    }
    if let Arr(inner) = e {
        if inner.is_num() {
            let tr = expr(&t, env, d).prop_map(|m| format!("(transpose {m})"));
            let auto =
                (expr(&t, env, d), expr(inner, env, d)).prop_map(|(m, y)| format!("({m} + {y})"));
            forms.push((1, tr.boxed()));
            forms.push((1, auto.boxed()));
        }
    }
    forms.retain(|(w, _)| *w > 0);
    prop::strategy::Union::new_weighted(forms).boxed()
}

/// A program and its inputs.
#[derive(Clone, Debug)]
struct Case {
    /// Definitions before the entry point.
    defs: String,
    ret: Ty,
    body: String,
    inputs: Vec<Value>,
}

/// The parameters of every generated entry point, as written.
const PARAMS: &str = "(a: i32) (b: i64) (c: f64) (xs: []i32) (ys: []i32) (zs: []f64) \
                      (is: []i64) (xss: [][]i32)";

impl Case {
    fn program(&self) -> String {
        format!(
            "{}entry main {PARAMS} : {} =\n  {}\n",
            self.defs, self.ret, self.body
        )
    }
}

fn vector<T>(p: PrimType, data: Vec<T>, f: impl Fn(T) -> Scalar) -> Value {
    let n = data.len();
    let s: Vec<Scalar> = data.into_iter().map(f).collect();
    Value::Array(Array::from_scalars(p, vec![n], &s))
}

fn inputs() -> BoxedStrategy<Vec<Value>> {
    let ints = || prop::collection::vec(-4i32..10, 0..4);
    (
        -4i32..10,
        -2i64..5,
        -8i32..8,
        ints(),
        ints(),
        prop::collection::vec(-8i32..8, 0..4),
        prop::collection::vec(-1i64..4, 0..4),
        (0usize..3, 0usize..3).prop_flat_map(|(n, m)| {
            prop::collection::vec(-4i32..10, n * m).prop_map(move |d| (n, m, d))
        }),
    )
        .prop_map(|(a, b, c, xs, ys, zs, is, (n, m, xss))| {
            vec![
                Value::Scalar(Scalar::I32(a)),
                Value::Scalar(Scalar::I64(b)),
                Value::Scalar(Scalar::F64(f64::from(c) / 2.0)),
                vector(PrimType::I32, xs, Scalar::I32),
                vector(PrimType::I32, ys, Scalar::I32),
                vector(PrimType::F64, zs, |z| Scalar::F64(f64::from(z) / 2.0)),
                vector(PrimType::I64, is, Scalar::I64),
                Value::Array(Array::from_scalars(
                    PrimType::I32,
                    vec![n, m],
                    &xss.into_iter().map(Scalar::I32).collect::<Vec<_>>(),
                )),
            ]
        })
        .boxed()
}

fn case() -> BoxedStrategy<Case> {
    (any_ty(), 1u32..4)
        .prop_flat_map(|(ret, depth)| {
            let body = expr(&ret, &params(), depth);
            (Just(ret), body, inputs())
        })
        .prop_map(|(ret, body, inputs)| Case {
            defs: String::new(),
            ret,
            body,
            inputs,
        })
        .boxed()
}

/// A program with a recursive function `step`, which applies a generated
/// expression to its accumulator `k` times (`k` its first parameter),
/// called once or from a `map` with a `k` per element (so calls run
/// element by element inside bulk code).
fn recursive_case() -> BoxedStrategy<Case> {
    (any::<bool>(), 1u32..3)
        .prop_flat_map(|(mapped, depth)| {
            let t = if mapped { scalar_ty() } else { any_ty() };
            (Just(mapped), t, Just(depth))
        })
        .prop_flat_map(|(mapped, t, depth)| {
            let env = with(&with(&params(), "acc", &t), "k", &I64);
            let step = expr(&t, &env, depth);
            let init = expr(&t, &params(), 1);
            (Just(mapped), Just(t), step, init, inputs())
        })
        .prop_map(|(mapped, t, step, init, inputs)| {
            let all = "a b c xs ys zs is xss";
            let defs = format!(
                "def step (k: i64) (acc: {t}) {PARAMS} : {t} =\n  \
                 if k <= 0 then acc else step (k - 1) ({step}) {all}\n\n"
            );
            let (ret, body) = if mapped {
                (
                    arr(t),
                    format!("map (\\(x: i32) -> step (i64.i32 x % 4) ({init}) {all}) xs"),
                )
            } else {
                (t, format!("step (b % 4) ({init}) {all}"))
            };
            Case {
                defs,
                ret,
                body,
                inputs,
            }
        })
        .boxed()
}

/// A forward-mode derivative: `jvp` of a generated function of a float
/// `p` (or of the array `ps`), or of a `jvp` inside it (a second
/// derivative, where the inner function also reads the outer `p`).
fn jvp_case() -> BoxedStrategy<Case> {
    (any_ty(), 1u32..4, 0u8..3)
        .prop_flat_map(|(ret, depth, form)| {
            let env = match form {
                0 => with(&params(), "p", &F64),
                1 => with(&params(), "ps", &arr(F64)),
                _ => with(&with(&params(), "p", &F64), "r", &F64),
            };
            let body = expr(&ret, &env, depth);
            (Just(ret), Just(form), body, inputs())
        })
        .prop_map(|(ret, form, body, inputs)| {
            let body = match form {
                0 => format!("jvp (\\(p: f64) -> {body}) c 1.5f64"),
                1 => {
                    format!("jvp (\\(ps: []f64) -> {body}) zs (map (\\(q: f64) -> q - 0.5f64) zs)")
                }
                _ => {
                    format!("jvp (\\(p: f64) -> jvp (\\(r: f64) -> {body}) (p * 2f64) 1f64) c 1f64")
                }
            };
            Case {
                defs: String::new(),
                ret,
                body,
                inputs,
            }
        })
        .boxed()
}

/// User code that nothing reads beside a reverse-mode derivative: a dead
/// `let` of a generated expression (which may fail: an index out of
/// bounds, a division by zero) before a `vjp` of a generated function.
/// The reference runs the `let` and stops at the `vjp` (it has no reverse
/// mode); the fast evaluator must fail where the `let` fails, although AD
/// lets it drop dead code that it made itself.
fn vjp_dead_case() -> BoxedStrategy<Case> {
    (any_ty(), 1u32..4, 1u32..3)
        .prop_flat_map(|(dead_ty, depth, fdepth)| {
            let dead = expr(&dead_ty, &params(), depth);
            let f = expr(&F64, &with(&params(), "p", &F64), fdepth);
            (dead, f, inputs())
        })
        .prop_map(|(dead, f, inputs)| Case {
            defs: String::new(),
            ret: F64,
            body: format!("let _u = {dead} in vjp (\\(p: f64) -> {f}) c 1.5f64"),
            inputs,
        })
        .boxed()
}

/// A generated program that does not check: a case that does not count
/// where the size check refused it (the generator puts arrays of literal
/// lengths side by side, and sizes known to differ are a type error, as
/// in Futhark), else a failure.
fn rejected_or_failed(program: &str, diagnostic: &str) -> TestCaseError {
    let sizes = [
        "Sizes \"",
        "Unknown size",
        "Ambiguous size",
        "depends on the element",
    ];
    if sizes.iter().any(|s| diagnostic.contains(s)) {
        record("rejected: sizes that differ statically");
        TestCaseError::reject("sizes that differ statically")
    } else {
        TestCaseError::fail(format!(
            "the generated program does not check:\n{program}\n{diagnostic}"
        ))
    }
}

/// [`vjp_dead_case`]'s property: where the reference fails in the dead
/// user code, the fast evaluator fails alike; where it reaches the `vjp`,
/// there is nothing to compare.
fn check_vjp_dead(c: &Case) -> Result<(), TestCaseError> {
    let program = c.program();
    let mut s = session();
    if let Err(d) = s.load("<generated>", &program) {
        return Err(rejected_or_failed(
            &program,
            &urchin_base::diag::render_all(&d, &s.sources, false),
        ));
    }
    let fail = |why: String| {
        TestCaseError::fail(format!("{why}\nprogram:\n{program}inputs: {:?}", c.inputs))
    };
    let Ok(Run {
        outcome: Err((rk, _)),
        empty_maps,
    }) = reference(&s, c.inputs.clone())
    else {
        record("the reference reaches the vjp");
        return Ok(());
    };
    match fast(&s, c.inputs.clone(), true).map_err(fail)? {
        Err((fk, _)) if fk == rk => {
            record(format!("both fail alike: {rk:?}"));
            Ok(())
        }
        // The reference knows no rows of an empty `map` result (see
        // `check_with`).
        Err((RuntimeErrorKind::ShapeMismatch, _)) if empty_maps > 0 => {
            record("excused: rows of an empty map");
            Ok(())
        }
        f => Err(fail(format!("reference: {rk:?}\nfast: {f:?}"))),
    }
}

type Outcome = Result<Vec<Value>, (RuntimeErrorKind, String)>;

/// The fast evaluator's outcome; with `simplify` false, on the core
/// program as lowered, whose statements are in the source's order.
fn fast(s: &Session, inputs: Vec<Value>, simplify: bool) -> Result<Outcome, String> {
    let id = s.lookup_def("main").ok_or("no main")?;
    let program = if simplify {
        s.compile(id).map(|c| c.program)
    } else {
        urchin_opt::lower::lower_entry(&s.types, id).map(|(p, _)| p)
    }
    .map_err(|d| format!("does not compile: {}", d.render(&s.sources, false)))?;
    let r = catch_unwind(AssertUnwindSafe(|| {
        let mut stats = urchin_eval::EvalStats::default();
        let f = &program.functions[0];
        urchin_eval::run_function(&program, f, inputs, &EvalOptions::default(), &mut stats)
    }))
    .map_err(|p| {
        let msg = p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        format!("the fast evaluator panicked: {msg}")
    })?;
    Ok(r.map_err(|e| (e.kind, e.message)))
}

/// The reference's outcome, and how many `map`s it ran over no elements
/// (whose results' rows it does not know: docs/SEMANTICS.md).
struct Run {
    outcome: Outcome,
    empty_maps: u64,
}

fn reference(s: &Session, inputs: Vec<Value>) -> Result<Run, String> {
    let id = s.lookup_def("main").ok_or("no main")?;
    let count = Arc::new(AtomicU64::new(0));
    let opts = semantics::Options {
        max_steps: 2_000_000,
        empty_maps: Some(count.clone()),
        ..semantics::Options::default()
    };
    let outcome = match semantics::run_entry(s, id, inputs, &opts) {
        Ok((vs, _)) => Ok(vs),
        Err(Stop::Error(e)) if e.kind != RuntimeErrorKind::Unsupported => Err((e.kind, e.message)),
        Err(other) => return Err(format!("the reference stopped: {other}")),
    };
    Ok(Run {
        outcome,
        empty_maps: count.load(Ordering::Relaxed),
    })
}

/// Two results of the same operations: equal but for the order of a
/// reduction's additions, which the fast evaluator may reassociate
/// (chunks, trees), so each float may differ from the reference's by
/// 1e-12 of its magnitude. Where the reference ran a `map` over no
/// elements (`unknown_rows`), it does not know the shape of that result's
/// rows (docs/SEMANTICS.md), and two empty arrays of the same rank are
/// taken as equal.
fn same(expected: &Value, got: &Value, unknown_rows: bool) -> Result<(), Mismatch> {
    let exact = Tolerance { abs: 0.0, rel: 0.0 };
    match compare(expected, got, exact) {
        Err(Mismatch::Shape {
            expected: e,
            got: g,
        }) if unknown_rows && e.len() == g.len() && e.contains(&0) && g.contains(&0) => Ok(()),
        Err(m @ Mismatch::Element { .. }) => {
            let scalars = |v: &Value| match v {
                Value::Array(a) => a.to_scalars(),
                Value::Scalar(x) => vec![*x],
                _ => Vec::new(),
            };
            let close = |a: Scalar, b: Scalar| {
                let (x, y) = (a.as_f64(), b.as_f64());
                a.ty().is_float() && (x - y).abs() <= 1e-12 * x.abs().max(y.abs())
            };
            let (es, gs) = (scalars(expected), scalars(got));
            match es.iter().zip(&gs).all(|(a, b)| a.same(*b) || close(*a, *b)) {
                true => Ok(()),
                false => Err(m),
            }
        }
        other => other,
    }
}

/// Two derivatives with their singular entries made alike: two non-finite
/// entries agree; with `nan_is_any`, a NaN also agrees with a number.
///
/// At a singularity (a division by zero) a derivative is undefined, and
/// whether it comes out as NaN or as an infinity depends on the order of
/// its formula, which the dual numbers and the transformed program choose
/// differently. And where one engine knows a tangent is zero and the other
/// computes it (a reduction over an empty array, a loop that runs no
/// iteration: the dual numbers see a constant, the AD transformation a
/// zero tangent), `0 · ∞` makes NaN on one side only, and the NaN flows
/// on through the tangent's arithmetic (JAX gives NaN, as the fast path):
/// the property excuses that (`nan_is_any`), and counts it.
fn singular_alike(x: &Value, y: &Value, nan_is_any: bool) -> (Value, Value) {
    let bad = |s: &Scalar| s.ty().is_float() && !s.as_f64().is_finite();
    let is_nan = |s: &Scalar| s.ty().is_float() && s.as_f64().is_nan();
    let nan = |s: Scalar| Scalar::from_f64(s.ty(), f64::NAN);
    let pair = |a: Scalar, b: Scalar| {
        if (bad(&a) && bad(&b)) || (nan_is_any && (is_nan(&a) || is_nan(&b))) {
            (nan(a), nan(b))
        } else {
            (a, b)
        }
    };
    match (x, y) {
        (Value::Scalar(a), Value::Scalar(b)) => {
            let (a, b) = pair(*a, *b);
            (Value::Scalar(a), Value::Scalar(b))
        }
        (Value::Array(a), Value::Array(b)) if a.shape() == b.shape() => {
            let (xs, ys): (Vec<Scalar>, Vec<Scalar>) = a
                .to_scalars()
                .into_iter()
                .zip(b.to_scalars())
                .map(|(a, b)| pair(a, b))
                .unzip();
            (
                Value::Array(Array::from_scalars(a.elem(), a.shape().to_vec(), &xs)),
                Value::Array(Array::from_scalars(b.elem(), b.shape().to_vec(), &ys)),
            )
        }
        _ => (x.clone(), y.clone()),
    }
}

fn check(c: &Case) -> Result<(), TestCaseError> {
    check_with(c, false)
}

/// [`check`]; with `jvp`, for derivatives: the two engines must also
/// agree on errors in primal code no tangent reads (the dual numbers
/// compute every primal, and the AD transformation keeps a dead primal
/// statement that may fail, as plain evaluation does).
fn check_with(c: &Case, jvp: bool) -> Result<(), TestCaseError> {
    let program = c.program();
    let mut s = session();
    if let Err(d) = s.load("<generated>", &program) {
        return Err(rejected_or_failed(
            &program,
            &urchin_base::diag::render_all(&d, &s.sources, false),
        ));
    }
    let fail = |why: String| {
        TestCaseError::fail(format!("{why}\nprogram:\n{program}inputs: {:?}", c.inputs))
    };
    let Run {
        outcome: r,
        empty_maps,
    } = reference(&s, c.inputs.clone()).map_err(fail)?;
    let unknown_rows = empty_maps > 0;
    let f = fast(&s, c.inputs.clone(), true).map_err(fail)?;
    match (&r, &f) {
        (Ok(rv), Ok(fv)) => {
            if rv.len() != fv.len() {
                return Err(fail(format!("{} results against {}", rv.len(), fv.len())));
            }
            let agree = |nan_is_any: bool| {
                rv.iter().zip(fv).try_for_each(|(x, y)| {
                    let (x, y) = &if jvp {
                        singular_alike(x, y, nan_is_any)
                    } else {
                        (x.clone(), y.clone())
                    };
                    same(x, y, unknown_rows)
                        .map_err(|m| format!("results differ: {m} (reference {x:?}, fast {y:?})"))
                })
            };
            match agree(false) {
                Ok(()) => record("values"),
                Err(_) if jvp && agree(true).is_ok() => {
                    record("excused: a NaN derivative against a number")
                }
                Err(why) => return Err(fail(why)),
            }
            Ok(())
        }
        (Err((rk, _)), Err((fk, _))) if rk == fk && *rk != RuntimeErrorKind::Internal => {
            record(format!("both fail alike: {rk:?}"));
            Ok(())
        }
        // For the same reason (rows of an empty `map` result unknown), the
        // reference cannot see that such an array has the wrong rows for
        // `++` or `zip`, which the fast evaluator, knowing the lowered
        // types' sizes, reports.
        // The empty array may be an input or an intermediate result, not
        // only the result; the reference may go on to fail differently
        // (an index into the empty array it made).
        (Ok(_), Err((RuntimeErrorKind::ShapeMismatch, _))) if unknown_rows => {
            record("excused: rows of an empty map");
            Ok(())
        }
        (Err((rk, _)), Err((RuntimeErrorKind::ShapeMismatch, _)))
            if *rk != RuntimeErrorKind::Internal && unknown_rows =>
        {
            record("excused: rows of an empty map");
            Ok(())
        }
        _ => Err(fail(format!("reference: {r:?}\nfast: {f:?}"))),
    }
}

thread_local! {
    /// How the cases of the property running on this thread ended.
    static OUTCOMES: RefCell<BTreeMap<String, u32>> = RefCell::default();
}

fn record(outcome: impl Into<String>) {
    OUTCOMES.with(|o| *o.borrow_mut().entry(outcome.into()).or_default() += 1);
}

/// Runs a property over `strategy` with `test`, then reports how its cases
/// ended (values compared, errors by kind, rejections, excused
/// differences) and fails where the cases that compared values are fewer
/// than `min_values` of them: a generator whose programs mostly fail, or
/// a comparison that mostly excuses, checks little.
fn tallied<S: Strategy<Value = Case>>(
    name: &'static str,
    full: u32,
    min_values: f64,
    strategy: S,
    test: fn(&Case) -> Result<(), TestCaseError>,
) {
    OUTCOMES.with(|o| o.borrow_mut().clear());
    let mut config = config(full);
    config.source_file = Some(file!());
    config.test_name = Some(name);
    let result = TestRunner::new(config).run(&strategy, |c| test(&c));
    let outcomes = OUTCOMES.with(|o| o.take());
    let total: u32 = outcomes.values().sum();
    let mut report = format!("{name}: {total} cases");
    for (outcome, n) in &outcomes {
        report.push_str(&format!("\n  {outcome}: {n}"));
    }
    eprintln!("{report}");
    if let Err(e) = result {
        panic!("{e}\n{report}");
    }
    let values = outcomes.get("values").copied().unwrap_or(0);
    assert!(
        f64::from(values) >= min_values * f64::from(total),
        "fewer than {:.0}% of the cases compared values:\n{report}",
        100.0 * min_values
    );
    let excused: u32 = outcomes
        .iter()
        .filter(|(o, _)| o.starts_with("excused"))
        .map(|(_, n)| n)
        .sum();
    assert!(
        f64::from(excused) <= MAX_EXCUSED * f64::from(total),
        "more than {:.0}% of the cases were excused differences:\n{report}",
        100.0 * MAX_EXCUSED
    );
}

/// The least fraction of a property's cases that must end in values on
/// both engines (compared), rather than in errors, rejections or excused
/// differences.
const MIN_VALUES: f64 = 0.5;

/// The most a property's cases may end in a difference it excuses (the
/// rows of an empty `map`, a NaN derivative at a zero tangent): each is a
/// known difference of the two semantics, and a property that mostly
/// excuses compares little.
const MAX_EXCUSED: f64 = 0.05;

/// The properties' settings: `full` cases at CI's scale, failures kept
/// in `smallstep_props.regressions`.
fn config(full: u32) -> ProptestConfig {
    ProptestConfig {
        cases: crate::test_env::proptest_cases(full),
        max_shrink_iters: 200,
        failure_persistence: Some(Box::new(
            proptest::test_runner::FileFailurePersistence::WithSource("regressions"),
        )),
        ..ProptestConfig::default()
    }
}

/// The comparison catches what Futhark's test tolerance lets through: a
/// small element beside a large one, an empty array of the wrong rows
/// where the reference ran no empty `map`, and a NaN against a number.
#[test]
fn the_comparison_is_tight() {
    let f64s = |shape: Vec<usize>, xs: &[f64]| {
        let xs: Vec<Scalar> = xs.iter().map(|&x| Scalar::F64(x)).collect();
        Value::Array(Array::from_scalars(PrimType::F64, shape, &xs))
    };
    let a = f64s(vec![2], &[1000.0, 1.0]);
    assert!(compare(&a, &f64s(vec![2], &[1000.0, 2.9]), Tolerance::default()).is_ok());
    assert!(same(&a, &f64s(vec![2], &[1000.0, 2.9]), false).is_err());
    assert!(same(&a, &f64s(vec![2], &[1000.0, 1.0 + 1e-10]), false).is_err());
    assert!(same(&a, &a, false).is_ok());
    let (rows3, rows0) = (f64s(vec![0, 3], &[]), f64s(vec![0, 0], &[]));
    assert!(same(&rows3, &rows0, false).is_err());
    assert!(same(&rows3, &rows0, true).is_ok());
    let (nan, one) = (
        Value::Scalar(Scalar::F64(f64::NAN)),
        Value::Scalar(Scalar::F64(1.0)),
    );
    assert!(same(&one, &nan, false).is_err());
    let (x, y) = singular_alike(&one, &nan, false);
    assert!(same(&x, &y, false).is_err());
    let inf = Value::Scalar(Scalar::F64(f64::INFINITY));
    let (x, y) = singular_alike(&inf, &nan, false);
    assert!(same(&x, &y, false).is_ok());
}

#[test]
fn small_step_agrees_with_the_fast_evaluator() {
    tallied(
        "small_step_agrees_with_the_fast_evaluator",
        2000,
        MIN_VALUES,
        case(),
        check,
    );
}

/// Recursive functions: calls of the core IR against the reference's
/// unfolding of definitions.
#[test]
fn small_step_agrees_with_the_fast_evaluator_on_recursion() {
    tallied(
        "small_step_agrees_with_the_fast_evaluator_on_recursion",
        500,
        MIN_VALUES,
        recursive_case(),
        check,
    );
}

/// `jvp` by dual numbers in the reference against the AD
/// transformation of the fast evaluator.
#[test]
fn small_step_jvp_agrees_with_the_fast_evaluator() {
    tallied(
        "small_step_jvp_agrees_with_the_fast_evaluator",
        1000,
        MIN_VALUES,
        jvp_case(),
        |c| check_with(c, true),
    );
}

/// Dead user code that fails, beside a `vjp`: the fast evaluator
/// fails where the reference does (the cases where the reference reaches
/// the `vjp` compare nothing, so none must compare values).
#[test]
fn dead_user_code_beside_a_vjp_fails_as_in_the_reference() {
    tallied(
        "dead_user_code_beside_a_vjp_fails_as_in_the_reference",
        500,
        0.0,
        vjp_dead_case(),
        check_vjp_dead,
    );
}
