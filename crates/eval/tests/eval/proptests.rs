//! Property tests: random core IR must evaluate to the same values (or the
//! same error) in bulk and one element at a time.
//!
//! A program is generated from a seed: a map over two arrays whose lambda
//! is random scalar code (arithmetic that may divide by zero, comparisons,
//! selects, conversions, gathers from free arrays that may be out of
//! bounds, `if`s, loops with lane-varying trip counts, `while` loops,
//! in-place updates, and nested map-reductions with recognised and
//! unrecognised operators), followed by reductions and scans of its
//! results, and a doubly nested map. Integer arithmetic wraps and float
//! reductions use recognised operators (folded natively, in the fixed
//! block order of every reduction), so the results must agree exactly.

use crate::{build, f64s, i64s, run, run_opts, same};
use proptest::prelude::*;
use urchin_core::build::Builder;
use urchin_core::ir::{Atom, DimIndex, Lambda, Operator, Type, Var};
use urchin_eval::EvalOptions;
use urchin_eval::threads::Threads;
use urchin_prim::{BinOp, PrimType, Scalar, UnOp};
use urchin_runtime::value::Value;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick(&mut self, xs: &[Atom]) -> Atom {
        xs[self.below(xs.len())]
    }

    fn f64(&mut self) -> f64 {
        match self.below(12) {
            0 => 0.0,
            1 => -1.5,
            2 => f64::NAN,
            _ => (self.below(2001) as f64 - 1000.0) / 100.0,
        }
    }

    fn i64(&mut self) -> i64 {
        self.below(21) as i64 - 10
    }
}

/// The scalars in scope, by type.
#[derive(Clone)]
struct Pool {
    f: Vec<Atom>,
    i: Vec<Atom>,
    b: Vec<Atom>,
}

/// The free arrays the generated code reads.
struct Ctx {
    arr_f: Var,
    arr_i: Var,
    small_f: Var,
    small_i: Var,
    m: Var,
    /// An integer accumulator the code may add to.
    acc: Option<Var>,
}

fn f_ty() -> Type {
    Type::Prim(PrimType::F64)
}

fn i_ty() -> Type {
    Type::Prim(PrimType::I64)
}

/// `\a b -> let t = a + b in t * 1`: associative, not recognised.
fn slow_add(b: &mut Builder) -> Operator {
    b.operator(&[i_ty()], vec![Atom::i64(0)], |b, a, x| {
        let t = b.bin(BinOp::Add, a[0], x[0]);
        vec![b.bin(BinOp::Mul, t, Atom::i64(1)).into()]
    })
}

/// A non-negative index below `m` (when `m > 0`) derived from `k`, or
/// occasionally `k` itself.
fn index_from(r: &mut Rng, b: &mut Builder, cx: &Ctx, k: Atom) -> Atom {
    if r.below(10) == 0 {
        k
    } else {
        b.bin(BinOp::Mod, k, cx.m).into()
    }
}

fn gen_stms(r: &mut Rng, b: &mut Builder, pool: &mut Pool, cx: &Ctx, count: usize, depth: usize) {
    for _ in 0..count {
        gen_stm(r, b, pool, cx, depth);
    }
}

/// A body over `pool` returning one float and one integer.
fn gen_body(r: &mut Rng, b: &mut Builder, pool: &Pool, cx: &Ctx, depth: usize) -> Vec<Atom> {
    let mut p = pool.clone();
    let n = 1 + r.below(4);
    gen_stms(r, b, &mut p, cx, n, depth);
    vec![r.pick(&p.f), r.pick(&p.i)]
}

