//! Strip-mining (`#[stripmine(k)]`) trades recomputation for checkpoint
//! memory in reverse mode: a loop of n = 10⁴ iterations checkpoints n
//! states with k = 1, and about k·n^(1/k) with k = 2, 3. The gradients
//! must not change. Prints the checkpoint bytes, peak live bytes and run
//! times (`--nocapture`). And without loops, the gradients of the examples
//! keep close to the memory of their functions.

use std::time::Instant;
use urchin::driver::Session;
use urchin_eval::EvalOptions;
use urchin_prim::{PrimType, Scalar};
use urchin_runtime::value::{Array, Value};

const N: usize = 10_000;
/// Elements of the loop state.
const STATE: usize = 8;

fn program() -> String {
    let mut text = String::from(
        "def step (xs: []f64) : []f64 = map (\\x -> x * 0.9999 + 0.0001 * f64.sin x) xs\n\
         entry primal (xs: []f64) = loop ys = xs for _i < 10000 do step ys\n",
    );
    for k in 1..=3 {
        text.push_str(&format!(
            "entry grad{k} (xs: []f64) =\n  \
             vjp (\\xs -> f64.sum (#[stripmine({k})] loop ys = xs for _i < 10000 do step ys)) xs 1\n"
        ));
    }
    text
}

struct Figures {
    gradient: Vec<f64>,
    checkpoint_bytes: usize,
    live_bytes: usize,
    seconds: f64,
}

fn input() -> Value {
    let xs: Vec<Scalar> = (0..STATE)
        .map(|i| Scalar::F64(0.1 + i as f64 / 4.0))
        .collect();
    Value::Array(Array::from_scalars(PrimType::F64, vec![STATE], &xs))
}

fn measure(s: &Session, entry: &str) -> Figures {
    let id = s.lookup_def(entry).expect("the entry exists");
    let c = s.compile(id).expect("the entry compiles");
    let opts = EvalOptions::default();
    let start = Instant::now();
    let plain = s.run(&c, vec![input()], &opts).expect("the entry runs");
    let seconds = start.elapsed().as_secs_f64();
    let (r, stats) = s.run_with_stats(&c, vec![input()], &opts);
    let tracked = r.expect("the entry runs with statistics");
    let flat = |v: &Value| -> Vec<f64> {
        v.array()
            .expect("an array result")
            .to_scalars()
            .iter()
            .map(|x| x.as_f64())
            .collect()
    };
    assert_eq!(flat(&plain[0]), flat(&tracked[0]));
    Figures {
        gradient: flat(&plain[0]),
        checkpoint_bytes: stats.peak_checkpoint_bytes,
        live_bytes: stats.peak_live_bytes,
        seconds,
    }
}

#[test]
fn strip_mining_reduces_checkpoint_memory() {
    let mut s = Session::new();
    s.load("<stripmine>", &program())
        .expect("the program checks");
    let primal = measure(&s, "primal");
    eprintln!(
        "primal: peak live {} B, {:.4} s",
        primal.live_bytes, primal.seconds
    );
    let figures: Vec<Figures> = (1..=3).map(|k| measure(&s, &format!("grad{k}"))).collect();
    for (k, f) in (1..).zip(&figures) {
        eprintln!(
            "k = {k}: checkpoints {} B, peak live {} B, {:.4} s ({:.1}x the primal)",
            f.checkpoint_bytes,
            f.live_bytes,
            f.seconds,
            f.seconds / primal.seconds
        );
    }
    let state_bytes = STATE * 8;
    // k = 1 checkpoints the state of every iteration.
    assert!(figures[0].checkpoint_bytes >= N * state_bytes);
    // k = 2: two levels of ⌈√n⌉ = 100 states; k = 3: three of ⌈∛n⌉ = 22.
    assert!(figures[1].checkpoint_bytes * 20 <= figures[0].checkpoint_bytes);
    assert!(figures[2].checkpoint_bytes * 40 <= figures[0].checkpoint_bytes);
    assert!(figures[2].checkpoint_bytes < figures[1].checkpoint_bytes);
    // The same gradient, up to rounding.
    for f in &figures[1..] {
        for (a, b) in figures[0].gradient.iter().zip(&f.gradient) {
            assert!((a - b).abs() <= 1e-12 * a.abs().max(1.0), "{a} against {b}");
        }
    }
}

/// Peak live bytes of an entry point of an example program on `args`.
fn example_peak(file: &str, entry: &str, args: &[Value]) -> usize {
    let path = format!("{}/examples/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("read the example");
    let mut s = Session::new();
    s.load(&path, &text).expect("the example checks");
    let id = s.lookup_def(entry).expect("the entry exists");
    let c = s.compile(id).expect("the entry compiles");
    let (r, stats) = s.run_with_stats(&c, args.to_vec(), &EvalOptions::default());
    r.expect("the entry runs");
    stats.peak_live_bytes
}

/// An array of the given shape with varied values in (-1, 1).
fn data(shape: &[usize], seed: usize) -> Value {
    let n: usize = shape.iter().product();
    let xs: Vec<Scalar> = (0..n)
        .map(|i| Scalar::F64((((i + seed) * 7919) % 1000) as f64 / 500.0 - 1.0))
        .collect();
    Value::Array(Array::from_scalars(PrimType::F64, shape.to_vec(), &xs))
}

/// Neither the loss nor the gradient of logistic regression holds an n×d
/// intermediate beside the data: `X * w` is never materialised (its dot
/// products are folded as they are made, and the adjoint of `reduce (+)`
/// is read by element), and the adjoint's `X * z̄` exists a chunk at a
/// time (the matrix is many chunks long here).
#[test]
fn logistic_regression_gradient_holds_no_product_matrix() {
    let (n, d) = (20_000, 16);
    let args = [data(&[n, d], 0), data(&[n], 1), data(&[d], 2)];
    let primal = example_peak("logreg.fut", "loss", &args);
    let grad = example_peak("logreg.fut", "grad", &args);
    eprintln!("logreg: primal peak {primal} B, gradient peak {grad} B");
    let inputs = (n * d + n + d) * 8;
    let matrix = n * d * 8;
    assert!(
        primal < inputs + matrix / 2,
        "the loss peaks at {primal} B, its inputs take {inputs} B"
    );
    assert!(
        grad < inputs + matrix / 2,
        "the gradient peaks at {grad} B, its inputs take {inputs} B"
    );
}

/// The GMM gradient needs at most 2.5 times the memory of the objective.
#[test]
fn gmm_gradient_memory_is_within_two_and_a_half_times_the_objective() {
    let (k, d, n) = (5, 8, 1000);
    let args = [
        data(&[k], 0),
        data(&[k, d], 1),
        data(&[k, d], 2),
        data(&[k, d, d], 3),
        data(&[n, d], 4),
        Value::Scalar(Scalar::F64(1.0)),
        Value::Scalar(Scalar::I64(0)),
    ];
    let primal = example_peak("gmm.fut", "main", &args);
    let grad = example_peak("gmm.fut", "grad", &args);
    eprintln!("gmm: primal peak {primal} B, gradient peak {grad} B");
    assert!(
        grad * 2 <= primal * 5,
        "the gradient peaks at {grad} B, the objective at {primal} B"
    );
}
