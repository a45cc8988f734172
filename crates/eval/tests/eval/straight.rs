//! Register code: what compiles, register reuse, and agreement with
//! per-element evaluation.

use crate::{build, f64s, run, run_opts, same};
use proptest::prelude::*;
use urchin_core::build::Builder;
use urchin_core::ir::{Atom, Exp, Function, Program, Type};
use urchin_eval::EvalOptions;
use urchin_eval::testing::{Size, Straight};
use urchin_eval::threads::Threads;
use urchin_prim::{BinOp, PrimType, Scalar, UnOp};
use urchin_runtime::value::Value;

/// Not `copysign`: it copies the sign of a NaN into a number, and
/// which operand's NaN `+` returns (so its sign) is not specified
/// (IEEE 754), so register code and per-element evaluation may
/// differ (`copysign y (sgn x + sgn (log c))` with `c < 0` gave -0.0
/// in register code and 0.0 per element for one `y` of 0). Futhark's test
/// programs check `copysign` on numbers (`prelude_float.fut`).
const BINS: [BinOp; 10] = [
    BinOp::Add,
    BinOp::Sub,
    BinOp::Mul,
    BinOp::Div,
    BinOp::Pow,
    BinOp::Min,
    BinOp::Max,
    BinOp::Atan2,
    BinOp::Hypot,
    BinOp::NextAfter,
];
const UNS: [UnOp; 8] = [
    UnOp::Neg,
    UnOp::Abs,
    UnOp::Sgn,
    UnOp::Exp,
    UnOp::Log,
    UnOp::Sqrt,
    UnOp::Tanh,
    UnOp::Sin,
];

/// `map (\x y -> ..) xs ys` of straight-line code drawn from `ops`
/// over `x`, `y`, the free scalar `c` and constants, with one to three
/// results.
fn program(ops: &[(usize, usize, usize)], results: usize) -> (Program, Function) {
    let f = Type::Prim(PrimType::F64);
    let params = [
        ("xs", Type::Array(PrimType::F64, 1)),
        ("ys", Type::Array(PrimType::F64, 1)),
        ("c", f),
    ];
    build(&params, |b: &mut Builder, ps| {
        let c = ps[2];
        let out = b.map_fn(&[ps[0], ps[1]], |b, xy| {
            let mut pool: Vec<Atom> = vec![
                xy[0].into(),
                xy[1].into(),
                c.into(),
                Atom::Const(Scalar::F64(0.0)),
                Atom::Const(Scalar::F64(-1.5)),
            ];
            for &(op, a, bb) in ops {
                let (a, bb) = (pool[a % pool.len()], pool[bb % pool.len()]);
                let v = if op % 2 == 0 {
                    b.bin(BINS[op / 2 % BINS.len()], a, bb)
                } else {
                    b.un(UNS[op / 2 % UNS.len()], a)
                };
                pool.push(v.into());
            }
            pool.iter().rev().take(results).copied().collect()
        });
        out.into_iter().map(Atom::from).collect()
    })
}

fn straight(p: &(Program, Function)) -> Option<Straight> {
    p.1.body.stms.iter().find_map(|s| match &s.exp {
        Exp::Map { lam, .. } => {
            let mut free = std::collections::HashSet::new();
            urchin_core::visit::free_in_body(&lam.body, &mut free);
            let free: Vec<_> = free.into_iter().collect();
            Straight::compile(&p.0.vars, &lam.body, &free)
        }
        _ => None,
    })
}

fn compiled(p: &(Program, Function)) -> bool {
    straight(p).is_some()
}

#[test]
fn a_chain_of_operations_reuses_its_registers() {
    // `x - 0.0 - 0.0 ...`, each step reading the one before (`x` is
    // the pool's first value, the constant 0.0 its fourth).
    let chain: Vec<_> = (0..20)
        .map(|k| (2, if k == 0 { 0 } else { 4 + k }, 3))
        .collect();
    let s = straight(&program(&chain, 1)).expect("float arithmetic compiles");
    // The input `x`, one register for the constant, and two for the
    // chain (the one read and the one written).
    let want = Size {
        instructions: 20,
        inputs: 1,
        constants: 1,
        registers: 4,
    };
    assert_eq!(s.size(), want);
}

fn values(seed: u64, n: usize) -> Vec<f64> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            match x % 10 {
                0 => 0.0,
                1 => f64::NAN,
                2 => f64::INFINITY,
                k => (k as f64 - 6.0) * 0.75 + (x % 7) as f64 / 8.0,
            }
        })
        .collect()
}

#[test]
fn float_arithmetic_compiles_and_other_code_does_not() {
    assert!(compiled(&program(&[(0, 0, 1), (7, 5, 0), (8, 2, 3)], 2)));
    // A comparison leaves floats.
    let cmp = build(&[("xs", Type::Array(PrimType::F64, 1))], |b, ps| {
        let out = b.map_fn(&[ps[0]], |b, x| vec![b.bin(BinOp::Lt, x[0], x[0]).into()]);
        vec![out[0].into()]
    });
    assert!(!compiled(&cmp));
    // So does integer arithmetic, which may fail.
    let int = build(&[("xs", Type::Array(PrimType::I64, 1))], |b, ps| {
        let out = b.map_fn(&[ps[0]], |b, x| vec![b.bin(BinOp::Div, x[0], x[0]).into()]);
        vec![out[0].into()]
    });
    assert!(!compiled(&int));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(urchin_test_env::proptest_cases(300)))]

    /// Register code agrees bit for bit with per-element evaluation,
    /// over several blocks, and with any number of threads.
    #[test]
    fn register_code_agrees_with_per_element_evaluation(
        ops in proptest::collection::vec((0usize..40, 0usize..40, 0usize..40), 1..24),
        results in 1usize..4,
        n in 0usize..700,
        seed in any::<u64>(),
    ) {
        let p = program(&ops, results);
        prop_assert!(compiled(&p));
        let args = vec![
            f64s(&values(seed, n)),
            f64s(&values(seed.rotate_left(9), n)),
            Value::Scalar(Scalar::F64(values(seed.rotate_left(3), 1)[0])),
        ];
        let one = run(&p, args.clone()).expect("float arithmetic cannot fail");
        for threads in [2, 7] {
            let opts = EvalOptions { threads: Threads::new(threads), grain_scale: 0, ..EvalOptions::default() };
            let many = run_opts(&p, args.clone(), &opts).expect("float arithmetic cannot fail");
            prop_assert!(one.iter().zip(&many).all(|(a, b)| same(a, b)), "{threads} threads");
        }
    }
}