/// `\y -> ..`: a generated body over the pool and a float `y` (`float`)
/// or an integer one, giving its result of `y`'s type.
fn element_lambda(
    r: &mut Rng,
    b: &mut Builder,
    pool: &Pool,
    cx: &Ctx,
    depth: usize,
    float: bool,
) -> Lambda {
    let mut p = pool.clone();
    let mut r1 = Rng(r.next() | 1);
    let t = if float { f_ty() } else { i_ty() };
    b.lambda(&[t], |b, y| {
        if float {
            p.f.push(y[0].into())
        } else {
            p.i.push(y[0].into())
        }
        vec![gen_body(&mut r1, b, &p, cx, depth - 1)[usize::from(!float)]]
    })
}

/// `x op y`, with `op` drawn from `ops` and the operands from `from`.
fn bin_of(r: &mut Rng, b: &mut Builder, ops: &[BinOp], from: &[Atom]) -> Var {
    let op = ops[r.below(ops.len())];
    let (x, y) = (r.pick(from), r.pick(from));
    b.bin(op, x, y)
}

fn gen_stm(r: &mut Rng, b: &mut Builder, pool: &mut Pool, cx: &Ctx, depth: usize) {
    let kinds = if depth > 0 { 19 } else { 9 };
    match r.below(kinds) {
        17 if cx.acc.is_some() => {
            // upd acc [k % m] v
            let (k, v) = (r.pick(&pool.i), r.pick(&pool.i));
            let k = index_from(r, b, cx, k);
            if let Some(acc) = cx.acc {
                b.upd_acc(acc, vec![k], v);
            }
        }
        0 | 1 => {
            use BinOp::*;
            let v = bin_of(r, b, &[Add, Sub, Mul, Div, Min, Max], &pool.f);
            pool.f.push(v.into());
        }
        2 => {
            use BinOp::*;
            let ops = [Add, Sub, Mul, Min, Max, BitXor, Div, Mod, Quot, Rem];
            let v = bin_of(r, b, &ops, &pool.i);
            pool.i.push(v.into());
        }
        3 => {
            use BinOp::*;
            let from = if r.below(2) == 0 { &pool.f } else { &pool.i };
            let v = bin_of(r, b, &[Lt, Le, Eq, Neq], from);
            pool.b.push(v.into());
        }
        4 => {
            let v = match r.below(3) {
                0 => {
                    let x = r.pick(&pool.b);
                    b.un(UnOp::Not, x)
                }
                k => {
                    let (x, y) = (r.pick(&pool.b), r.pick(&pool.b));
                    b.bin(if k == 1 { BinOp::LogAnd } else { BinOp::LogOr }, x, y)
                }
            };
            pool.b.push(v.into());
        }
        5 => {
            let ops = [
                UnOp::Neg,
                UnOp::Abs,
                UnOp::Sqrt,
                UnOp::Sin,
                UnOp::Floor,
                UnOp::Tanh,
                UnOp::Exp,
                UnOp::IsNan,
            ];
            let op = ops[r.below(ops.len())];
            let x = r.pick(&pool.f);
            let v = b.un(op, x);
            if op == UnOp::IsNan {
                pool.b.push(v.into());
            } else {
                pool.f.push(v.into());
            }
        }
        6 => {
            if r.below(2) == 0 {
                let x = r.pick(&pool.i);
                pool.f.push(b.convert(PrimType::F64, x).into());
            } else {
                let x = r.pick(&pool.f);
                pool.i.push(b.convert(PrimType::I64, x).into());
            }
        }
        7 => {
            let c = r.pick(&pool.b);
            if r.below(2) == 0 {
                let (x, y) = (r.pick(&pool.f), r.pick(&pool.f));
                pool.f.push(b.select(c, x, y).into());
            } else {
                let (x, y) = (r.pick(&pool.i), r.pick(&pool.i));
                pool.i.push(b.select(c, x, y).into());
            }
        }
        8 => {
            let k = r.pick(&pool.i);
            let k = index_from(r, b, cx, k);
            if r.below(2) == 0 {
                pool.f.push(b.index1(cx.arr_f, k).into());
            } else {
                pool.i.push(b.index1(cx.arr_i, k).into());
            }
        }
        9 => {
            let c = r.pick(&pool.b);
            let (mut r1, mut r2) = (Rng(r.next() | 1), Rng(r.next() | 1));
            let p = pool.clone();
            let out = b.if_(
                c,
                |b| gen_body(&mut r1, b, &p, cx, depth - 1),
                |b| gen_body(&mut r2, b, &p, cx, depth - 1),
            );
            pool.f.push(out[0].into());
            pool.i.push(out[1].into());
        }
        10 => {
            let bound: Atom = if r.below(2) == 0 {
                let k = r.pick(&pool.i);
                b.bin(BinOp::Mod, k, Atom::i64(5)).into()
            } else {
                Atom::i64(3)
            };
            let init = vec![r.pick(&pool.f), r.pick(&pool.i)];
            let p = pool.clone();
            let mut r1 = Rng(r.next() | 1);
            let out = b.loop_for(init, bound, |b, k, ps| {
                let mut p = p;
                p.f.push(ps[0].into());
                p.i.push(ps[1].into());
                p.i.push(k.into());
                let n = 1 + r1.below(3);
                gen_stms(&mut r1, b, &mut p, cx, n, depth - 1);
                vec![
                    *p.f.last().expect("non-empty"),
                    *p.i.last().expect("non-empty"),
                ]
            });
            pool.f.push(out[0].into());
            pool.i.push(out[1].into());
        }
        11 => {
            // reduce (+) 0 (map (\y -> ..) small_f)
            let pre = element_lambda(r, b, pool, cx, depth, true);
            let op = b.binop_operator(BinOp::Add, PrimType::F64, Atom::Const(Scalar::F64(0.0)));
            pool.f
                .push(b.reduce(op, Some(pre), &[cx.small_f])[0].into());
        }
        12 => {
            // reduce slow_add 0 (map (\y -> ..) small_i)
            let pre = element_lambda(r, b, pool, cx, depth, false);
            let op = slow_add(b);
            pool.i
                .push(b.reduce(op, Some(pre), &[cx.small_i])[0].into());
        }
        13 => {
            // loop (k, acc) = (|i| % 6, f) while k > 0 do (k - 1, acc * 0.5 + k)
            let k0 = r.pick(&pool.i);
            let a = b.un(UnOp::Abs, k0);
            let k0 = b.bin(BinOp::Mod, a, Atom::i64(6));
            let init = vec![k0.into(), r.pick(&pool.f)];
            let out = b.loop_while(
                init,
                |b, ps| b.bin(BinOp::Gt, ps[0], Atom::i64(0)).into(),
                |b, ps| {
                    let k1 = b.bin(BinOp::Sub, ps[0], Atom::i64(1));
                    let h = b.bin(BinOp::Mul, ps[1], Atom::Const(Scalar::F64(0.5)));
                    let kf = b.convert(PrimType::F64, ps[0]);
                    vec![k1.into(), b.bin(BinOp::Add, h, kf).into()]
                },
            );
            pool.f.push(out[1].into());
        }
        14 => {
            // let c = copy arr_i with [k % m] = v in c[k' % m]
            let (k, v, k2) = (r.pick(&pool.i), r.pick(&pool.i), r.pick(&pool.i));
            let k = index_from(r, b, cx, k);
            let k2 = index_from(r, b, cx, k2);
            let c = b.copy(cx.arr_i);
            let c2 = b.update(c, vec![DimIndex::Fix(k)], v);
            pool.i.push(b.index1(c2, k2).into());
        }
        15 => {
            // (scan (+) 0 (map (\y -> ..) small_i))[k % len]
            let pre = element_lambda(r, b, pool, cx, depth, false);
            let op = if r.below(2) == 0 {
                slow_add(b)
            } else {
                b.binop_operator(BinOp::Add, PrimType::I64, Atom::i64(0))
            };
            let s = b.scan(op, Some(pre), &[cx.small_i])[0];
            let len = b.size(s, 0);
            let k = r.pick(&pool.i);
            let at = b.bin(BinOp::Mod, k, len);
            pool.i.push(b.index1(s, at).into());
        }
        18 => {
            // reduce (+) 0 (map2 op small zs), zs = map (\y -> y * c) small:
            // a sum of an element-wise operation, fused inside maps
            // (`kernels::fold_map2_rows`), over operands broadcast
            // differently.
            let float = r.below(2) == 0;
            let (small, t, c) = if float {
                (cx.small_f, PrimType::F64, r.pick(&pool.f))
            } else {
                (cx.small_i, PrimType::I64, r.pick(&pool.i))
            };
            let ty = Type::Prim(t);
            let scale = b.lambda(&[ty], |b, y| vec![b.bin(BinOp::Mul, y[0], c).into()]);
            let zs = b.map(scale, &[small])[0];
            let ops = [BinOp::Mul, BinOp::Add, BinOp::Sub, BinOp::Min, BinOp::Max];
            let op = ops[r.below(ops.len())];
            let swapped = r.below(2) == 0;
            let pre = b.lambda(&[ty, ty], |b, v| {
                let (x, y) = if swapped { (v[1], v[0]) } else { (v[0], v[1]) };
                vec![b.bin(op, x, y).into()]
            });
            let add = b.binop_operator(BinOp::Add, t, Atom::Const(Scalar::zero(t)));
            let sum = b.reduce(add, Some(pre), &[small, zs])[0].into();
            if float {
                pool.f.push(sum);
            } else {
                pool.i.push(sum);
            }
        }
        _ => {
            // A guarded gather: if k < len then arr_f[k] else 0
            let k = r.pick(&pool.i);
            let len = b.size(cx.arr_f, 0);
            let lo = b.bin(BinOp::Le, Atom::i64(0), k);
            let hi = b.bin(BinOp::Lt, k, len);
            let ok = b.bin(BinOp::LogAnd, lo, hi);
            let out = b.if_(
                ok,
                |b| vec![b.index1(cx.arr_f, k).into()],
                |_| vec![Atom::Const(Scalar::F64(0.0))],
            );
            pool.f.push(out[0].into());
        }
    }
}

