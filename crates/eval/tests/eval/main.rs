//! The evaluator's tests: every expression, every error, bulk against
//! per-element, the fast paths, histograms, register code, and (through
//! `urchin_eval::testing`) the kernels' own laws. An integration test
//! rather than unit tests, so that `cargo test` compiles the evaluator
//! once, not a second time with `cfg(test)`.

mod fast;
mod hist;
mod internals;
mod proptests;
mod shapes;
mod straight;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use urchin_core::build::Builder;
use urchin_core::ir::{Atom, DimIndex, Exp, Function, Program, Type};
use urchin_eval::threads::Threads;
use urchin_eval::{EvalOptions, EvalStats, run_function};
use urchin_prim::{BinOp, PrimType, Scalar, UnOp};
use urchin_runtime::value::{Array, Value};
use urchin_runtime::{RuntimeError, RuntimeErrorKind};

const F64: PrimType = PrimType::F64;
const I64: PrimType = PrimType::I64;
const BOOL: PrimType = PrimType::Bool;

fn ty_f64() -> Type {
    Type::Prim(F64)
}
fn ty_i64() -> Type {
    Type::Prim(I64)
}
fn arr(p: PrimType, r: u32) -> Type {
    Type::Array(p, r)
}
fn f(x: f64) -> Atom {
    Atom::Const(Scalar::F64(x))
}
fn i(x: i64) -> Atom {
    Atom::i64(x)
}
fn fix(a: impl Into<Atom>) -> DimIndex {
    DimIndex::Fix(a.into())
}
fn slice(start: Option<i64>, end: Option<i64>, stride: Option<i64>) -> DimIndex {
    DimIndex::Slice {
        start: start.map(Atom::i64),
        end: end.map(Atom::i64),
        stride: stride.map(Atom::i64),
    }
}

pub(crate) fn f64s(xs: &[f64]) -> Value {
    let data: Vec<Scalar> = xs.iter().map(|x| Scalar::F64(*x)).collect();
    Value::Array(Array::from_scalars(F64, vec![xs.len()], &data))
}
pub(crate) fn i64s(xs: &[i64]) -> Value {
    let data: Vec<Scalar> = xs.iter().map(|x| Scalar::I64(*x)).collect();
    Value::Array(Array::from_scalars(I64, vec![xs.len()], &data))
}
fn bools(xs: &[bool]) -> Value {
    let data: Vec<Scalar> = xs.iter().map(|x| Scalar::Bool(*x)).collect();
    Value::Array(Array::from_scalars(BOOL, vec![xs.len()], &data))
}
fn i64m(rows: &[&[i64]]) -> Value {
    let data: Vec<Scalar> = rows
        .iter()
        .flat_map(|r| r.iter().map(|x| Scalar::I64(*x)))
        .collect();
    Value::Array(Array::from_scalars(
        I64,
        vec![rows.len(), rows.first().map_or(0, |r| r.len())],
        &data,
    ))
}
fn si(x: i64) -> Value {
    Value::Scalar(Scalar::I64(x))
}
fn sf(x: f64) -> Value {
    Value::Scalar(Scalar::F64(x))
}

pub(crate) use urchin_core::build::main_program as build;

/// Bitwise equality (NaN equals NaN).
pub(crate) fn same(a: &Value, b: &Value) -> bool {
    a.same(b)
}

pub(crate) fn run_opts(
    p: &(Program, Function),
    args: Vec<Value>,
    opts: &EvalOptions,
) -> Result<Vec<Value>, RuntimeError> {
    run_retried(p, args, opts).0
}

/// [`run_opts`], and why chunks were retried per element.
pub(crate) fn run_retried(
    p: &(Program, Function),
    args: Vec<Value>,
    opts: &EvalOptions,
) -> (
    Result<Vec<Value>, RuntimeError>,
    Vec<Option<RuntimeErrorKind>>,
) {
    let mut stats = EvalStats::default();
    let out = run_function(&p.0, &p.1, args, opts, &mut stats);
    (out, stats.retried)
}

/// Runs in bulk and per element, checks that both agree, and returns the
/// result. Bulk evaluation may only have retried chunks per element because
/// of genuine errors or irregular shapes, never because of an internal
/// error.
pub(crate) fn run(p: &(Program, Function), args: Vec<Value>) -> Result<Vec<Value>, RuntimeError> {
    let (bulk, retried) = run_retried(p, args.clone(), &EvalOptions::default());
    assert!(
        !retried.contains(&Some(RuntimeErrorKind::Internal)),
        "bulk evaluation failed internally: {bulk:?}"
    );
    let per = run_opts(
        p,
        args,
        &EvalOptions {
            bulk: false,
            ..EvalOptions::default()
        },
    );
    match (&bulk, &per) {
        (Ok(a), Ok(b)) => assert!(
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y)),
            "bulk {a:?} but per-element {b:?}"
        ),
        (Err(a), Err(b)) => assert_eq!((a.kind, &a.message), (b.kind, &b.message)),
        _ => panic!("bulk {bulk:?} but per-element {per:?}"),
    }
    bulk
}

fn ok(p: &(Program, Function), args: Vec<Value>) -> Vec<Value> {
    run(p, args).unwrap_or_else(|e| panic!("unexpected error: {e:?}"))
}

fn err(p: &(Program, Function), args: Vec<Value>) -> RuntimeError {
    match run(p, args) {
        Ok(v) => panic!("expected an error, got {v:?}"),
        Err(e) => e,
    }
}

fn expect(p: &(Program, Function), args: Vec<Value>, want: &[Value]) {
    let got = ok(p, args);
    assert!(
        got.len() == want.len() && got.iter().zip(want).all(|(x, y)| same(x, y)),
        "got {got:?}, want {want:?}"
    );
}

fn expect_err(p: &(Program, Function), args: Vec<Value>, kind: RuntimeErrorKind, msg: &str) {
    let e = err(p, args);
    assert_eq!((e.kind, e.message.as_str()), (kind, msg));
}

// ----- scalars -----

#[test]
fn scalar_operations() {
    let p = build(&[("x", ty_f64()), ("n", ty_i64())], |b, ps| {
        let s = b.bin(BinOp::Mul, ps[0], ps[0]);
        let t = b.un(UnOp::Sqrt, s);
        let c = b.convert(F64, ps[1]);
        let lt = b.bin(BinOp::Lt, t, c);
        let sel = b.select(lt, t, c);
        let q = b.bin(BinOp::Div, ps[1], i(-2));
        vec![sel.into(), q.into(), lt.into()]
    });
    expect(
        &p,
        vec![sf(-3.0), si(7)],
        &[sf(3.0), si(-4), Value::Scalar(Scalar::Bool(true))],
    );
}

#[test]
fn division_by_zero_is_an_error() {
    let p = build(&[("n", ty_i64())], |b, ps| {
        vec![b.bin(BinOp::Mod, i(1), ps[0]).into()]
    });
    expect_err(
        &p,
        vec![si(0)],
        RuntimeErrorKind::DivisionByZero,
        "division by zero",
    );
    let p = build(&[("xs", arr(I64, 1))], |b, ps| {
        vec![b.map_fn(&[ps[0]], |b, x| vec![b.bin(BinOp::Div, i(10), x[0]).into()])[0].into()]
    });
    expect(&p, vec![i64s(&[1, 2, -3])], &[i64s(&[10, 5, -4])]);
    expect_err(
        &p,
        vec![i64s(&[1, 0, 2])],
        RuntimeErrorKind::DivisionByZero,
        "division by zero",
    );
}

// ----- maps -----

fn square_map() -> (Program, Function) {
    build(&[("xs", arr(F64, 1))], |b, ps| {
        vec![b.map_fn(&[ps[0]], |b, x| vec![b.bin(BinOp::Mul, x[0], x[0]).into()])[0].into()]
    })
}

#[test]
fn map_squares() {
    expect(
        &square_map(),
        vec![f64s(&[1.0, 2.0, 3.0])],
        &[f64s(&[1.0, 4.0, 9.0])],
    );
    expect(&square_map(), vec![f64s(&[])], &[f64s(&[])]);
}

#[test]
fn map_over_many_chunks() {
    let n = 100_000;
    let xs: Vec<f64> = (0..n).map(|k| k as f64 * 0.5).collect();
    let want: Vec<f64> = xs.iter().map(|x| x * x).collect();
    expect(&square_map(), vec![f64s(&xs)], &[f64s(&want)]);
}

#[test]
fn map_lengths_must_agree() {
    let p = build(&[("xs", arr(F64, 1)), ("ys", arr(F64, 1))], |b, ps| {
        vec![
            b.map_fn(&[ps[0], ps[1]], |b, x| {
                vec![b.bin(BinOp::Add, x[0], x[1]).into()]
            })[0]
                .into(),
        ]
    });
    expect(
        &p,
        vec![f64s(&[1.0, 2.0]), f64s(&[3.0, 4.0])],
        &[f64s(&[4.0, 6.0])],
    );
    expect_err(
        &p,
        vec![f64s(&[1.0, 2.0, 3.0]), f64s(&[1.0, 2.0])],
        RuntimeErrorKind::ShapeMismatch,
        "shape mismatch: map over arrays of lengths 3 and 2",
    );
}

#[test]
fn nested_map_with_free_variables() {
    // map (\x -> map (\y -> x * y + k) ys) xs
    let p = build(
        &[("xs", arr(I64, 1)), ("ys", arr(I64, 1)), ("k", ty_i64())],
        |b, ps| {
            let (xs, ys, k) = (ps[0], ps[1], ps[2]);
            let r = b.map_fn(&[xs], |b, x| {
                let x = x[0];
                vec![
                    b.map_fn(&[ys], |b, y| {
                        let m = b.bin(BinOp::Mul, x, y[0]);
                        vec![b.bin(BinOp::Add, m, k).into()]
                    })[0]
                        .into(),
                ]
            });
            vec![r[0].into()]
        },
    );
    expect(
        &p,
        vec![i64s(&[1, 2]), i64s(&[10, 20, 30]), si(1)],
        &[i64m(&[&[11, 21, 31], &[21, 41, 61]])],
    );
}

