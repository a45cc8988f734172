//! The fast paths apply where they should. Each computes the general
//! path's values bit for bit, so a fast path that stopped applying would
//! only be slower: these tests read [`EvalStats::fast`] instead.

use urchin_core::build::{Builder, main_program};
use urchin_core::ir::{Atom, Function, Program, Type};
use urchin_eval::threads::Threads;
use urchin_eval::{EvalOptions, EvalStats, FastPaths, run_function};
use urchin_prim::{BinOp, PrimType, Scalar};
use urchin_runtime::value::{Array, Value};

const F64: PrimType = PrimType::F64;
const I64: PrimType = PrimType::I64;

fn floats(shape: Vec<usize>) -> Value {
    let n: usize = shape.iter().product();
    let data: Vec<Scalar> = (0..n)
        .map(|k| Scalar::F64((k % 97) as f64 * 0.25 - 3.0))
        .collect();
    Value::Array(Array::from_scalars(F64, shape, &data))
}

fn ints(shape: Vec<usize>) -> Value {
    let n: usize = shape.iter().product();
    let data: Vec<Scalar> = (0..n).map(|k| Scalar::I64(k as i64 % 13 - 6)).collect();
    Value::Array(Array::from_scalars(I64, shape, &data))
}

/// The fast paths `p` takes on `threads` threads, and its values. (With
/// the tuned sizes: tests that split the smallest work cut chunks too
/// short to hold a whole block of a sum.)
fn taken(p: &(Program, Function), args: &[Value], threads: usize) -> (FastPaths, Vec<Value>) {
    let opts = EvalOptions {
        threads: Threads::new(threads),
        ..EvalOptions::default()
    };
    let mut stats = EvalStats::default();
    let out = run_function(&p.0, &p.1, args.to_vec(), &opts, &mut stats).expect("runs");
    (stats.fast, out)
}

/// `p` takes the fast path `path` reads on one thread and on two, with
/// the same values, and none without bulk evaluation.
fn takes(p: &(Program, Function), args: &[Value], path: fn(&FastPaths) -> u64) {
    let (one, want) = taken(p, args, 1);
    assert!(path(&one) > 0, "one thread: {one:?}");
    let (two, got) = taken(p, args, 2);
    assert!(path(&two) > 0, "two threads: {two:?}");
    assert!(got.iter().zip(&want).all(|(g, w)| g.same(w)));
    let opts = EvalOptions {
        bulk: false,
        ..EvalOptions::default()
    };
    let mut stats = EvalStats::default();
    let slow = run_function(&p.0, &p.1, args.to_vec(), &opts, &mut stats).expect("runs");
    assert_eq!(stats.fast, FastPaths::default());
    assert!(slow.iter().zip(&want).all(|(g, w)| g.same(w)));
}

#[test]
fn a_map_of_arithmetic_runs_as_register_code() {
    // map (\x -> x * x + 1.0) xs
    let p = main_program(&[("xs", Type::Array(F64, 1))], |b, ps| {
        let r = b.map_fn(&[ps[0]], |b, x| {
            let sq = b.bin(BinOp::Mul, x[0], x[0]);
            vec![b.bin(BinOp::Add, sq, Atom::Const(Scalar::F64(1.0))).into()]
        });
        vec![r[0].into()]
    });
    takes(&p, &[floats(vec![1000])], |f| f.straight_maps);
}

#[test]
fn a_map_of_maps_of_arithmetic_runs_row_by_row_as_register_code() {
    // map2 (map2 (+)) xss yss, as reverse mode adds weight matrices
    let p = main_program(
        &[("xss", Type::Array(F64, 2)), ("yss", Type::Array(F64, 2))],
        |b, ps| {
            let r = b.map_fn(&[ps[0], ps[1]], |b, rows| {
                b.map_fn(&[rows[0], rows[1]], |b, x| {
                    vec![b.bin(BinOp::Add, x[0], x[1]).into()]
                })
                .into_iter()
                .map(Into::into)
                .collect()
            });
            vec![r[0].into()]
        },
    );
    let args = [floats(vec![40, 30]), floats(vec![40, 30])];
    takes(&p, &args, |f| f.straight_row_maps);
}