/// The parameters of generated programs.
const PARAMS: [(&str, PrimType); 7] = [
    ("xs", PrimType::F64),
    ("ks", PrimType::I64),
    ("arr_f", PrimType::F64),
    ("arr_i", PrimType::I64),
    ("small_f", PrimType::F64),
    ("small_i", PrimType::I64),
    ("m", PrimType::I64),
];

/// The parameters of the generated programs: `m` a scalar, the rest
/// one-dimensional arrays.
fn params() -> Vec<(&'static str, Type)> {
    PARAMS
        .iter()
        .map(|(n, t)| {
            (
                *n,
                if *n == "m" {
                    Type::Prim(*t)
                } else {
                    Type::Array(*t, 1)
                },
            )
        })
        .collect()
}

fn program(seed: u64) -> (urchin_core::ir::Program, urchin_core::ir::Function) {
    build(&params(), |b, ps| {
        let mut cx = Ctx {
            arr_f: ps[2],
            arr_i: ps[3],
            small_f: ps[4],
            small_i: ps[5],
            m: ps[6],
            acc: None,
        };
        let mut r = Rng(seed | 1);
        let base = Pool {
            f: vec![
                Atom::Const(Scalar::F64(1.5)),
                Atom::Const(Scalar::F64(-2.0)),
            ],
            i: vec![Atom::i64(3), Atom::i64(-1), ps[6].into()],
            b: vec![Atom::Const(Scalar::Bool(true))],
        };
        let depth = 1 + r.below(2);
        let mut r1 = Rng(r.next() | 1);
        let bp = base.clone();
        // with_acc (copy arr_i) (\acc -> (acc, map (\x k -> ..) xs ks))
        let dest = b.copy(cx.arr_i);
        let out = b.with_acc(&[dest], |b, accs| {
            cx.acc = Some(accs[0]);
            let out = b.map_fn(&[ps[0], ps[1]], |b, xk| {
                let mut p = bp;
                p.f.push(xk[0].into());
                p.i.push(xk[1].into());
                let n = 2 + r1.below(6);
                gen_stms(&mut r1, b, &mut p, &cx, n, depth);
                vec![
                    *p.f.last().expect("non-empty"),
                    *p.i.last().expect("non-empty"),
                ]
            });
            vec![accs[0].into(), out[0].into(), out[1].into()]
        });
        cx.acc = None;
        let (added, rf, ri) = (out[0], out[1], out[2]);
        let add = b.binop_operator(BinOp::Add, PrimType::F64, Atom::Const(Scalar::F64(0.0)));
        let total = b.reduce(add, None, &[rf])[0];
        let op = slow_add(b);
        let itotal = b.reduce(op.clone(), None, &[ri])[0];
        let sc = b.scan(op, None, &[ri])[0];
        // A doubly nested map: map (\x k -> map (\y -> ..) small_f) xs ks
        let mut r2 = Rng(r.next() | 1);
        let bp = base.clone();
        let rows = b.map_fn(&[ps[0], ps[1]], |b, xk| {
            let (x, k) = (xk[0], xk[1]);
            let inner = b.map_fn(&[cx.small_f], |b, y| {
                let mut p = bp;
                p.f.extend([Atom::from(x), Atom::from(y[0])]);
                p.i.push(k.into());
                let n = 1 + r2.below(5);
                gen_stms(&mut r2, b, &mut p, &cx, n, 1);
                vec![
                    *p.f.last().expect("non-empty"),
                    *p.i.last().expect("non-empty"),
                ]
            });
            vec![inner[0].into(), inner[1].into()]
        });
        vec![
            added.into(),
            rf.into(),
            ri.into(),
            total.into(),
            itotal.into(),
            sc.into(),
            rows[0].into(),
            rows[1].into(),
        ]
    })
}