#[test]
fn map_with_rep_arguments() {
    // map (\x r -> x + r) xs (rep 5)
    let p = build(&[("xs", arr(I64, 1))], |b, ps| {
        let r = b.rep(i(5));
        vec![
            b.map_fn(&[ps[0], r], |b, x| {
                vec![b.bin(BinOp::Add, x[0], x[1]).into()]
            })[0]
                .into(),
        ]
    });
    expect(&p, vec![i64s(&[1, 2])], &[i64s(&[6, 7])]);
    // A map over reps only is a rep; indexing it gives the element.
    let p = build(&[("x", ty_i64())], |b, ps| {
        let r = b.rep(ps[0]);
        let m = b.map_fn(&[r], |b, x| vec![b.bin(BinOp::Mul, x[0], i(2)).into()])[0];
        vec![m.into(), b.index1(m, i(1000)).into()]
    });
    let got = ok(&p, vec![si(4)]);
    assert!(matches!(&got[0], Value::Rep(v) if same(v, &si(8))));
    assert!(same(&got[1], &si(8)));
}

#[test]
fn rep_arguments_of_maps_are_their_values_in_bulk() {
    // map (\x r -> x + r[1] + reduce (+) 0 r) xs (rep ys): in every lane
    // `r` is `ys`, in bulk as one element at a time, and bulk evaluation
    // needs no retry per element to see it.
    let p = build(&[("xs", arr(I64, 1)), ("ys", arr(I64, 1))], |b, ps| {
        let r = b.rep(ps[1]);
        vec![
            b.map_fn(&[ps[0], r], |b, x| {
                let e = b.index1(x[1], i(1));
                let op = add_i64(b);
                let s = b.reduce(op, None, &[x[1]])[0];
                let t = b.bin(BinOp::Add, x[0], e);
                vec![b.bin(BinOp::Add, t, s).into()]
            })[0]
                .into(),
        ]
    });
    let args = vec![i64s(&[1, 2]), i64s(&[10, 20, 30])];
    let (out, retried) = run_retried(&p, args.clone(), &EvalOptions::default());
    out.expect("runs in bulk");
    assert!(retried.is_empty(), "retried per element: {retried:?}");
    expect(&p, args, &[i64s(&[81, 82])]);
}

#[test]
fn rep_lengths_are_errors() {
    let msg = "the length of a rep is needed here but it has no length";
    let p = build(&[("x", ty_i64())], |b, ps| {
        let r = b.rep(ps[0]);
        let op = b.binop_operator(BinOp::Add, I64, i(0));
        vec![b.reduce(op, None, &[r])[0].into()]
    });
    expect_err(&p, vec![si(1)], RuntimeErrorKind::RepLength, msg);
    let p = build(&[("x", ty_i64())], |b, ps| {
        let r = b.rep(ps[0]);
        let n = b.size(r, 0);
        vec![b.iota(n).into()]
    });
    expect_err(&p, vec![si(1)], RuntimeErrorKind::RepLength, msg);
}

#[test]
fn irregular_maps_fall_back_per_element() {
    // map (\n -> reduce (+) 0 (iota n)) ns
    let p = build(&[("ns", arr(I64, 1))], |b, ps| {
        let r = b.map_fn(&[ps[0]], |b, n| {
            let io = b.iota(n[0]);
            let op = b.binop_operator(BinOp::Add, I64, i(0));
            vec![b.reduce(op, None, &[io])[0].into()]
        });
        vec![r[0].into()]
    });
    expect(&p, vec![i64s(&[0, 1, 4, 3])], &[i64s(&[0, 0, 6, 3])]);
    // map (\n -> iota n) ns: fine when regular, an error otherwise.
    let p = build(&[("ns", arr(I64, 1))], |b, ps| {
        vec![b.map_fn(&[ps[0]], |b, n| vec![b.iota(n[0]).into()])[0].into()]
    });
    expect(&p, vec![i64s(&[2, 2])], &[i64m(&[&[0, 1], &[0, 1]])]);
    expect_err(
        &p,
        vec![i64s(&[2, 3])],
        RuntimeErrorKind::ShapeMismatch,
        "shape mismatch: map produced elements of shapes [2] and [3]",
    );
}

// ----- indexing -----

#[test]
fn index_and_slices() {
    let p = build(&[("a", arr(I64, 1))], |b, ps| {
        let a = ps[0];
        vec![
            b.index1(a, i(1)).into(),
            b.index(a, vec![slice(Some(1), None, None)]).into(),
            b.index(a, vec![slice(None, Some(3), None)]).into(),
            b.index(a, vec![slice(None, None, Some(2))]).into(),
            b.index(a, vec![slice(None, None, Some(-1))]).into(),
            b.index(a, vec![slice(Some(3), Some(0), Some(-2))]).into(),
            b.index(a, vec![slice(Some(2), Some(2), None)]).into(),
        ]
    });
    expect(
        &p,
        vec![i64s(&[0, 1, 2, 3, 4])],
        &[
            si(1),
            i64s(&[1, 2, 3, 4]),
            i64s(&[0, 1, 2]),
            i64s(&[0, 2, 4]),
            i64s(&[4, 3, 2, 1, 0]),
            i64s(&[3, 1]),
            i64s(&[]),
        ],
    );
}

#[test]
fn index_two_dimensions() {
    let p = build(&[("m", arr(I64, 2)), ("j", ty_i64())], |b, ps| {
        let (m, j) = (ps[0], ps[1]);
        vec![
            b.index(m, vec![fix(i(1)), fix(j)]).into(),
            b.index1(m, j).into(),
            b.index(m, vec![slice(None, None, None), fix(j)]).into(),
        ]
    });
    expect(
        &p,
        vec![i64m(&[&[1, 2], &[3, 4]]), si(1)],
        &[si(4), i64s(&[3, 4]), i64s(&[2, 4])],
    );
    expect_err(
        &p,
        vec![i64m(&[&[1, 2], &[3, 4]]), si(2)],
        RuntimeErrorKind::IndexOutOfBounds,
        "Index [1, 2] out of bounds for array of shape [2][2]",
    );
}

#[test]
fn fixed_indices_take_rows_of_rows_and_elements() {
    // The loop's accesses (`params[i, 0]`, `w[3]`): leading fixed indices
    // give a view of a row, as many as the rank give an element.
    let p = build(&[("a", arr(I64, 3)), ("j", ty_i64())], |b, ps| {
        let (a, j) = (ps[0], ps[1]);
        vec![
            b.index(a, vec![fix(j), fix(i(0))]).into(),
            b.index(a, vec![fix(i(1)), fix(j), fix(i(1))]).into(),
            b.index1(a, j).into(),
        ]
    });
    let data: Vec<Scalar> = (0..8).map(Scalar::I64).collect();
    let a = Value::Array(Array::from_scalars(I64, vec![2, 2, 2], &data));
    expect(
        &p,
        vec![a.clone(), si(1)],
        &[i64s(&[4, 5]), si(7), i64m(&[&[4, 5], &[6, 7]])],
    );
    expect_err(
        &p,
        vec![a, si(2)],
        RuntimeErrorKind::IndexOutOfBounds,
        "Index [2, 0] out of bounds for array of shape [2][2][2]",
    );
}

#[test]
fn index_errors() {
    let p = build(&[("a", arr(I64, 1)), ("k", ty_i64())], |b, ps| {
        vec![b.index1(ps[0], ps[1]).into()]
    });
    expect_err(
        &p,
        vec![i64s(&[1, 2, 3]), si(3)],
        RuntimeErrorKind::IndexOutOfBounds,
        "Index [3] out of bounds for array of shape [3]",
    );
    expect_err(
        &p,
        vec![i64s(&[1, 2, 3]), si(-1)],
        RuntimeErrorKind::IndexOutOfBounds,
        "Index [-1] out of bounds for array of shape [3]",
    );
    let p = build(&[("a", arr(I64, 1))], |b, ps| {
        vec![b.index(ps[0], vec![slice(Some(1), Some(5), None)]).into()]
    });
    expect_err(
        &p,
        vec![i64s(&[1, 2, 3])],
        RuntimeErrorKind::IndexOutOfBounds,
        "Index [1:5] out of bounds for array of shape [3]",
    );
}

#[test]
fn gathers_report_the_first_bad_element() {
    // map (\i -> a[i]) is
    let p = build(&[("a", arr(I64, 1)), ("is", arr(I64, 1))], |b, ps| {
        let a = ps[0];
        vec![b.map_fn(&[ps[1]], |b, k| vec![b.index1(a, k[0]).into()])[0].into()]
    });
    expect(
        &p,
        vec![i64s(&[5, 6, 7]), i64s(&[2, 0, 1])],
        &[i64s(&[7, 5, 6])],
    );
    expect_err(
        &p,
        vec![i64s(&[5, 6, 7]), i64s(&[0, 5, 1, 7])],
        RuntimeErrorKind::IndexOutOfBounds,
        "Index [5] out of bounds for array of shape [3]",
    );
}

#[test]
fn guarded_index_in_a_map_is_partitioned() {
    // map (\k -> if k < n then a[k] else -1) ks: the guard must protect
    // the lanes where it is false.
    let p = build(&[("a", arr(I64, 1)), ("ks", arr(I64, 1))], |b, ps| {
        let a = ps[0];
        let r = b.map_fn(&[ps[1]], |b, k| {
            let k = k[0];
            let n = b.size(a, 0);
            let c = b.bin(BinOp::Lt, k, n);
            let r = b.if_(c, |b| vec![b.index1(a, k).into()], |_| vec![i(-1)]);
            vec![r[0].into()]
        });
        vec![r[0].into()]
    });
    expect(
        &p,
        vec![i64s(&[5, 6, 7]), i64s(&[0, 9, 2, 3])],
        &[i64s(&[5, -1, 7, -1])],
    );
}

// ----- updates -----

