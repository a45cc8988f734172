//! Histograms with recognised operators on several threads
//! (`kernels::hist_into`): the bits of the sequential fold, whatever the
//! thread count, for the operators regrouped in blocks.

use urchin_core::build::main_program;
use urchin_core::ir::{Atom, BinOpLambda, Type};
use urchin_eval::testing::Regroup;
use urchin_eval::threads::Threads;
use urchin_eval::{EvalOptions, EvalStats, run_function};
use urchin_prim::{BinOp, Native, PrimType, Scalar};
use urchin_runtime::value::{Array, Value};

/// Floats whose order under `min` and `max` is delicate: both zeros, NaNs
/// of both signs with other payloads (a signalling one too), infinities.
fn special_floats() -> Vec<f64> {
    vec![
        0.0,
        -0.0,
        f64::NAN,
        -f64::NAN,
        f64::from_bits(0x7ff8_0000_0000_0123),
        f64::from_bits(0x7ff0_0000_0000_0001),
        f64::INFINITY,
        f64::NEG_INFINITY,
        1.5,
        -2.0,
        f64::MIN_POSITIVE,
    ]
}

/// The claim `Regroup::Ordered` makes of float `min` and `max`: folded
/// over values that are neither zero nor NaN, from a bin that is not a
/// NaN, any grouping gives the same bits.
#[test]
fn float_min_and_max_regroup_over_ordered_values() {
    let bins: Vec<f64> = special_floats()
        .into_iter()
        .filter(|x| !x.is_nan())
        .collect();
    let xs: Vec<f64> = bins.iter().copied().filter(|&x| x != 0.0).collect();
    for (op, g) in [
        (BinOp::Max, <f64 as Native>::max as fn(f64, f64) -> f64),
        (BinOp::Min, <f64 as Native>::min),
    ] {
        let f = BinOpLambda { op, swapped: false };
        assert_eq!(Regroup::of::<f64>(f), Regroup::Ordered);
        for &d in &bins {
            for &a in &xs {
                for &b in &xs {
                    let (l, r) = (g(g(d, a), b), g(d, g(a, b)));
                    assert_eq!(l.to_bits(), r.to_bits(), "{op:?} {d:?} {a:?} {b:?}");
                }
            }
        }
    }
}

/// `reduce_by_index dest op ne is vs` with a recognised operator on `ty`.
fn hist_program(
    ty: PrimType,
    op: BinOp,
    ne: Scalar,
) -> (urchin_core::ir::Program, urchin_core::ir::Function) {
    main_program(
        &[
            ("dest", Type::Array(ty, 1)),
            ("is", Type::Array(PrimType::I64, 1)),
            ("vs", Type::Array(ty, 1)),
        ],
        |b, ps| {
            let op = b.binop_operator(op, ty, Atom::Const(ne));
            vec![b.hist(op, &[ps[0]], ps[1], &[ps[2]])[0].into()]
        },
    )
}

fn array(ty: PrimType, xs: &[Scalar]) -> Value {
    Value::Array(Array::from_scalars(ty, vec![xs.len()], xs))
}

/// The histogram on `threads` threads, splitting however small (so the
/// blocks are many and short).
fn on_threads(
    p: &(urchin_core::ir::Program, urchin_core::ir::Function),
    args: &[Value],
    threads: usize,
) -> Vec<Scalar> {
    let opts = EvalOptions {
        threads: Threads::new(threads),
        grain_scale: 0,
        ..EvalOptions::default()
    };
    let out = run_function(&p.0, &p.1, args.to_vec(), &opts, &mut EvalStats::default())
        .expect("the histogram runs");
    match &out[..] {
        [Value::Array(a)] => a.to_scalars(),
        _ => panic!("not one array: {out:?}"),
    }
}

/// The bits of a scalar (NaN payloads and the sign of zero included).
fn bits(s: &Scalar) -> u64 {
    match *s {
        Scalar::F64(x) => x.to_bits(),
        Scalar::I64(x) => x as u64,
        _ => panic!("an unexpected scalar {s:?}"),
    }
}

/// Indices in and out of range (negative, past the end) for `m` bins.
fn indices(n: usize, m: usize) -> Vec<i64> {
    (0..n)
        .map(|k| ((k * 7919 + k / 3) % (m + 5)) as i64 - 2)
        .collect()
}