fn inputs(seed: u64, n: usize, m: usize, s: usize) -> Vec<Value> {
    let mut r = Rng(seed.rotate_left(17) | 1);
    let fs = |r: &mut Rng, k: usize| f64s(&(0..k).map(|_| r.f64()).collect::<Vec<_>>());
    let is = |r: &mut Rng, k: usize| i64s(&(0..k).map(|_| r.i64()).collect::<Vec<_>>());
    vec![
        fs(&mut r, n),
        is(&mut r, n),
        fs(&mut r, m),
        is(&mut r, m),
        fs(&mut r, s),
        is(&mut r, s),
        Value::Scalar(Scalar::I64(m as i64)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(urchin_test_env::proptest_cases(400)))]

    #[test]
    fn bulk_agrees_with_per_element(seed in any::<u64>(), n in 0usize..40, m in 1usize..6, s in 0usize..5) {
        // `run` panics if the two evaluations disagree.
        let _ = run(&program(seed), inputs(seed, n, m, s));
    }
}

/// The program's results (or error) with `threads` threads, splitting
/// element-wise work however small.
fn on_threads(seed: u64, args: Vec<Value>, threads: usize) -> Result<Vec<Value>, String> {
    let opts = EvalOptions {
        threads: Threads::new(threads),
        grain_scale: 0,
        ..EvalOptions::default()
    };
    run_opts(&program(seed), args, &opts).map_err(|e| format!("{e:?}"))
}