#[test]
fn updates() {
    let p = build(&[("a", arr(I64, 1)), ("m", arr(I64, 2))], |b, ps| {
        let a2 = b.update(ps[0], vec![fix(i(1))], i(9));
        let row = b.index1(a2, i(0));
        let _ = row;
        let src = b.iota(i(2));
        let m2 = b.update(ps[1], vec![fix(i(0))], src);
        let a3 = b.update(a2, vec![slice(Some(0), Some(2), None)], src);
        vec![a3.into(), m2.into()]
    });
    expect(
        &p,
        vec![i64s(&[5, 6, 7]), i64m(&[&[1, 2], &[3, 4]])],
        &[i64s(&[0, 1, 7]), i64m(&[&[0, 1], &[3, 4]])],
    );
    let p = build(&[("a", arr(I64, 1))], |b, ps| {
        vec![b.update(ps[0], vec![fix(i(3))], i(0)).into()]
    });
    expect_err(
        &p,
        vec![i64s(&[5, 6, 7])],
        RuntimeErrorKind::IndexOutOfBounds,
        "Index [3] out of bounds for array of shape [3]",
    );
}

#[test]
fn updates_in_maps() {
    // map (\k v -> (replicate 3 0) with [k] = v) ks vs
    let p = build(&[("ks", arr(I64, 1)), ("vs", arr(I64, 1))], |b, ps| {
        let r = b.map_fn(&[ps[0], ps[1]], |b, kv| {
            let z = b.replicate(i(3), i(0));
            vec![b.update(z, vec![fix(kv[0])], kv[1]).into()]
        });
        vec![r[0].into()]
    });
    expect(
        &p,
        vec![i64s(&[0, 2]), i64s(&[7, 8])],
        &[i64m(&[&[7, 0, 0], &[0, 0, 8]])],
    );
    expect_err(
        &p,
        vec![i64s(&[0, 3]), i64s(&[7, 8])],
        RuntimeErrorKind::IndexOutOfBounds,
        "Index [3] out of bounds for array of shape [3]",
    );
}

/// `loop arr = arr0 for i < n-1 do arr with [i+1] = arr[i] * 2`.
fn doubling_loop() -> (Program, Function) {
    build(&[("arr0", arr(I64, 1))], |b, ps| {
        let n = b.size(ps[0], 0);
        let n1 = b.bin(BinOp::Sub, n, i(1));
        let r = b.loop_for(vec![ps[0].into()], n1, |b, k, p| {
            let x = b.index1(p[0], k);
            let y = b.bin(BinOp::Mul, x, i(2));
            let k1 = b.bin(BinOp::Add, k, i(1));
            vec![b.update(p[0], vec![fix(k1)], y).into()]
        });
        vec![r[0].into()]
    })
}

fn data_ptr(v: &Value) -> *const i64 {
    match v {
        Value::Array(Array::I64(a)) => a.as_ptr(),
        _ => panic!("not an i64 array"),
    }
}

#[test]
fn loop_updates_happen_in_place() {
    // Every iteration's update must reuse the array passed in: a copy per
    // iteration would (with any allocator) end on another block after an
    // odd or an even number of iterations, so both lengths are checked.
    for n in [1001, 1002] {
        let a = ndarray::ArcArray::from_elem(ndarray::IxDyn(&[n]), 1i64);
        let input = Value::Array(Array::I64(a));
        let before = data_ptr(&input);
        let out = run_opts(&doubling_loop(), vec![input], &EvalOptions::default()).expect("runs");
        assert_eq!(data_ptr(&out[0]), before, "the loop copied its array");
        let Value::Array(Array::I64(r)) = &out[0] else {
            unreachable!()
        };
        assert!(r.is_unique());
        assert_eq!(r[[5]], 32);
    }
}

#[test]
fn shared_arrays_are_copied_before_updates() {
    let a = ndarray::ArcArray::from_elem(ndarray::IxDyn(&[4]), 1i64);
    let keep = Value::Array(Array::I64(a.clone()));
    let out = run_opts(
        &doubling_loop(),
        vec![keep.clone()],
        &EvalOptions::default(),
    )
    .expect("runs");
    assert!(same(&out[0], &i64s(&[1, 2, 4, 8])));
    assert!(same(&keep, &i64s(&[1, 1, 1, 1])));
}

// ----- array constructors and shape operations -----

#[test]
fn array_constructors() {
    let p = build(&[("n", ty_i64())], |b, ps| {
        vec![
            b.iota(ps[0]).into(),
            b.replicate(ps[0], f(1.5)).into(),
            b.array_lit(vec![i(1), ps[0].into()], ty_i64()).into(),
            b.array_lit(vec![], ty_i64()).into(),
        ]
    });
    expect(
        &p,
        vec![si(3)],
        &[
            i64s(&[0, 1, 2]),
            f64s(&[1.5, 1.5, 1.5]),
            i64s(&[1, 3]),
            i64s(&[]),
        ],
    );
    expect_err(
        &p,
        vec![si(-1)],
        RuntimeErrorKind::NegativeSize,
        "Range 0..1..<-1 is invalid",
    );
    let p = build(&[("n", ty_i64())], |b, ps| {
        vec![b.replicate(ps[0], i(0)).into()]
    });
    expect_err(
        &p,
        vec![si(-1)],
        RuntimeErrorKind::NegativeSize,
        "negative size -1 in replicate",
    );
    expect_err(
        &p,
        vec![si(1 << 62)],
        RuntimeErrorKind::OutOfMemory,
        "an array of shape [4611686018427387904] is too large to address",
    );
}

#[test]
fn shape_operations() {
    let p = build(&[("a", arr(I64, 1))], |b, ps| {
        let a = ps[0];
        let m = b.reshape(vec![i(2), i(3)], a);
        let t = b.rearrange(vec![1, 0], m);
        let rv = b.reverse(a);
        let ro = b.rotate(i(2), a);
        let rn = b.rotate(i(-1), a);
        let c = b.concat(vec![a, rv]);
        let cp = b.copy(t);
        let s0 = b.size(t, 0);
        vec![
            m.into(),
            cp.into(),
            rv.into(),
            ro.into(),
            rn.into(),
            c.into(),
            s0.into(),
        ]
    });
    expect(
        &p,
        vec![i64s(&[0, 1, 2, 3, 4, 5])],
        &[
            i64m(&[&[0, 1, 2], &[3, 4, 5]]),
            i64m(&[&[0, 3], &[1, 4], &[2, 5]]),
            i64s(&[5, 4, 3, 2, 1, 0]),
            i64s(&[2, 3, 4, 5, 0, 1]),
            i64s(&[5, 0, 1, 2, 3, 4]),
            i64s(&[0, 1, 2, 3, 4, 5, 5, 4, 3, 2, 1, 0]),
            si(3),
        ],
    );
    let p = build(&[("a", arr(I64, 1))], |b, ps| {
        vec![b.reshape(vec![i(4)], ps[0]).into()]
    });
    expect_err(
        &p,
        vec![i64s(&[1, 2, 3])],
        RuntimeErrorKind::ShapeMismatch,
        "shape mismatch: cannot reshape an array of shape [3] to [4]",
    );
    let p = build(&[("a", arr(I64, 2)), ("b", arr(I64, 2))], |b, ps| {
        vec![b.concat(vec![ps[0], ps[1]]).into()]
    });
    expect_err(
        &p,
        vec![i64m(&[&[1, 2]]), i64m(&[&[1, 2, 3]])],
        RuntimeErrorKind::ShapeMismatch,
        "shape mismatch: cannot concatenate arrays of shapes [1][2] and [1][3]",
    );
}

#[test]
fn shape_operations_in_maps() {
    // map (\r -> (reverse r, rotate 1 r, r[1:], transpose (unflatten r))) rows
    let p = build(&[("m", arr(I64, 2))], |b, ps| {
        let r = b.map_fn(&[ps[0]], |b, r| {
            let r = r[0];
            let rv = b.reverse(r);
            let ro = b.rotate(i(1), r);
            let tl = b.index(r, vec![slice(Some(1), None, None)]);
            let u = b.reshape(vec![i(2), i(2)], r);
            let t = b.rearrange(vec![1, 0], u);
            let c = b.concat(vec![r, rv]);
            let s = b.size(r, 0);
            vec![
                rv.into(),
                ro.into(),
                tl.into(),
                t.into(),
                c.into(),
                s.into(),
            ]
        });
        r.into_iter().map(Atom::from).collect()
    });
    let got = ok(&p, vec![i64m(&[&[1, 2, 3, 4], &[5, 6, 7, 8]])]);
    assert!(same(&got[0], &i64m(&[&[4, 3, 2, 1], &[8, 7, 6, 5]])));
    assert!(same(&got[1], &i64m(&[&[2, 3, 4, 1], &[6, 7, 8, 5]])));
    assert!(same(&got[2], &i64m(&[&[2, 3, 4], &[6, 7, 8]])));
    assert!(same(&got[5], &i64s(&[4, 4])));
}

// ----- control flow -----

#[test]
fn if_in_maps() {
    // map (\x -> if x > 0 then x * 2.0 else -x) xs: safe branches (select)
    let p = build(&[("xs", arr(F64, 1))], |b, ps| {
        let r = b.map_fn(&[ps[0]], |b, x| {
            let x = x[0];
            let c = b.bin(BinOp::Gt, x, f(0.0));
            let r = b.if_(
                c,
                |b| vec![b.bin(BinOp::Mul, x, f(2.0)).into()],
                |b| vec![b.un(UnOp::Neg, x).into()],
            );
            vec![r[0].into()]
        });
        vec![r[0].into()]
    });
    expect(&p, vec![f64s(&[1.0, -2.0, 3.0])], &[f64s(&[2.0, 2.0, 6.0])]);
    // An unsafe branch (integer division) is partitioned.
    let p = build(&[("xs", arr(I64, 1))], |b, ps| {
        let r = b.map_fn(&[ps[0]], |b, x| {
            let x = x[0];
            let c = b.bin(BinOp::Neq, x, i(0));
            let r = b.if_(
                c,
                |b| vec![b.bin(BinOp::Div, i(12), x).into()],
                |_| vec![i(0)],
            );
            vec![r[0].into()]
        });
        vec![r[0].into()]
    });
    expect(&p, vec![i64s(&[3, 0, -4, 0])], &[i64s(&[4, 0, -3, 0])]);
}

