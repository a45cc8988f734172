//! Dense linear algebra and the shapes neural networks have: matrix
//! products (and the products reverse mode makes of them) run as blocked
//! matrix multiplies (`eval::gemm`), whose bits do not depend on the
//! thread count and agree with per-element evaluation to rounding; and a
//! guarded gather inside `tabulate_2d` stays a select, building nothing
//! per lane.

use urchin::driver::Session;
use urchin_eval::EvalOptions;
use urchin_eval::threads::Threads;
use urchin_prim::{PrimType, Scalar};
use urchin_runtime::value::{Array, Value};

const PROGRAM: &str = "
def matmul [n][m][p] (a: [n][m]f64) (b: [m][p]f64) : [n][p]f64 =
  map (\\r -> map (\\c -> f64.sum (r * c)) (transpose b)) a
entry product [n][m][p] (a: [n][m]f64) (b: [m][p]f64) = matmul a b
-- A batch of products, and a matrix times each of many vectors.
entry batched [q][n][m][p] (a: [q][n][m]f64) (b: [q][m][p]f64) = map2 matmul a b
entry matvecs [n][m] (a: [n][m]f64) (xs: [][m]f64) = map (\\x -> map (\\r -> f64.sum (r * x)) a) xs
-- Reverse mode's products: `Aᵀ ȳ` per row, and the summed outer products.
entry grad [n][m][p] (a: [n][m]f64) (b: [m][p]f64) =
  vjp (\\(a, b) -> f64.sum (f64.sum (f64.tanh (matmul a b)))) (a, b) 1
";

fn matrix(shape: &[usize], seed: u64) -> Value {
    let len: usize = shape.iter().product();
    let xs: Vec<Scalar> = (0..len as u64)
        .map(|i| Scalar::F64(((i * 7919 + seed * 104_729) % 2000) as f64 / 1000.0 - 1.0))
        .collect();
    Value::Array(Array::from_scalars(PrimType::F64, shape.to_vec(), &xs))
}

fn floats(vs: &[Value]) -> Vec<f64> {
    vs.iter()
        .flat_map(|v| v.array().expect("an array result").to_scalars())
        .map(|x| x.as_f64())
        .collect()
}

fn run(s: &Session, entry: &str, args: &[Value], opts: &EvalOptions) -> Vec<f64> {
    let c = s
        .compile(s.lookup_def(entry).expect("the entry exists"))
        .expect("the entry compiles");
    floats(&s.run(&c, args.to_vec(), opts).expect("the entry runs"))
}

#[test]
fn matrix_products_have_the_same_bits_on_any_thread_count() {
    let mut s = Session::new();
    s.load("<dense>", PROGRAM).expect("the program checks");
    let cases: [(&str, Vec<Value>); 4] = [
        // Large enough to be split across threads (2^20 products a piece).
        (
            "product",
            vec![matrix(&[300, 70], 1), matrix(&[70, 130], 8)],
        ),
        (
            "batched",
            vec![matrix(&[3, 40, 30, 20], 2), matrix(&[3, 30, 20], 3)],
        ),
        (
            "matvecs",
            vec![matrix(&[64, 100], 4), matrix(&[200, 100], 5)],
        ),
        ("grad", vec![matrix(&[500, 100], 6), matrix(&[100, 64], 7)]),
    ];
    for (entry, args) in cases {
        let reference = EvalOptions {
            bulk: false,
            threads: Threads::one(),
            ..EvalOptions::default()
        };
        let want = run(&s, entry, &args, &reference);
        let mut first: Option<Vec<f64>> = None;
        for threads in [1, 2, 7] {
            let opts = EvalOptions {
                threads: Threads::new(threads),
                device: None,
                grain_scale: 0,
                ..EvalOptions::default()
            };
            let got = run(&s, entry, &args, &opts);
            // Per-element evaluation rounds each dot product's sum in
            // another order: the values agree to rounding.
            assert_eq!(got.len(), want.len(), "{entry}");
            for (g, w) in got.iter().zip(&want) {
                assert!(
                    (g - w).abs() <= 1e-12 * w.abs().max(1.0),
                    "{entry}: {g} vs {w}"
                );
            }
            match &first {
                None => first = Some(got),
                Some(f) => assert!(
                    f.iter().zip(&got).all(|(a, b)| a.to_bits() == b.to_bits()),
                    "{entry}: {threads} threads differ from one"
                ),
            }
        }
    }
}

/// The minimal GMM `unpackQ`: an `if` around a gather from the
/// mapped row, inside `tabulate_2d`. With a division that could fail in
/// the index, the `if` used to run each branch on lanes of its own, which
/// copied the row once per element (k·d·d rows: 320 MiB here).
const UNPACK: &str = "
entry with_if [k] [l] (rows: [k][l]f64) (d: i64) : f64 =
  f64.sum (map (\\v -> f64.sum (flatten (tabulate_2d d d (\\i j ->
    if i == j then 0 else v[(d * j + i) % l])))) rows)
entry without_if [k] [l] (rows: [k][l]f64) (d: i64) : f64 =
  f64.sum (map (\\v -> f64.sum (flatten (tabulate_2d d d (\\i j ->
    v[(d * j + i) % l])))) rows)
entry guarded (xs: []i64) (ys: []i64) = map2 (\\x y -> if y != 0 then x / y else 0) xs ys
";

#[test]
fn a_guarded_gather_in_a_tabulate_builds_nothing_per_element() {
    let mut s = Session::new();
    s.load("<unpack>", UNPACK).expect("the program checks");
    let args = vec![matrix(&[5, 2080], 9), Value::Scalar(Scalar::I64(64))];
    let peak = |entry: &str| {
        let c = s
            .compile(s.lookup_def(entry).expect("the entry exists"))
            .expect("the entry compiles");
        let (r, stats) = s.run_with_stats(&c, args.clone(), &EvalOptions::default());
        (
            floats_or_scalar(&r.expect("the entry runs")),
            stats.peak_live_bytes,
        )
    };
    let (with_if, with_bytes) = peak("with_if");
    let (without_if, without_bytes) = peak("without_if");
    assert!(
        with_bytes <= 2 * without_bytes,
        "with the if: {with_bytes} B at the peak, without: {without_bytes} B"
    );
    // The diagonal's elements are left out.
    assert!(with_if < without_if);
    // A guarded division divides where its guard holds, and a division by
    // zero a lane takes is still an error.
    let ints = |xs: &[i64]| {
        let xs: Vec<Scalar> = xs.iter().map(|&x| Scalar::I64(x)).collect();
        Value::Array(Array::from_scalars(PrimType::I64, vec![xs.len()], &xs))
    };
    let c = s
        .compile(s.lookup_def("guarded").expect("the entry exists"))
        .expect("the entry compiles");
    let r = s
        .run(
            &c,
            vec![ints(&[7, 8, -9, 10]), ints(&[2, 0, 4, 0])],
            &EvalOptions::default(),
        )
        .expect("the entry runs");
    let got: Vec<i64> = r[0]
        .array()
        .expect("an array")
        .to_scalars()
        .iter()
        .map(|x| match x {
            Scalar::I64(v) => *v,
            other => panic!("not an i64: {other:?}"),
        })
        .collect();
    assert_eq!(got, [3, 0, -3, 0]);
}

fn floats_or_scalar(vs: &[Value]) -> f64 {
    match &vs[0] {
        Value::Scalar(x) => x.as_f64(),
        other => panic!("not a scalar: {other:?}"),
    }
}