/// Whether two runs gave the same bits (or the same error).
fn agree(
    one: &Result<Vec<Value>, String>,
    many: &Result<Vec<Value>, String>,
) -> Result<(), String> {
    match (one, many) {
        (Ok(a), Ok(b)) if a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y)) => Ok(()),
        (Err(a), Err(b)) if a == b => Ok(()),
        (a, b) => Err(format!("1 thread {a:?} but {b:?}")),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(urchin_test_env::proptest_cases(200)))]

    #[test]
    fn results_do_not_depend_on_threads(seed in any::<u64>(), n in 0usize..300, m in 1usize..6, s in 0usize..5) {
        let args = inputs(seed, n, m, s);
        let one = on_threads(seed, args.clone(), 1);
        for t in [2, 7] {
            let r = agree(&one, &on_threads(seed, args.clone(), t));
            prop_assert!(r.is_ok(), "{} threads: {:?}", t, r);
        }
    }
}

#[test]
fn results_do_not_depend_on_threads_on_inputs_of_several_blocks() {
    // Longer than a reduction's block (`blocks.rs`), so that blocks end
    // inside chunks and chunks inside blocks.
    for seed in 1..12u64 {
        let args = inputs(seed, 2 * urchin_eval::testing::BLOCK + 100, 4, 3);
        let one = on_threads(seed * 7919, args.clone(), 1);
        for t in [2, 7] {
            let r = agree(&one, &on_threads(seed * 7919, args.clone(), t));
            assert!(r.is_ok(), "seed {seed}, {t} threads: {r:?}");
        }
    }
}