#[test]
fn nested_ifs_returning_arrays() {
    // map (\x -> if x > 1 then (if x > 2 then iota 2 else [x, x]) else [0, 1]) xs
    let p = build(&[("xs", arr(I64, 1))], |b, ps| {
        let r = b.map_fn(&[ps[0]], |b, x| {
            let x = x[0];
            let c = b.bin(BinOp::Gt, x, i(1));
            let r = b.if_(
                c,
                |b| {
                    let c2 = b.bin(BinOp::Gt, x, i(2));
                    let r = b.if_(
                        c2,
                        |b| vec![b.iota(i(2)).into()],
                        |b| vec![b.array_lit(vec![x.into(), x.into()], ty_i64()).into()],
                    );
                    vec![r[0].into()]
                },
                |b| vec![b.array_lit(vec![i(0), i(1)], ty_i64()).into()],
            );
            vec![r[0].into()]
        });
        vec![r[0].into()]
    });
    expect(
        &p,
        vec![i64s(&[0, 2, 3, 1])],
        &[i64m(&[&[0, 1], &[2, 2], &[0, 1], &[0, 1]])],
    );
}

#[test]
fn loops() {
    // loop acc = 1 for i < n do acc * 2 + i
    let p = build(&[("n", ty_i64())], |b, ps| {
        let r = b.loop_for(vec![i(1)], ps[0], |b, k, p| {
            let d = b.bin(BinOp::Mul, p[0], i(2));
            vec![b.bin(BinOp::Add, d, k).into()]
        });
        vec![r[0].into()]
    });
    expect(&p, vec![si(3)], &[si(12)]);
    expect(&p, vec![si(0)], &[si(1)]);
    // loop (k, s) = (n, 0) while k > 0 do (k - 1, s + k)
    let p = build(&[("n", ty_i64())], |b, ps| {
        let r = b.loop_while(
            vec![ps[0].into(), i(0)],
            |b, p| b.bin(BinOp::Gt, p[0], i(0)).into(),
            |b, p| {
                vec![
                    b.bin(BinOp::Sub, p[0], i(1)).into(),
                    b.bin(BinOp::Add, p[1], p[0]).into(),
                ]
            },
        );
        vec![r[1].into()]
    });
    expect(&p, vec![si(4)], &[si(10)]);
}

#[test]
fn loops_with_varying_trip_counts() {
    // map (\n -> loop acc = 0 for i < n do acc + i * i) ns
    let p = build(&[("ns", arr(I64, 1))], |b, ps| {
        let r = b.map_fn(&[ps[0]], |b, n| {
            let r = b.loop_for(vec![i(0)], n[0], |b, k, p| {
                let sq = b.bin(BinOp::Mul, k, k);
                vec![b.bin(BinOp::Add, p[0], sq).into()]
            });
            vec![r[0].into()]
        });
        vec![r[0].into()]
    });
    expect(
        &p,
        vec![i64s(&[0, 3, 1, 5, -2])],
        &[i64s(&[0, 5, 0, 30, 0])],
    );
    // Collatz steps: map (\x -> loop (x, s) = (x, 0) while x != 1 do ...) xs
    let p = build(&[("xs", arr(I64, 1))], |b, ps| {
        let r = b.map_fn(&[ps[0]], |b, x| {
            let r = b.loop_while(
                vec![x[0].into(), i(0)],
                |b, p| b.bin(BinOp::Neq, p[0], i(1)).into(),
                |b, p| {
                    let m = b.bin(BinOp::Mod, p[0], i(2));
                    let even = b.bin(BinOp::Eq, m, i(0));
                    let nx = b.if_(
                        even,
                        |b| vec![b.bin(BinOp::Div, p[0], i(2)).into()],
                        |b| {
                            let t = b.bin(BinOp::Mul, p[0], i(3));
                            vec![b.bin(BinOp::Add, t, i(1)).into()]
                        },
                    );
                    vec![nx[0].into(), b.bin(BinOp::Add, p[1], i(1)).into()]
                },
            );
            vec![r[1].into()]
        });
        vec![r[0].into()]
    });
    expect(
        &p,
        vec![i64s(&[1, 2, 3, 6, 7, 27])],
        &[i64s(&[0, 1, 7, 8, 16, 111])],
    );
}

#[test]
fn loop_over_array_parameter_in_map() {
    // map (\x -> loop a = replicate 3 x for i < 3 do a with [i] = a[i] + i) xs
    let p = build(&[("xs", arr(I64, 1))], |b, ps| {
        let r = b.map_fn(&[ps[0]], |b, x| {
            let a0 = b.replicate(i(3), x[0]);
            let r = b.loop_for(vec![a0.into()], i(3), |b, k, p| {
                let e = b.index1(p[0], k);
                let e2 = b.bin(BinOp::Add, e, k);
                vec![b.update(p[0], vec![fix(k)], e2).into()]
            });
            vec![r[0].into()]
        });
        vec![r[0].into()]
    });
    expect(
        &p,
        vec![i64s(&[10, 20])],
        &[i64m(&[&[10, 11, 12], &[20, 21, 22]])],
    );
}

#[test]
fn interrupts_stop_loops() {
    let p = build(&[("n", ty_i64())], |b, ps| {
        let r = b.loop_for(vec![i(0)], ps[0], |b, _, p| {
            vec![b.bin(BinOp::Add, p[0], i(1)).into()]
        });
        vec![r[0].into()]
    });
    let flag = Arc::new(AtomicBool::new(true));
    let opts = EvalOptions {
        interrupt: Some(flag),
        ..EvalOptions::default()
    };
    let e = run_opts(&p, vec![si(1 << 40)], &opts).expect_err("interrupted");
    assert_eq!(
        (e.kind, e.message.as_str()),
        (RuntimeErrorKind::Interrupted, "interrupted")
    );
    let e = run_opts(&square_map(), vec![f64s(&[1.0; 5000])], &opts).expect_err("interrupted");
    assert_eq!(e.kind, RuntimeErrorKind::Interrupted);
}

// ----- reductions -----

fn add_i64(b: &mut Builder) -> urchin_core::ir::Operator {
    b.binop_operator(BinOp::Add, I64, i(0))
}

/// `\a b -> let t = a + b in t * 1`: associative, but not recognised.
fn slow_add_i64(b: &mut Builder) -> urchin_core::ir::Operator {
    b.operator(&[ty_i64()], vec![i(0)], |b, a, x| {
        let t = b.bin(BinOp::Add, a[0], x[0]);
        vec![b.bin(BinOp::Mul, t, i(1)).into()]
    })
}

#[test]
fn reductions() {
    for slow in [false, true] {
        let p = build(&[("xs", arr(I64, 1))], |b, ps| {
            let op = if slow { slow_add_i64(b) } else { add_i64(b) };
            let sq = b.lambda(&[ty_i64()], |b, x| {
                vec![b.bin(BinOp::Mul, x[0], x[0]).into()]
            });
            let r1 = b.reduce(op.clone(), None, &[ps[0]]);
            let r2 = b.reduce(op.clone(), Some(sq.clone()), &[ps[0]]);
            let s1 = b.scan(op.clone(), None, &[ps[0]]);
            let s2 = b.scan(op, Some(sq), &[ps[0]]);
            vec![r1[0].into(), r2[0].into(), s1[0].into(), s2[0].into()]
        });
        expect(
            &p,
            vec![i64s(&[1, 2, 3])],
            &[si(6), si(14), i64s(&[1, 3, 6]), i64s(&[1, 5, 14])],
        );
        expect(&p, vec![i64s(&[])], &[si(0), si(0), i64s(&[]), i64s(&[])]);
        let n = 10_007;
        let xs: Vec<i64> = (0..n).map(|k| k % 13 - 6).collect();
        let got = ok(&p, vec![i64s(&xs)]);
        assert!(same(&got[0], &si(xs.iter().sum())));
        assert!(same(&got[1], &si(xs.iter().map(|x| x * x).sum())));
    }
}

/// A scan of a long float array, as it is and reversed (a view whose
/// stride is negative: the adjoint of a scan scans its cotangent
/// backwards), by the recognised `+` and by an operator the interpreter
/// applies: the left fold's running values, bit for bit, on any number
/// of threads. The recognised `+` folds from the left whatever the
/// values; an operator the interpreter applies may be regrouped (blocks
/// scanned side by side), so its data are whole numbers, whose sums
/// round the same in any order.
#[test]
fn long_scans_of_arrays_and_reversed_views_are_running_left_folds() {
    for slow in [false, true] {
        let p = build(&[("xs", arr(F64, 1))], |b, ps| {
            let op = if slow {
                b.operator(&[ty_f64()], vec![f(0.0)], |b, a, x| {
                    let t = b.bin(BinOp::Add, a[0], x[0]);
                    vec![b.bin(BinOp::Mul, t, f(1.0)).into()]
                })
            } else {
                b.binop_operator(BinOp::Add, F64, f(0.0))
            };
            let s1 = b.scan(op.clone(), None, &[ps[0]]);
            let rv = b.reverse(ps[0]);
            let s2 = b.scan(op, None, &[rv]);
            vec![s1[0].into(), s2[0].into()]
        });
        let scale = if slow { 1.0 } else { 7.0 };
        let xs: Vec<f64> = (0..70_001)
            .map(|k| ((k * 7919) % 1000) as f64 / scale - 50.0)
            .collect();
        let running = |xs: &mut dyn Iterator<Item = f64>| -> Vec<f64> {
            let mut a = 0.0;
            xs.map(|x| {
                a += x;
                a
            })
            .collect()
        };
        let want = [
            f64s(&running(&mut xs.iter().copied())),
            f64s(&running(&mut xs.iter().rev().copied())),
        ];
        same_bits_on_any_thread_count(&p, &f64s(&xs), &want);
    }
}

