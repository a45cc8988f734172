//! Benchmarks of the evaluator on hand-built core IR, in bulk and per
//! element. Run with `cargo bench --bench eval`; prints the median time of
//! several runs of each.

use std::time::{Duration, Instant};
use urchin_core::build::{Builder, main_program};
use urchin_core::ir::{Atom, Function, Lambda, Program, Type};
use urchin_eval::{EvalOptions, EvalStats, run_function};
use urchin_prim::{BinOp, PrimType, Scalar};
use urchin_runtime::value::{Array, Value};

const F64: PrimType = PrimType::F64;

fn f(x: f64) -> Atom {
    Atom::Const(Scalar::F64(x))
}

/// Deterministic pseudo-random numbers in [0, 1).
fn randoms(n: usize, mut seed: u64) -> Vec<f64> {
    (0..n)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64
        })
        .collect()
}

fn array(shape: &[usize], data: Vec<f64>) -> Value {
    Value::Array(Array::F64(
        ndarray::ArcArray::from_shape_vec(ndarray::IxDyn(shape), data).expect("shape matches data"),
    ))
}

fn square(b: &mut Builder) -> Lambda {
    b.lambda(&[Type::Prim(F64)], |b, x| {
        vec![b.bin(BinOp::Mul, x[0], x[0]).into()]
    })
}

/// `reduce (+) 0 (map (\x -> x * x) xs)`, the map fused into the reduction
/// (`fused`) or not.
fn sum_of_squares(fused: bool) -> (Program, Function) {
    main_program(&[("xs", Type::Array(F64, 1))], |b, ps| {
        let add = b.binop_operator(BinOp::Add, F64, f(0.0));
        let sq = square(b);
        let r = if fused {
            b.reduce(add, Some(sq), &[ps[0]])
        } else {
            let ys = b.map(sq, &[ps[0]]);
            b.reduce(add, None, &ys)
        };
        vec![r[0].into()]
    })
}

/// The k-means cost:
/// `reduce (+) 0 (map (\p -> reduce min inf (map (\c -> reduce (+) 0
/// (map2 (\a b -> let d = a - b in d * d) p c)) centers)) points)`.
fn kmeans_cost() -> (Program, Function) {
    let params = [
        ("points", Type::Array(F64, 2)),
        ("centers", Type::Array(F64, 2)),
    ];
    main_program(&params, |b, ps| {
        let centers = ps[1];
        let row = Type::Array(F64, 1);
        let per_point = b.lambda(&[row], |b, p| {
            let p = p[0];
            let dist = b.lambda(&[row], |b, c| {
                let sq_diff = b.lambda(&[Type::Prim(F64), Type::Prim(F64)], |b, ab| {
                    let d = b.bin(BinOp::Sub, ab[0], ab[1]);
                    vec![b.bin(BinOp::Mul, d, d).into()]
                });
                let add = b.binop_operator(BinOp::Add, F64, f(0.0));
                vec![b.reduce(add, Some(sq_diff), &[p, c[0]])[0].into()]
            });
            let min = b.binop_operator(BinOp::Min, F64, f(f64::INFINITY));
            vec![b.reduce(min, Some(dist), &[centers])[0].into()]
        });
        let add = b.binop_operator(BinOp::Add, F64, f(0.0));
        vec![b.reduce(add, Some(per_point), &[ps[0]])[0].into()]
    })
}

/// `loop acc = 0 for i < n do acc + i * i`: the scalar path.
fn scalar_loop() -> (Program, Function) {
    main_program(&[("n", Type::Prim(PrimType::I64))], |b, ps| {
        let r = b.loop_for(vec![Atom::i64(0)], ps[0], |b, i, acc| {
            let sq = b.bin(BinOp::Mul, i, i);
            vec![b.bin(BinOp::Add, acc[0], sq).into()]
        });
        vec![b.convert(F64, r[0]).into()]
    })
}

/// `reduce (+) 0 (map (\x -> loop a = x for i < 100 do a * 0.99 + 1) xs)`:
/// a loop in lifted code.
fn map_of_loops() -> (Program, Function) {
    main_program(&[("xs", Type::Array(F64, 1))], |b, ps| {
        let body = b.lambda(&[Type::Prim(F64)], |b, x| {
            let r = b.loop_for(vec![x[0].into()], Atom::i64(100), |b, _, a| {
                let m = b.bin(BinOp::Mul, a[0], f(0.99));
                vec![b.bin(BinOp::Add, m, f(1.0)).into()]
            });
            vec![r[0].into()]
        });
        let add = b.binop_operator(BinOp::Add, F64, f(0.0));
        vec![b.reduce(add, Some(body), &[ps[0]])[0].into()]
    })
}

/// The median of `reps` runs, and the result of the last.
fn time(p: &(Program, Function), args: &[Value], bulk: bool, reps: usize) -> (Duration, f64) {
    let opts = EvalOptions {
        bulk,
        ..EvalOptions::default()
    };
    let mut times = Vec::with_capacity(reps);
    let mut result = 0.0;
    for _ in 0..reps {
        let args = args.to_vec();
        let t = Instant::now();
        let r = run_function(&p.0, &p.1, args, &opts, &mut EvalStats::default())
            .expect("benchmark runs");
        times.push(t.elapsed());
        if let Some(Value::Scalar(Scalar::F64(x))) = r.first() {
            result = *x;
        }
    }
    times.sort();
    (times[reps / 2], result)
}

fn report(name: &str, p: &(Program, Function), args: &[Value], bulk: bool, reps: usize) {
    let mode = if bulk { "bulk" } else { "per-element" };
    // `cargo bench --bench eval -- WORD` runs the benchmarks whose name or
    // mode contains WORD.
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let label = format!("{name} {mode}");
    if !filter.iter().all(|w| label.contains(w.as_str())) {
        return;
    }
    let (t, r) = time(p, args, bulk, reps);
    println!(
        "{name:<36} {mode:<12} {:>10.2} ms   (result {r:.6e})",
        t.as_secs_f64() * 1e3
    );
}

fn main() {
    let n = 10_000_000;
    let xs = vec![array(&[n], randoms(n, 0x2545_F491_4F6C_DD1D))];
    let (np, d, k) = (100_000, 8, 16);
    let km = vec![
        array(&[np, d], randoms(np * d, 0x9E37_79B9_7F4A_7C15)),
        array(&[k, d], randoms(k * d, 0xD1B5_4A32_D192_ED03)),
    ];
    let n_loop = vec![Value::Scalar(Scalar::I64(10_000_000))];
    let xs6 = vec![array(&[1_000_000], randoms(1_000_000, 7))];
    let sos = (
        "sum of squares (fused), n = 10^7",
        sum_of_squares(true),
        &xs,
    );
    let sos2 = (
        "sum of squares (map, reduce), n = 10^7",
        sum_of_squares(false),
        &xs,
    );
    let kmc = ("k-means cost, n = 10^5, d = 8, k = 16", kmeans_cost(), &km);
    let sl = ("scalar loop, 10^7 iterations", scalar_loop(), &n_loop);
    let ml = ("map of 100-iteration loops, n = 10^6", map_of_loops(), &xs6);
    println!("NumPy for scale: sum of squares ~23 ms, k-means cost ~115 ms");
    for (name, p, args) in [&sos, &sos2, &kmc, &sl, &ml] {
        report(name, p, args, true, 7);
    }
    for (name, p, args) in [&sos, &kmc] {
        report(name, p, args, false, 3);
    }
}