#[test]
fn a_sum_of_one_operation_folds_straight_from_its_arguments() {
    // reduce (+) 0 (map2 (\a b -> b - a) xs ys), long enough for the
    // chunks after the first to hold whole blocks
    let n = 603 * urchin_eval::testing::BLOCK + 17;
    let p = main_program(
        &[("xs", Type::Array(F64, 1)), ("ys", Type::Array(F64, 1))],
        |b, ps| {
            let op = b.binop_operator(BinOp::Add, F64, Atom::Const(Scalar::F64(0.0)));
            let diff = b.lambda(&[Type::Prim(F64), Type::Prim(F64)], |b, x| {
                vec![b.bin(BinOp::Sub, x[1], x[0]).into()]
            });
            vec![b.reduce(op, Some(diff), &[ps[0], ps[1]])[0].into()]
        },
    );
    let args = [floats(vec![n]), ints_as_floats(n)];
    takes(&p, &args, |f| f.fused_sums);
}

/// `\a b -> let t = a - b in t * t`, what `(xs - ys) * (xs - ys)`
/// becomes.
fn squared_difference(b: &mut Builder) -> urchin_core::ir::Lambda {
    b.lambda(&[Type::Prim(F64), Type::Prim(F64)], |b, x| {
        let t = b.bin(BinOp::Sub, x[0], x[1]);
        vec![b.bin(BinOp::Mul, t, t).into()]
    })
}

#[test]
fn a_sum_of_squared_differences_folds_straight_from_its_arguments() {
    // f64.sum ((xs - ys) * (xs - ys))
    let n = 603 * urchin_eval::testing::BLOCK + 17;
    let p = main_program(
        &[("xs", Type::Array(F64, 1)), ("ys", Type::Array(F64, 1))],
        |b, ps| {
            let op = b.binop_operator(BinOp::Add, F64, Atom::Const(Scalar::F64(0.0)));
            let sq = squared_difference(b);
            vec![b.reduce(op, Some(sq), &[ps[0], ps[1]])[0].into()]
        },
    );
    let args = [floats(vec![n]), ints_as_floats(n)];
    takes(&p, &args, |f| f.fused_sums);
}

#[test]
fn a_squared_distance_in_a_map_is_summed_as_it_is_made() {
    // map (\p -> f64.sum ((p - c) * (p - c))) points: k-means' distances
    let p = main_program(
        &[("points", Type::Array(F64, 2)), ("c", Type::Array(F64, 1))],
        |b, ps| {
            let c = ps[1];
            let r = b.map_fn(&[ps[0]], |b, row| {
                let op = b.binop_operator(BinOp::Add, F64, Atom::Const(Scalar::F64(0.0)));
                let sq = squared_difference(b);
                vec![b.reduce(op, Some(sq), &[row[0], c])[0].into()]
            });
            vec![r[0].into()]
        },
    );
    let args = [floats(vec![3000, 8]), ints_as_floats(8)];
    takes(&p, &args, |f| f.lane_sums);
}

fn ints_as_floats(n: usize) -> Value {
    let data: Vec<Scalar> = (0..n).map(|k| Scalar::F64((k % 11) as f64)).collect();
    Value::Array(Array::from_scalars(F64, vec![n], &data))
}

/// `scan` inside a `map`, with `+` (native) and with an operator that
/// is not recognised: only the first takes the lane scan.
#[test]
fn a_scan_in_a_map_with_a_native_operator_scans_along_the_lane() {
    let scans = |native: bool| {
        main_program(&[("m", Type::Array(I64, 2))], move |b: &mut Builder, ps| {
            let op = if native {
                b.binop_operator(BinOp::Add, I64, Atom::i64(0))
            } else {
                b.operator(&[Type::Prim(I64)], vec![Atom::i64(0)], |b, a, x| {
                    let t = b.bin(BinOp::Add, a[0], x[0]);
                    vec![b.bin(BinOp::Mul, t, Atom::i64(1)).into()]
                })
            };
            let r = b.map_fn(&[ps[0]], |b, row| {
                vec![b.scan(op.clone(), None, &[row[0]])[0].into()]
            });
            vec![r[0].into()]
        })
    };
    let args = [ints(vec![6, 50])];
    takes(&scans(true), &args, |f| f.lane_scans);
    let (general, _) = taken(&scans(false), &args, 1);
    assert_eq!(general.lane_scans, 0, "{general:?}");
}