/// Data long enough for many blocks and for chunks that workers fold
/// whole blocks of (`chunks::PARALLEL_WORK`).
fn long_floats() -> Vec<f64> {
    // Not a multiple of the eight blocks folded side by side.
    let n = 603 * urchin_eval::testing::BLOCK + 17;
    (0..n)
        .map(|k| ((k * 7919) % 1000) as f64 / 7.0 - 50.0)
        .collect()
}

/// The sum of `ys` by the fixed block tree (`blocks.rs`).
fn block_tree_sum(ys: &[f64]) -> f64 {
    let mut blocks = ys
        .chunks(urchin_eval::testing::BLOCK)
        .map(|c| c.iter().fold(0.0, |a, &x| a + x));
    let first = blocks.next().unwrap_or(0.0);
    blocks.fold(first, |a, p| a + p)
}

/// `p` on `xs` gives the bits of `want` one element at a time and in
/// bulk on 1, 2 and 7 threads.
fn same_bits_on_any_thread_count(p: &(Program, Function), xs: &Value, want: &[Value]) {
    expect(p, vec![xs.clone()], want);
    for threads in [1, 2, 7] {
        let opts = EvalOptions {
            threads: Threads::new(threads),
            ..EvalOptions::default()
        };
        let got = run_opts(p, vec![xs.clone()], &opts).expect("runs");
        assert!(
            got.iter().zip(want).all(|(g, w)| same(g, w)),
            "{threads} threads: {got:?}, want {want:?}"
        );
    }
}

/// Float sums over many blocks: the same bits on 1, 2 and 7 threads, one
/// element at a time, and as the fixed block tree computes them.
#[test]
fn long_reductions_combine_fixed_blocks_on_any_thread_count() {
    let p = build(&[("xs", arr(F64, 1))], |b, ps| {
        let op = b.binop_operator(BinOp::Add, F64, f(0.0));
        let sq = b.lambda(&[ty_f64()], |b, x| {
            vec![b.bin(BinOp::Mul, x[0], x[0]).into()]
        });
        let r1 = b.reduce(op.clone(), Some(sq), &[ps[0]]);
        let r2 = b.reduce(op.clone(), None, &[ps[0]]);
        // A sum of differences of two arrays, the operands swapped:
        // folded straight from the arguments (`fused_sum_blocks`).
        let halves = b.map_fn(&[ps[0]], |b, x| {
            vec![b.bin(BinOp::Mul, x[0], f(0.5)).into()]
        });
        let diff = b.lambda(&[ty_f64(), ty_f64()], |b, x| {
            vec![b.bin(BinOp::Sub, x[1], x[0]).into()]
        });
        let r3 = b.reduce(op, Some(diff), &[ps[0], halves[0]]);
        vec![r1[0].into(), r2[0].into(), r3[0].into()]
    });
    let xs = long_floats();
    let squares: Vec<f64> = xs.iter().map(|x| x * x).collect();
    let diffs: Vec<f64> = xs.iter().map(|x| x * 0.5 - x).collect();
    let want = [
        sf(block_tree_sum(&squares)),
        sf(block_tree_sum(&xs)),
        sf(block_tree_sum(&diffs)),
    ];
    same_bits_on_any_thread_count(&p, &f64s(&xs), &want);
}

/// Sums of the rows of matrices (several rows folded side by side): each
/// row's bits are those of its block tree, on any number of threads, for
/// row counts that are not a multiple of the rows folded together, and
/// rows shorter and longer than a block.
#[test]
fn row_sums_fold_each_row_in_its_own_order() {
    let p = build(&[("m", arr(F64, 2))], |b, ps| {
        let sums = b.map_fn(&[ps[0]], |b, row| {
            let op = b.binop_operator(BinOp::Add, F64, f(0.0));
            vec![b.reduce(op, None, &[row[0]])[0].into()]
        });
        vec![sums[0].into()]
    });
    let xs = long_floats();
    for (rows, n) in [
        (13, 5),
        (17, 1),
        (9, 2 * urchin_eval::testing::BLOCK + 3),
        (3, 300),
    ] {
        let data = &xs[..rows * n];
        let m = Value::Array(Array::from_scalars(
            F64,
            vec![rows, n],
            &data.iter().map(|x| Scalar::F64(*x)).collect::<Vec<_>>(),
        ));
        let want: Vec<f64> = data.chunks(n).map(block_tree_sum).collect();
        same_bits_on_any_thread_count(&p, &m, &[f64s(&want)]);
    }
}

/// The same with an operator the evaluator does not recognise (so no
/// block is folded natively): a run of whole blocks in a chunk is still
/// folded block by block, not as one piece.
#[test]
fn long_reductions_with_general_operators_combine_fixed_blocks() {
    let p = build(&[("xs", arr(F64, 1))], |b, ps| {
        // `(a + x) * 1`: the sum, in two statements.
        let op = b.operator(&[ty_f64()], vec![f(0.0)], |b, a, x| {
            let s = b.bin(BinOp::Add, a[0], x[0]);
            vec![b.bin(BinOp::Mul, s, f(1.0)).into()]
        });
        let r = b.reduce(op, None, &[ps[0]]);
        vec![r[0].into()]
    });
    let xs = long_floats();
    same_bits_on_any_thread_count(&p, &f64s(&xs), &[sf(block_tree_sum(&xs))]);
}

#[test]
fn reductions_inside_maps() {
    // map (\row -> (reduce (+) 0 row, scan op 0 row)) m, with both kinds of
    // operators
    for slow in [false, true] {
        let p = build(&[("m", arr(I64, 2))], |b, ps| {
            let op = if slow { slow_add_i64(b) } else { add_i64(b) };
            let r = b.map_fn(&[ps[0]], |b, row| {
                let s = b.reduce(op.clone(), None, &[row[0]]);
                let sc = b.scan(op.clone(), None, &[row[0]]);
                vec![s[0].into(), sc[0].into()]
            });
            vec![r[0].into(), r[1].into()]
        });
        expect(
            &p,
            vec![i64m(&[&[1, 2, 3], &[4, 5, 6]])],
            &[i64s(&[6, 15]), i64m(&[&[1, 3, 6], &[4, 9, 15]])],
        );
    }
}

#[test]
fn argmin_reduction_with_two_values() {
    // reduce (\(a, i) (b, j) -> if a <= b then (a, i) else (b, j)) (inf, -1) (zip xs (iota n))
    let p = build(&[("xs", arr(F64, 1))], |b, ps| {
        let n = b.size(ps[0], 0);
        let is = b.iota(n);
        let op = b.operator(
            &[ty_f64(), ty_i64()],
            vec![f(f64::INFINITY), i(-1)],
            |b, a, x| {
                let c = b.bin(BinOp::Le, a[0], x[0]);
                let v = b.select(c, a[0], x[0]);
                let k = b.select(c, a[1], x[1]);
                vec![v.into(), k.into()]
            },
        );
        let r = b.reduce(op, None, &[ps[0], is]);
        vec![r[0].into(), r[1].into()]
    });
    let xs: Vec<f64> = (0..5000).map(|k| ((k * 7919) % 1000) as f64).collect();
    expect(&p, vec![f64s(&xs)], &[sf(0.0), si(0)]);
    expect(&p, vec![f64s(&[3.0, 1.0, 2.0, 1.0])], &[sf(1.0), si(1)]);
}

#[test]
fn histograms() {
    for slow in [false, true] {
        let p = build(
            &[
                ("dest", arr(I64, 1)),
                ("is", arr(I64, 1)),
                ("vs", arr(I64, 1)),
            ],
            |b, ps| {
                let op = if slow { slow_add_i64(b) } else { add_i64(b) };
                vec![b.hist(op, &[ps[0]], ps[1], &[ps[2]])[0].into()]
            },
        );
        expect(
            &p,
            vec![
                i64s(&[0, 0, 0]),
                i64s(&[0, 2, 5, 2, -1]),
                i64s(&[1, 2, 3, 4, 5]),
            ],
            &[i64s(&[1, 0, 6])],
        );
        expect_err(
            &p,
            vec![i64s(&[0, 0, 0]), i64s(&[0, 2]), i64s(&[1, 2, 3])],
            RuntimeErrorKind::ShapeMismatch,
            "shape mismatch: reduce_by_index over arrays of lengths 2 and 3",
        );
    }
}

#[test]
fn histograms_in_maps() {
    // map (\k -> hist (+) (replicate 3 0) [k, k+1, 9] [1, 2, 3]) ks
    let p = build(&[("ks", arr(I64, 1))], |b, ps| {
        let r = b.map_fn(&[ps[0]], |b, k| {
            let k = k[0];
            let d = b.replicate(i(3), i(0));
            let k1 = b.bin(BinOp::Add, k, i(1));
            let is = b.array_lit(vec![k.into(), k1.into(), i(9)], ty_i64());
            let vs = b.array_lit(vec![i(1), i(2), i(3)], ty_i64());
            let op = add_i64(b);
            vec![b.hist(op, &[d], is, &[vs])[0].into()]
        });
        vec![r[0].into()]
    });
    expect(&p, vec![i64s(&[0, 2])], &[i64m(&[&[1, 2, 0], &[0, 0, 1]])]);
}