#[test]
fn bulk_agrees_on_long_inputs() {
    // Long enough for several chunks and for tree reductions.
    for seed in 1..40u64 {
        let _ = run(&program(seed * 7919), inputs(seed, 5000, 4, 3));
    }
}

#[test]
fn bulk_loops_end_in_maps_over_empty_arrays() {
    // A `while` loop in a map over the empty `small_f` whose condition
    // varies only over the enclosing map's lanes once looped forever.
    let seed = 16546958893370332441;
    let _ = run(&program(seed), inputs(seed, 25, 5, 0));
}

/// `withacc (copy arr_f) (\acc -> map (\x k -> upd acc [k % m] (x * x + x)) xs ks)`
/// float additions, whose sum depends on their order, from chunks that
/// workers evaluate.
fn float_accumulator() -> (urchin_core::ir::Program, urchin_core::ir::Function) {
    build(&params(), |b, ps| {
        let dest = b.copy(ps[2]);
        let out = b.with_acc(&[dest], |b, accs| {
            let acc = accs[0];
            let ys = b.map_fn(&[ps[0], ps[1]], |b, xk| {
                let sq = b.bin(BinOp::Mul, xk[0], xk[0]);
                let v = b.bin(BinOp::Add, sq, xk[0]);
                let k = b.bin(BinOp::Mod, xk[1], ps[6]);
                b.upd_acc(acc, vec![k.into()], v);
                // Not the accumulator: a map returning one stays on the
                // calling thread.
                vec![v.into()]
            });
            vec![acc.into(), ys[0].into()]
        });
        vec![out[0].into(), out[1].into()]
    })
}

#[test]
fn accumulators_do_not_depend_on_threads() {
    let p = float_accumulator();
    for (seed, n) in [
        (1u64, 5 * urchin_eval::testing::BLOCK + 7),
        (2, 300),
        (3, 1),
    ] {
        let args = inputs(seed, n, 3, 2);
        // One element at a time, the additions in element order.
        let per = run(&p, args.clone()).map_err(|e| format!("{e:?}"));
        if n > 1 {
            let added = per.as_ref().map(|r| !same(&r[0], &args[2]));
            assert_eq!(added, Ok(true), "the map added nothing");
        }
        for t in [1, 2, 7] {
            let opts = EvalOptions {
                threads: Threads::new(t),
                grain_scale: 0,
                ..EvalOptions::default()
            };
            let r = run_opts(&p, args.clone(), &opts).map_err(|e| format!("{e:?}"));
            assert!(
                agree(&per, &r).is_ok(),
                "{n} elements, {t} threads: {per:?} {r:?}"
            );
        }
    }
}