/// On 1, 2 and 7 threads, the result is the sequential fold `want`
/// computes, bit for bit.
fn check(
    ty: PrimType,
    op: BinOp,
    ne: Scalar,
    dest: &[Scalar],
    is: &[i64],
    vs: &[Scalar],
    g: impl Fn(Scalar, Scalar) -> Scalar,
) {
    let mut want = dest.to_vec();
    for (&i, &v) in is.iter().zip(vs) {
        if let Some(d) = usize::try_from(i).ok().and_then(|i| want.get_mut(i)) {
            *d = g(*d, v);
        }
    }
    let p = hist_program(ty, op, ne);
    let is_v = array(
        PrimType::I64,
        &is.iter().map(|&i| Scalar::I64(i)).collect::<Vec<_>>(),
    );
    let args = [array(ty, dest), is_v, array(ty, vs)];
    for threads in [1, 2, 7] {
        let got = on_threads(&p, &args, threads);
        let same =
            got.len() == want.len() && got.iter().zip(&want).all(|(a, b)| bits(a) == bits(b));
        assert!(same, "{op:?} on {threads} threads: {got:?}, want {want:?}");
    }
}

/// With NaNs and zeros of both signs among the values (folded in order)
/// and without (regrouped), bins starting at either zero, a NaN or an
/// infinity.
#[test]
fn float_max_and_min_histograms_have_the_sequential_bits_on_any_thread_count() {
    let sp = special_floats();
    let ordered: Vec<f64> = sp
        .iter()
        .copied()
        .filter(|&x| x != 0.0 && !x.is_nan())
        .collect();
    let m = 7;
    let f = |s: Scalar| match s {
        Scalar::F64(x) => x,
        _ => panic!("not an f64"),
    };
    for pool in [&sp, &ordered] {
        for n in [0, 1, 3000] {
            let is = indices(n, m);
            let vs: Vec<Scalar> = (0..n)
                .map(|k| Scalar::F64(pool[(k * 31 + k / 7) % pool.len()] * (1.0 + (k % 13) as f64)))
                .collect();
            for bins in [&sp, &ordered] {
                let dest: Vec<Scalar> = (0..m)
                    .map(|k| Scalar::F64(bins[(k * 5) % bins.len()]))
                    .collect();
                check(
                    PrimType::F64,
                    BinOp::Max,
                    Scalar::F64(f64::NEG_INFINITY),
                    &dest,
                    &is,
                    &vs,
                    |a, x| Scalar::F64(Native::max(f(a), f(x))),
                );
                check(
                    PrimType::F64,
                    BinOp::Min,
                    Scalar::F64(f64::INFINITY),
                    &dest,
                    &is,
                    &vs,
                    |a, x| Scalar::F64(Native::min(f(a), f(x))),
                );
            }
        }
    }
}

/// An integer operator as the test computes it.
type IntOp = fn(i64, i64) -> i64;

#[test]
fn integer_histograms_have_the_sequential_bits_on_any_thread_count() {
    let m = 11;
    for n in [0, 2, 5000] {
        let is = indices(n, m);
        // Large odd values, so that sums and products wrap (and products do
        // not end at zero).
        let vs: Vec<Scalar> = (0..n as i64)
            .map(|k| {
                Scalar::I64((k.wrapping_mul(0x9e37_79b9_7f4a_7c15_u64 as i64) >> (k % 40)) | 1)
            })
            .collect();
        let dest: Vec<Scalar> = (0..m as i64).map(|k| Scalar::I64(k - 3)).collect();
        let f = |s: Scalar| match s {
            Scalar::I64(x) => x,
            _ => panic!("not an i64"),
        };
        let ops: [(BinOp, i64, IntOp); 6] = [
            (BinOp::Add, 0, |a, x| a.wrapping_add(x)),
            (BinOp::Mul, 1, |a, x| a.wrapping_mul(x)),
            (BinOp::Min, i64::MAX, |a, x| Ord::min(a, x)),
            (BinOp::Max, i64::MIN, |a, x| Ord::max(a, x)),
            (BinOp::BitXor, 0, |a, x| a ^ x),
            (BinOp::BitAnd, -1, |a, x| a & x),
        ];
        for (op, ne, g) in ops {
            check(
                PrimType::I64,
                op,
                Scalar::I64(ne),
                &dest,
                &is,
                &vs,
                |a, x| Scalar::I64(g(f(a), f(x))),
            );
        }
    }
}

/// Float sums round, so they are not regrouped: still the sequential
/// fold's bits on any thread count.
#[test]
fn float_sum_histograms_stay_in_order() {
    let m = 5;
    let n = 4000;
    let is = indices(n, m);
    let vs: Vec<Scalar> = (0..n)
        .map(|k| Scalar::F64(1.0 / (k as f64 + 0.3) * 1e10f64.powi((k % 3) as i32)))
        .collect();
    let dest = vec![Scalar::F64(0.0); m];
    let f = |s: Scalar| match s {
        Scalar::F64(x) => x,
        _ => panic!("not an f64"),
    };
    check(
        PrimType::F64,
        BinOp::Add,
        Scalar::F64(0.0),
        &dest,
        &is,
        &vs,
        |a, x| Scalar::F64(f(a) + f(x)),
    );
}