#[test]
fn scatters() {
    let p = build(
        &[
            ("dest", arr(I64, 1)),
            ("is", arr(I64, 1)),
            ("vs", arr(I64, 1)),
        ],
        |b, ps| vec![b.scatter(&[ps[0]], &[ps[1]], &[ps[2]])[0].into()],
    );
    expect(
        &p,
        vec![i64s(&[0, 0, 0]), i64s(&[2, -1, 0, 7]), i64s(&[1, 2, 3, 4])],
        &[i64s(&[3, 0, 1])],
    );
    // A repeated index: the last write wins, as in order.
    expect(
        &p,
        vec![i64s(&[0, 0]), i64s(&[1, 1, 1]), i64s(&[5, 6, 7])],
        &[i64s(&[0, 7])],
    );
    // scatter_2d
    let p = build(
        &[
            ("dest", arr(I64, 2)),
            ("is", arr(I64, 1)),
            ("js", arr(I64, 1)),
            ("vs", arr(I64, 1)),
        ],
        |b, ps| vec![b.scatter(&[ps[0]], &[ps[1], ps[2]], &[ps[3]])[0].into()],
    );
    expect(
        &p,
        vec![
            i64m(&[&[0, 0], &[0, 0]]),
            i64s(&[1, 0, 5]),
            i64s(&[0, 1, 0]),
            i64s(&[7, 8, 9]),
        ],
        &[i64m(&[&[0, 8], &[7, 0]])],
    );
    // Scatter of rows, and inside a map.
    let p = build(&[("ks", arr(I64, 1))], |b, ps| {
        let r = b.map_fn(&[ps[0]], |b, k| {
            let d = b.replicate(i(3), i(0));
            let is = b.array_lit(vec![k[0].into()], ty_i64());
            let vs = b.array_lit(vec![i(5)], ty_i64());
            vec![b.scatter(&[d], &[is], &[vs])[0].into()]
        });
        vec![r[0].into()]
    });
    expect(&p, vec![i64s(&[1, 3])], &[i64m(&[&[0, 5, 0], &[0, 0, 0]])]);
}

// ----- assertions and shape checks -----

#[test]
fn assertions() {
    let p = build(&[("xs", arr(I64, 1))], |b, ps| {
        let r = b.map_fn(&[ps[0]], |b, x| {
            let c = b.bin(BinOp::Ge, x[0], i(0));
            b.assert(c, "x is non-negative");
            vec![x[0].into()]
        });
        vec![r[0].into()]
    });
    expect(&p, vec![i64s(&[1, 2])], &[i64s(&[1, 2])]);
    expect_err(
        &p,
        vec![i64s(&[1, -2])],
        RuntimeErrorKind::AssertionFailed,
        "Assertion is false: x is non-negative",
    );
}

#[test]
fn shape_checks() {
    let p = build(&[("ys", arr(I64, 1)), ("n", ty_i64())], |b, ps| {
        b.check_shape(ps[0], vec![Some(ps[1].into())], "parameter ys");
        vec![ps[0].into()]
    });
    expect(&p, vec![i64s(&[1, 2]), si(2)], &[i64s(&[1, 2])]);
    expect_err(
        &p,
        vec![i64s(&[1, 2]), si(3)],
        RuntimeErrorKind::ShapeMismatch,
        "Value of shape [2] cannot match shape [3] (parameter ys)",
    );
}

// ----- accumulators -----

#[test]
fn accumulators() {
    // with_acc dest (\acc -> map (\i v -> upd acc [i] v) is vs; acc)
    let p = build(
        &[
            ("dest", arr(F64, 1)),
            ("is", arr(I64, 1)),
            ("vs", arr(F64, 1)),
        ],
        |b, ps| {
            let (is, vs) = (ps[1], ps[2]);
            let r = b.with_acc(&[ps[0]], |b, accs| {
                let acc = accs[0];
                let _ = b.map_fn(&[is, vs], |b, iv| {
                    vec![b.upd_acc(acc, vec![iv[0].into()], iv[1]).into()]
                });
                let last = b.upd_acc(acc, vec![i(0)], f(100.0));
                vec![last.into()]
            });
            vec![r[0].into()]
        },
    );
    expect(
        &p,
        vec![
            f64s(&[0.0, 0.0, 0.0]),
            i64s(&[0, 2, 2, 9]),
            f64s(&[1.0, 2.0, 3.0, 4.0]),
        ],
        &[f64s(&[101.0, 0.0, 5.0])],
    );
    // Rows of a two-dimensional accumulator, and with_acc inside a map.
    let p = build(&[("ks", arr(I64, 1))], |b, ps| {
        let r = b.map_fn(&[ps[0]], |b, k| {
            let d = b.replicate(i(2), i(0));
            let r = b.with_acc(&[d], |b, accs| {
                vec![b.upd_acc(accs[0], vec![k[0].into()], i(1)).into()]
            });
            vec![r[0].into()]
        });
        vec![r[0].into()]
    });
    expect(
        &p,
        vec![i64s(&[1, 0, 5])],
        &[i64m(&[&[0, 1], &[1, 0], &[0, 0]])],
    );
}

#[test]
fn ad_operators_are_internal_errors() {
    let p = build(&[("x", ty_f64())], |b, ps| {
        let lam = b.lambda(&[ty_f64()], |b, x| {
            vec![b.bin(BinOp::Mul, x[0], x[0]).into()]
        });
        vec![
            b.exps(
                &[ty_f64(), ty_f64()],
                Exp::Jvp {
                    lam,
                    primals: vec![ps[0].into()],
                    tangents: vec![f(1.0)],
                },
            )[0]
            .into(),
        ]
    });
    let e = err(&p, vec![sf(3.0)]);
    assert_eq!(e.kind, RuntimeErrorKind::Internal);
}

// ----- memory accounting -----

#[test]
fn memory_is_tracked() {
    // ys = map (*2) xs; zs = map (+1) ys; all three alive at the end
    let p = build(&[("xs", arr(F64, 1))], |b, ps| {
        let ys = b.map_fn(&[ps[0]], |b, x| {
            vec![b.bin(BinOp::Mul, x[0], f(2.0)).into()]
        })[0];
        let zs = b.map_fn(&[ys], |b, x| vec![b.bin(BinOp::Add, x[0], f(1.0)).into()])[0];
        vec![ps[0].into(), ys.into(), zs.into()]
    });
    let mut ck = std::collections::HashSet::new();
    ck.insert(p.1.params[0]);
    let opts = EvalOptions {
        track_memory: true,
        checkpoint_vars: ck,
        ..EvalOptions::default()
    };
    let mut stats = EvalStats::default();
    run_function(&p.0, &p.1, vec![f64s(&[1.0; 100])], &opts, &mut stats).expect("runs");
    assert_eq!(stats.peak_live_bytes, 3 * 800);
    assert_eq!(stats.peak_checkpoint_bytes, 800);
    let mut stats = EvalStats::default();
    run_function(
        &p.0,
        &p.1,
        vec![f64s(&[1.0; 100])],
        &EvalOptions::default(),
        &mut stats,
    )
    .expect("runs");
    assert_eq!(stats.peak_live_bytes, 0);
}

#[test]
fn spans_point_at_the_failing_statement() {
    let (prog, fun) = build(&[("a", arr(I64, 1))], |b, ps| {
        b.span = urchin_base::source::Span::new(urchin_base::source::FileId(0), 10, 20);
        vec![b.index1(ps[0], i(7)).into()]
    });
    let e = run_function(
        &prog,
        &fun,
        vec![i64s(&[1])],
        &EvalOptions::default(),
        &mut EvalStats::default(),
    )
    .expect_err("fails");
    assert_eq!(e.span.range(), 10..20);
    assert_eq!(e.to_diagnostic().message, e.message);
}

#[test]
fn bool_arrays_and_conversions_in_maps() {
    let p = build(&[("bs", arr(BOOL, 1)), ("xs", arr(F64, 1))], |b, ps| {
        let r = b.map_fn(&[ps[0], ps[1]], |b, bx| {
            let n = b.un(UnOp::Not, bx[0]);
            let k = b.convert(I64, bx[1]);
            let fl = b.convert(PrimType::F32, k);
            let nan = b.un(UnOp::IsNan, bx[1]);
            let o = b.bin(BinOp::LogOr, n, nan);
            vec![o.into(), fl.into()]
        });
        vec![r[0].into(), r[1].into()]
    });
    let got = ok(
        &p,
        vec![bools(&[true, false, true]), f64s(&[1.7, -2.5, f64::NAN])],
    );
    assert!(same(&got[0], &bools(&[false, true, true])));
}

// ----- more lifted cases -----

#[test]
fn long_rows_reduce_as_trees_in_maps() {
    // Few lanes and long rows: the unrecognised operator is applied as a
    // tree; also a vectorised operator (map2 (+)) over rows at the top.
    let p = build(&[("m", arr(I64, 2))], |b, ps| {
        let op = slow_add_i64(b);
        let sums = b.map_fn(&[ps[0]], |b, row| {
            vec![b.reduce(op.clone(), None, &[row[0]])[0].into()]
        });
        let scans = b.map_fn(&[ps[0]], |b, row| {
            vec![b.scan(op.clone(), None, &[row[0]])[0].into()]
        });
        let w = b.size(ps[0], 1);
        let zeros = b.replicate(w, i(0));
        let vop = b.operator(&[arr(I64, 1)], vec![zeros.into()], |b, a, x| {
            vec![
                b.map_fn(&[a[0], x[0]], |b, ax| {
                    vec![b.bin(BinOp::Add, ax[0], ax[1]).into()]
                })[0]
                    .into(),
            ]
        });
        let cols = b.reduce(vop, None, &[ps[0]]);
        vec![sums[0].into(), scans[0].into(), cols[0].into()]
    });
    let rows: Vec<Vec<i64>> = (0..3)
        .map(|r| (0..500).map(|c| (r * 7 + c) % 11 - 5).collect())
        .collect();
    let refs: Vec<&[i64]> = rows.iter().map(|r| r.as_slice()).collect();
    let got = ok(&p, vec![i64m(&refs)]);
    let sums: Vec<i64> = rows.iter().map(|r| r.iter().sum()).collect();
    assert!(same(&got[0], &i64s(&sums)));
    let cols: Vec<i64> = (0..500).map(|c| rows.iter().map(|r| r[c]).sum()).collect();
    assert!(same(&got[2], &i64s(&cols)));
}

#[test]
fn varying_slices_and_rotations_in_maps() {
    // map (\k -> (a[k:k+2], rotate k a)) ks
    let p = build(&[("a", arr(I64, 1)), ("ks", arr(I64, 1))], |b, ps| {
        let a = ps[0];
        let r = b.map_fn(&[ps[1]], |b, k| {
            let k = k[0];
            let e = b.bin(BinOp::Add, k, i(2));
            let s = b.index(
                a,
                vec![DimIndex::Slice {
                    start: Some(k.into()),
                    end: Some(e.into()),
                    stride: None,
                }],
            );
            vec![s.into(), b.rotate(k, a).into()]
        });
        vec![r[0].into(), r[1].into()]
    });
    expect(
        &p,
        vec![i64s(&[1, 2, 3]), i64s(&[1, 0])],
        &[i64m(&[&[2, 3], &[1, 2]]), i64m(&[&[2, 3, 1], &[1, 2, 3]])],
    );
    expect_err(
        &p,
        vec![i64s(&[1, 2, 3]), i64s(&[0, 2])],
        RuntimeErrorKind::IndexOutOfBounds,
        "Index [2:4] out of bounds for array of shape [3]",
    );
}

#[test]
fn reps_that_vary_over_lanes() {
    // map (\x -> map (\y r -> y * r) ys (rep x)) xs
    let p = build(&[("xs", arr(I64, 1)), ("ys", arr(I64, 1))], |b, ps| {
        let ys = ps[1];
        let r = b.map_fn(&[ps[0]], |b, x| {
            let r = b.rep(x[0]);
            vec![
                b.map_fn(&[ys, r], |b, yr| {
                    vec![b.bin(BinOp::Mul, yr[0], yr[1]).into()]
                })[0]
                    .into(),
            ]
        });
        vec![r[0].into()]
    });
    expect(
        &p,
        vec![i64s(&[1, 2]), i64s(&[3, 4])],
        &[i64m(&[&[3, 4], &[6, 8]])],
    );
}

#[test]
fn partitioned_branches_of_different_shapes_are_irregular() {
    // map (\x -> if x > 0 then iota 2 else iota 3) xs
    let p = build(&[("xs", arr(I64, 1))], |b, ps| {
        let r = b.map_fn(&[ps[0]], |b, x| {
            let c = b.bin(BinOp::Gt, x[0], i(0));
            vec![
                b.if_(
                    c,
                    |b| vec![b.iota(i(2)).into()],
                    |b| vec![b.iota(i(3)).into()],
                )[0]
                .into(),
            ]
        });
        vec![r[0].into()]
    });
    expect(&p, vec![i64s(&[1, 1])], &[i64m(&[&[0, 1], &[0, 1]])]);
    expect_err(
        &p,
        vec![i64s(&[1, -1])],
        RuntimeErrorKind::ShapeMismatch,
        "shape mismatch: map produced elements of shapes [2] and [3]",
    );
}

#[test]
fn selects_between_arrays_and_maps_inside_branches() {
    // map (\x -> if x > 0 then ys else zs) xs   (safe: a select of rows)
    // map (\x -> if x > 0 then map (\y -> y / x) ys else ys) xs  (partitioned)
    let p = build(
        &[
            ("xs", arr(I64, 1)),
            ("ys", arr(I64, 1)),
            ("zs", arr(I64, 1)),
        ],
        |b, ps| {
            let (ys, zs) = (ps[1], ps[2]);
            let r = b.map_fn(&[ps[0]], |b, x| {
                let x = x[0];
                let c = b.bin(BinOp::Gt, x, i(0));
                let s = b.if_(c, |_| vec![ys.into()], |_| vec![zs.into()]);
                let d = b.if_(
                    c,
                    |b| {
                        vec![
                            b.map_fn(&[ys], |b, y| vec![b.bin(BinOp::Div, y[0], x).into()])[0]
                                .into(),
                        ]
                    },
                    |_| vec![ys.into()],
                );
                vec![s[0].into(), d[0].into()]
            });
            vec![r[0].into(), r[1].into()]
        },
    );
    expect(
        &p,
        vec![i64s(&[2, 0, -1]), i64s(&[10, 20]), i64s(&[7, 8])],
        &[
            i64m(&[&[10, 20], &[7, 8], &[7, 8]]),
            i64m(&[&[5, 10], &[10, 20], &[10, 20]]),
        ],
    );
}

#[test]
fn static_slice_updates_in_maps() {
    // map (\r -> r with [1:3] = [r[0], r[0]]) m
    let p = build(&[("m", arr(I64, 2))], |b, ps| {
        let r = b.map_fn(&[ps[0]], |b, r| {
            let r = r[0];
            let h = b.index1(r, i(0));
            let v = b.array_lit(vec![h.into(), h.into()], ty_i64());
            vec![b.update(r, vec![slice(Some(1), Some(3), None)], v).into()]
        });
        vec![r[0].into()]
    });
    expect(
        &p,
        vec![i64m(&[&[1, 2, 3, 4], &[5, 6, 7, 8]])],
        &[i64m(&[&[1, 1, 1, 4], &[5, 5, 5, 8]])],
    );
}

#[test]
fn accumulator_rows_from_maps() {
    // with_acc dest (\acc -> map (\k -> upd acc [k] row) ks; acc), dest 2-D
    let p = build(
        &[
            ("dest", arr(I64, 2)),
            ("ks", arr(I64, 1)),
            ("row", arr(I64, 1)),
        ],
        |b, ps| {
            let (ks, row) = (ps[1], ps[2]);
            let r = b.with_acc(&[ps[0]], |b, accs| {
                let acc = accs[0];
                let _ = b.map_fn(&[ks], |b, k| {
                    vec![b.upd_acc(acc, vec![k[0].into()], row).into()]
                });
                vec![acc.into()]
            });
            vec![r[0].into()]
        },
    );
    expect(
        &p,
        vec![
            i64m(&[&[0, 0], &[0, 0]]),
            i64s(&[1, 1, 5, 0]),
            i64s(&[1, 2]),
        ],
        &[i64m(&[&[1, 2], &[2, 4]])],
    );
}

#[test]
fn while_loops_over_arrays_in_maps() {
    // map (\n -> loop (a, k) = (replicate 2 0, n) while k > 0 do (a with [k % 2] = k, k - 1)) ns
    let p = build(&[("ns", arr(I64, 1))], |b, ps| {
        let r = b.map_fn(&[ps[0]], |b, n| {
            let a0 = b.replicate(i(2), i(0));
            let r = b.loop_while(
                vec![a0.into(), n[0].into()],
                |b, p| b.bin(BinOp::Gt, p[1], i(0)).into(),
                |b, p| {
                    let m = b.bin(BinOp::Mod, p[1], i(2));
                    let a = b.update(p[0], vec![fix(m)], p[1]);
                    vec![a.into(), b.bin(BinOp::Sub, p[1], i(1)).into()]
                },
            );
            vec![r[0].into()]
        });
        vec![r[0].into()]
    });
    expect(
        &p,
        vec![i64s(&[0, 1, 4, 3])],
        &[i64m(&[&[0, 0], &[0, 1], &[2, 1], &[2, 1]])],
    );
}

#[test]
fn accumulator_updates_are_not_repeated_when_a_chunk_is_retried() {
    // with_acc dest (\acc -> map (\n -> let a = upd acc [0] 1 in (a, iota n)) ns)
    // The iota is irregular, so the bulk chunk is retried per element: the
    // updates it made in bulk must not count twice.
    let p = build(&[("dest", arr(I64, 1)), ("ns", arr(I64, 1))], |b, ps| {
        let ns = ps[1];
        let r = b.with_acc(&[ps[0]], |b, accs| {
            let acc = accs[0];
            let m = b.map_fn(&[ns], |b, n| {
                let a = b.upd_acc(acc, vec![i(0)], i(1));
                let io = b.iota(n[0]);
                let op = add_i64(b);
                let s = b.reduce(op, None, &[io]);
                vec![a.into(), s[0].into()]
            });
            vec![m[0].into(), m[1].into()]
        });
        vec![r[0].into(), r[1].into()]
    });
    expect(
        &p,
        vec![i64s(&[0]), i64s(&[1, 2, 3])],
        &[i64s(&[3]), i64s(&[0, 1, 3])],
    );
}

#[test]
fn accumulator_updates_happen_once_per_lane() {
    // with_acc dest (\acc ->
    //   map (\x -> let a1 = if x > 0 then upd acc [0] 1 else acc
    //              let a2 = map (\j -> upd a1 [1] 1) (iota 2)
    //              in loop a = a1 for i < x do upd a [2] 1) xs; acc)
    let p = build(&[("dest", arr(I64, 1)), ("xs", arr(I64, 1))], |b, ps| {
        let xs = ps[1];
        let r = b.with_acc(&[ps[0]], |b, accs| {
            let acc = accs[0];
            let _ = b.map_fn(&[xs], |b, x| {
                let x = x[0];
                let c = b.bin(BinOp::Gt, x, i(0));
                let a1 = b.if_(
                    c,
                    |b| vec![b.upd_acc(acc, vec![i(0)], i(1)).into()],
                    |_| vec![acc.into()],
                )[0];
                let js = b.iota(i(2));
                let _ = b.map_fn(&[js], |b, _| vec![b.upd_acc(a1, vec![i(1)], i(1)).into()]);
                let a3 = b.loop_for(vec![a1.into()], x, |b, _, a| {
                    vec![b.upd_acc(a[0], vec![i(2)], i(1)).into()]
                });
                vec![a3[0].into()]
            });
            vec![acc.into()]
        });
        vec![r[0].into()]
    });
    expect(
        &p,
        vec![i64s(&[0, 0, 0]), i64s(&[2, -1, 3])],
        &[i64s(&[2, 6, 5])],
    );
}

#[test]
fn short_reductions_fold_as_long_ones_do() {
    // An outermost reduction of less than a block of floats, of an array or
    // of a map run as register code, is one left fold
    // (`soac::reduce_block`); from a block on, the chunk driver folds it.
    // Either way the bits are per-element evaluation's.
    let p = build(&[("xs", arr(F64, 1)), ("c", ty_f64())], |b, ps| {
        let c = ps[1];
        let pre = b.lambda(&[ty_f64()], |b, v| {
            let t = b.bin(BinOp::Mul, v[0], c);
            vec![b.un(UnOp::Exp, t).into()]
        });
        let add = b.binop_operator(BinOp::Add, F64, Atom::Const(Scalar::F64(0.0)));
        let max = b.binop_operator(BinOp::Max, F64, Atom::Const(Scalar::F64(f64::NEG_INFINITY)));
        let s = b.reduce(add, Some(pre), &[ps[0]])[0];
        let m = b.reduce(max, None, &[ps[0]])[0];
        vec![s.into(), m.into()]
    });
    let block = urchin_eval::testing::BLOCK;
    for n in [1, 14, block - 1, block, block + 3] {
        let xs: Vec<f64> = (0..n).map(|k| (k as f64 * 0.37).sin() * 3.0).collect();
        ok(&p, vec![f64s(&xs), Value::Scalar(Scalar::F64(0.7))]);
    }
}

#[test]
fn sums_of_element_wise_operations_over_lanes_are_fused_bit_for_bit() {
    // map (\xs -> map (\ys -> reduce (+) 0 (map2 op xs ys)) yss) xss: the
    // fused fold (`kernels::fold_map2_rows`) must take the steps of the
    // unfused one, also over rows longer than a reduction's block.
    fn matrix(t: PrimType, rows: usize, cols: usize, seed: f64) -> Value {
        let data: Vec<Scalar> = (0..rows * cols)
            .map(|k| {
                let x = (seed * k as f64 + 0.3).sin() * 1e3;
                match t {
                    F64 => Scalar::F64(x),
                    _ => Scalar::I64(x as i64),
                }
            })
            .collect();
        Value::Array(Array::from_scalars(t, vec![rows, cols], &data))
    }
    // Short rows are folded eight at a time (with some left over, or
    // none), also where the inner map's rows share the outer one's (a
    // matrix times a vector, either operand), or are a transposed
    // matrix's, read in place eight columns at a time; long ones in blocks.
    let sizes = [(3, 4), (5, 70), (3, 2), (2, 13), (9, 3), (2, 8)];
    for (t, n, (m, k)) in [F64, I64].into_iter().flat_map(|t| {
        [7, 2 * urchin_eval::testing::BLOCK + 5]
            .into_iter()
            .flat_map(move |n| sizes.map(|mk| (t, n, mk)))
    }) {
        let zero = Atom::Const(Scalar::zero(t));
        for op in [BinOp::Mul, BinOp::Add, BinOp::Sub, BinOp::Min, BinOp::Max] {
            for (swapped, xs_inner, transposed) in [
                (false, false, false),
                (true, false, false),
                (false, true, false),
                (false, false, true),
                (false, true, true),
                (true, true, true),
            ] {
                let p = build(&[("xss", arr(t, 2)), ("yss", arr(t, 2))], |b, ps| {
                    let (outer, inner) = if xs_inner {
                        (ps[1], ps[0])
                    } else {
                        (ps[0], ps[1])
                    };
                    let inner = if transposed {
                        b.rearrange(vec![1, 0], inner)
                    } else {
                        inner
                    };
                    let r = b.map_fn(&[outer], |b, o| {
                        let o = o[0];
                        vec![
                            b.map_fn(&[inner], |b, i| {
                                let pre = b.lambda(&[Type::Prim(t), Type::Prim(t)], |b, v| {
                                    let (x, y) = if swapped { (v[1], v[0]) } else { (v[0], v[1]) };
                                    vec![b.bin(op, x, y).into()]
                                });
                                let add = b.binop_operator(BinOp::Add, t, zero);
                                let (xs, ys) = if xs_inner { (i[0], o) } else { (o, i[0]) };
                                vec![b.reduce(add, Some(pre), &[xs, ys])[0].into()]
                            })[0]
                                .into(),
                        ]
                    });
                    vec![r[0].into()]
                });
                let (xss, yss) = match (transposed, xs_inner) {
                    (false, _) => (matrix(t, m, n, 0.37), matrix(t, k, n, 0.91)),
                    (true, false) => (matrix(t, m, n, 0.37), matrix(t, n, k, 0.91)),
                    (true, true) => (matrix(t, n, m, 0.37), matrix(t, k, n, 0.91)),
                };
                let args = vec![xss, yss];
                // `run` compares the bits with per-element evaluation; a
                // float product's sums are a GEMM's where they are large
                // enough (`gemm.rs`), equal to them to rounding.
                let out = if (t, op) == (F64, BinOp::Mul) {
                    close_to_per_element(&p, args.clone())
                } else {
                    ok(&p, args.clone())
                };
                let Value::Array(a) = &out[0] else {
                    panic!("not an array: {out:?}")
                };
                assert_eq!(a.shape(), if xs_inner { [k, m] } else { [m, k] });
                // Work split however finely, on any number of threads.
                for threads in [2, 7] {
                    let opts = EvalOptions {
                        threads: Threads::new(threads),
                        grain_scale: 0,
                        ..EvalOptions::default()
                    };
                    let got = run_opts(&p, args.clone(), &opts).expect("runs");
                    assert!(
                        same(&got[0], &out[0]),
                        "{threads} threads: {got:?}, want {out:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn matrix_products_from_negative_zero_keep_its_sign() {
    // map (\r -> map (\c -> reduce (+) (-0.0) (map2 (*) r c)) yss) xss,
    // large enough for a GEMM: -0.0 is float addition's neutral element,
    // and products that are all -0.0 sum to -0.0 from it (a GEMM sums
    // from +0.0, so it only computes sums from +0.0).
    let n = 16;
    let p = build(&[("xss", arr(F64, 2)), ("yss", arr(F64, 2))], |b, ps| {
        let yss = ps[1];
        let r = b.map_fn(&[ps[0]], |b, row| {
            let row = row[0];
            vec![
                b.map_fn(&[yss], |b, col| {
                    let pre = b.lambda(&[ty_f64(), ty_f64()], |b, v| {
                        vec![b.bin(BinOp::Mul, v[0], v[1]).into()]
                    });
                    let add = b.binop_operator(BinOp::Add, F64, f(-0.0));
                    vec![b.reduce(add, Some(pre), &[row, col[0]])[0].into()]
                })[0]
                    .into(),
            ]
        });
        vec![r[0].into()]
    });
    let filled = |x: f64| {
        Value::Array(Array::from_scalars(
            F64,
            vec![n, n],
            &vec![Scalar::F64(x); n * n],
        ))
    };
    expect(&p, vec![filled(1.0), filled(-0.0)], &[filled(-0.0)]);
}

/// The bulk result of `p`, which must equal per-element evaluation's to
/// within rounding (relative to the largest element).
fn close_to_per_element(p: &(Program, Function), args: Vec<Value>) -> Vec<Value> {
    let bulk = run_opts(p, args.clone(), &EvalOptions::default()).expect("runs in bulk");
    let per = EvalOptions {
        bulk: false,
        ..EvalOptions::default()
    };
    let want = run_opts(p, args, &per).expect("runs per element");
    let floats = |v: &Value| -> Vec<f64> {
        let Value::Array(a) = v else {
            panic!("not an array: {v:?}")
        };
        a.to_scalars().iter().map(|x| x.as_f64()).collect()
    };
    for (b, w) in bulk.iter().zip(&want) {
        let (b, w) = (floats(b), floats(w));
        let scale = w.iter().fold(1.0f64, |m, x| m.max(x.abs()));
        assert_eq!(b.len(), w.len());
        for (x, y) in b.iter().zip(&w) {
            assert!((x - y).abs() <= 1e-10 * scale, "{x} vs {y} per element");
        }
    }
    bulk
}

/// `map (\c -> f64.sum (c * v)) (transpose a)` at the top: each chunk of
/// the map takes some of the transposed matrix's columns, a view with
/// gaps, which the fused fold reads in place; the bits are those of
/// per-element evaluation, on any number of threads.
#[test]
fn chunks_of_a_transposed_matrix_are_read_in_place_bit_for_bit() {
    for (n, m) in [(7, 45), (2 * urchin_eval::testing::BLOCK + 5, 37)] {
        for v_first in [false, true] {
            let p = build(&[("a", arr(F64, 2)), ("v", arr(F64, 1))], |b, ps| {
                let cols = b.rearrange(vec![1, 0], ps[0]);
                let r = b.map_fn(&[cols], |b, c| {
                    let pre = b.lambda(&[ty_f64(), ty_f64()], |b, x| {
                        vec![b.bin(BinOp::Mul, x[0], x[1]).into()]
                    });
                    let add = b.binop_operator(BinOp::Add, F64, f(0.0));
                    let args = if v_first {
                        [ps[1], c[0]]
                    } else {
                        [c[0], ps[1]]
                    };
                    vec![b.reduce(add, Some(pre), &args)[0].into()]
                });
                vec![r[0].into()]
            });
            let a: Vec<f64> = (0..n * m)
                .map(|k| (0.37 * k as f64 + 0.3).sin() * 1e3)
                .collect();
            let v: Vec<f64> = (0..n).map(|k| (0.91 * k as f64).cos()).collect();
            let a = Value::Array(Array::from_scalars(
                F64,
                vec![n, m],
                &a.iter().map(|x| Scalar::F64(*x)).collect::<Vec<_>>(),
            ));
            // `ok` compares the bits with per-element evaluation.
            let out = ok(&p, vec![a.clone(), f64s(&v)]);
            for threads in [2, 7] {
                let opts = EvalOptions {
                    threads: Threads::new(threads),
                    grain_scale: 0,
                    ..EvalOptions::default()
                };
                let got = run_opts(&p, vec![a.clone(), f64s(&v)], &opts).expect("runs");
                assert!(
                    same(&got[0], &out[0]),
                    "{threads} threads: {got:?}, want {out:?}"
                );
            }
        }
    }
}
