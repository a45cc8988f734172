//! OpenCL offload (`gpu/`): with every SOAC the device can run forced onto
//! it (threshold 0), generated SOAC nests agree with the evaluator (exactly
//! for integers, within rounding for floats), and the project's programs,
//! the examples and the acceptance corpus pass. Each runs twice: on the
//! device as it is, and on the device run as a discrete GPU (arrays copied
//! to its memory, the kernels written for GPUs), so that a CPU driver also
//! tests the paths a GPU takes.
//!
//! Without an OpenCL platform these tests are ignored (a harness of their
//! own, `urchin_test_env::harness`); with `URCHIN_REQUIRE_OPENCL=1` (CI)
//! they fail instead.

// Not a module of tests/it, whose harness cannot ignore a test at run
// time: these are ignored where there is no device. (The device is no
// longer process-wide: each session's `Host` has its own, so the other
// tests would not see this one.)
use urchin_test_env as test_env;

use libtest_mimic::Trial;
use proptest::prelude::*;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use urchin::driver::{Compiled, Session};
use urchin_eval::EvalOptions;
use urchin_gpu::{self as gpu, Choice, Gpu};
use urchin_prim::{PrimType, Scalar};
use urchin_runtime::value::{Array, Value};
use urchin_test_env::harness::{Need, case, shared_path};

/// The device, with the threshold at 0, or why there is none.
fn opened() -> &'static Result<Arc<Gpu>, String> {
    static DEVICE: OnceLock<Result<Arc<Gpu>, String>> = OnceLock::new();
    DEVICE.get_or_init(|| {
        let g = gpu::Devices::default().open(&Choice::Auto)?;
        g.set_threshold(Some(0.0));
        Ok(g)
    })
}

/// The device; the cases run only where it opened.
fn device() -> Arc<Gpu> {
    opened()
        .clone()
        .expect("the harness runs these cases only with a device")
}

/// The device again, run as a discrete GPU ([`gpu::open_as_gpu`]).
fn as_gpu() -> Arc<Gpu> {
    static DEVICE: OnceLock<Arc<Gpu>> = OnceLock::new();
    DEVICE
        .get_or_init(|| {
            device();
            let g = gpu::open_as_gpu(&Choice::Auto).expect("the device opened once already");
            g.set_threshold(Some(0.0));
            g
        })
        .clone()
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn programs_examples_and_corpus_pass_on_the_device() {
    let g = device();
    let mut engine = urchin::testing::engine::FastEngine::default();
    engine.options.device = Some(g.clone());
    programs_pass(g, engine);
}

fn programs_examples_and_corpus_pass_run_as_a_gpu() {
    let g = as_gpu();
    let mut engine = urchin::testing::engine::FastEngine::default();
    engine.options.device = Some(g.clone());
    programs_pass(g, engine);
}

fn programs_pass(g: Arc<Gpu>, mut engine: urchin::testing::engine::FastEngine) {
    let paths = vec![
        root().join("tests/programs"),
        root().join("examples"),
        shared_path("corpus"),
    ];
    let mut out = Vec::new();
    let summary = urchin::testing::runner::run_paths(
        &paths,
        &mut engine,
        &urchin::testing::runner::RunnerOptions::default(),
        &mut out,
    )
    .expect("writing to a buffer cannot fail");
    assert_eq!(
        summary.failed,
        0,
        "failures with the device forced on:\n{}",
        String::from_utf8_lossy(&out)
    );
    assert!(g.stats().offloaded > 100, "{:?}", g.stats());
}

struct Soacs {
    session: Session,
    entries: std::collections::HashMap<String, Compiled>,
}

thread_local! {
    /// The test program, compiled once per test thread (a session is not
    /// `Send`).
    static SOACS: Soacs = {
        let mut session = Session::new();
        let text = include_str!("gpu/soacs.fut");
        let ids = session
            .load("tests/gpu/soacs.fut", text)
            .unwrap_or_else(|d| panic!("{}", urchin_base::diag::render_all(&d, &session.sources, false)));
        let mut entries = std::collections::HashMap::new();
        for id in ids {
            let name = session.def(id).name.to_string();
            let c = session.compile(id).expect("the test program compiles");
            entries.insert(name, c);
        }
        Soacs { session, entries }
    };
}

fn close(a: f64, b: f64) -> bool {
    a == b || (a.is_nan() && b.is_nan()) || (a - b).abs() <= 1e-9 * (1.0 + a.abs().max(b.abs()))
}

fn agree(x: &Value, y: &Value) -> bool {
    let scalars = |v: &Value| match v {
        Value::Scalar(s) => Some((vec![], vec![*s])),
        Value::Array(a) => Some((a.shape().to_vec(), a.to_scalars())),
        _ => None,
    };
    let (Some((sx, xs)), Some((sy, ys))) = (scalars(x), scalars(y)) else {
        return false;
    };
    sx == sy
        && xs.len() == ys.len()
        && xs.iter().zip(&ys).all(|(a, b)| match (a, b) {
            (Scalar::F64(a), Scalar::F64(b)) => close(*a, *b),
            // OpenCL's single-precision functions are exact to a few ULPs.
            (Scalar::F32(a), Scalar::F32(b)) => {
                a.to_bits() == b.to_bits()
                    || (a.is_nan() && b.is_nan())
                    || (a - b).abs() <= 1e-5 * (1.0 + a.abs().max(b.abs()))
            }
            _ => a == b,
        })
}

/// Runs `entry` on the evaluator and on the device; both must agree, on
/// the values or on the kind of error (the device hands errors back).
fn check(entry: &str, args: Vec<Value>) -> Result<(), TestCaseError> {
    SOACS.with(|s| {
        check_in(s, device(), entry, args.clone())?;
        check_in(s, as_gpu(), entry, args)
    })
}

fn check_in(s: &Soacs, g: Arc<Gpu>, entry: &str, args: Vec<Value>) -> Result<(), TestCaseError> {
    let c = &s.entries[entry];
    let host = EvalOptions {
        device: None,
        ..EvalOptions::default()
    };
    let dev = EvalOptions {
        device: Some(g),
        ..EvalOptions::default()
    };
    let a = s.session.run(c, args.clone(), &host);
    let b = s.session.run(c, args, &dev);
    match (a, b) {
        (Ok(a), Ok(b)) => {
            prop_assert_eq!(a.len(), b.len());
            for (x, y) in a.iter().zip(&b) {
                prop_assert!(agree(x, y), "{entry}: evaluator {x:?}, device {y:?}");
            }
        }
        (Err(a), Err(b)) if a.kind == b.kind => {}
        (a, b) => prop_assert!(false, "{entry}: evaluator {a:?}, device {b:?}"),
    }
    Ok(())
}

fn i64s(v: Vec<i64>) -> Value {
    Value::Array(Array::from_scalars(
        PrimType::I64,
        vec![v.len()],
        &v.into_iter().map(Scalar::I64).collect::<Vec<_>>(),
    ))
}

fn i32s(v: Vec<i64>) -> Value {
    Value::Array(Array::from_scalars(
        PrimType::I32,
        vec![v.len()],
        &v.into_iter()
            .map(|x| Scalar::I32(x as i32))
            .collect::<Vec<_>>(),
    ))
}

/// Quarters of small integers: exact in `f32`, so that their sums are
/// the same in any order.
fn f32s(v: &[i64]) -> Value {
    Value::Array(Array::from_scalars(
        PrimType::F32,
        vec![v.len()],
        &v.iter()
            .map(|&x| Scalar::F32(x as f32 / 4.0))
            .collect::<Vec<_>>(),
    ))
}

fn f64s(v: Vec<f64>) -> Value {
    Value::Array(Array::from_scalars(
        PrimType::F64,
        vec![v.len()],
        &v.into_iter().map(Scalar::F64).collect::<Vec<_>>(),
    ))
}

fn matrix(rows: usize, v: Vec<f64>) -> Value {
    let cols = v.len() / rows.max(1);
    let v: Vec<Scalar> = v[..rows * cols].iter().map(|&x| Scalar::F64(x)).collect();
    Value::Array(Array::from_scalars(PrimType::F64, vec![rows, cols], &v))
}

fn len() -> impl Strategy<Value = usize> {
    prop_oneof![0usize..40, 900usize..5000]
}

fn config() -> ProptestConfig {
    ProptestConfig {
        // No source file to record failing seeds beside: the cases run
        // outside `#[test]`; a failure prints its seed.
        failure_persistence: None,
        ..ProptestConfig::with_cases(test_env::proptest_cases(34))
    }
}

fn maps_and_reductions_agree() {
    proptest!(config(), |(n in len(), seed in any::<u64>())| {
        let mut r = seed;
        let mut next = move || { r ^= r << 13; r ^= r >> 7; r ^= r << 17; r };
        let xs: Vec<i64> = (0..n).map(|_| (next() % 2001) as i64 - 1000).collect();
        let ys: Vec<i64> = (0..n).map(|_| (next() % 9) as i64 - 4).collect();
        let fs: Vec<f64> = (0..n).map(|_| (next() % 100_000) as f64 / 997.0 - 50.0).collect();
        check("map_i", vec![i64s(xs.clone()), i64s(ys.clone())])?;
        check("map_f", vec![f64s(fs.clone())])?;
        // Float to integer conversions as Futhark's: truncated, wrapped,
        // NaN and infinities to 0 (issue 43, item 30).
        let special = [f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 3e9, -1.0, 300.5, -129.9, 1e300, 2f64.powi(70) + 2f64.powi(63), -2f64.powi(63), 65504.0];
        let conv: Vec<f64> = fs.iter().enumerate().map(|(i, &x)| if i % 3 == 0 { special[i % special.len()] } else { x * 1e7 }).collect();
        check("convert_f", vec![f64s(conv)])?;
        for e in ["red_add_i", "red_mul_i", "red_min_i", "red_max_i", "red_and_i", "red_or_i", "red_xor_i", "scan_add_i"] {
            check(e, vec![i64s(xs.clone())])?;
        }
        for e in ["red_add_f", "red_min_f", "red_max_f", "mapred_f", "scan_map_f", "grad_f"] {
            check(e, vec![f64s(fs.clone())])?;
        }
        for e in ["map_i32", "scan_add_i32"] {
            check(e, vec![i32s(xs.clone()), i32s(ys.clone())])?;
        }
        check("red_add_i32", vec![i32s(xs.clone())])?;
        for e in ["map_f32", "red_add_f32", "scan_add_f32"] {
            check(e, vec![f32s(&xs)])?;
        }
        check("red_affine", vec![i64s(ys.clone()), i64s(xs.clone())])?;
        check("scan_affine", vec![i64s(ys), i64s(xs)])?;
    });
}

fn scatters_and_histograms_agree() {
    proptest!(config(), |(n in len(), m in 1usize..300, seed in any::<u64>())| {
        let mut r = seed;
        let mut next = move || { r ^= r << 13; r ^= r >> 7; r ^= r << 17; r };
        // Indices out of range on both sides, and many duplicates.
        let is: Vec<i64> = (0..n).map(|_| (next() % (m as u64 + 6)) as i64 - 3).collect();
        let vs: Vec<i64> = (0..n).map(|_| (next() % 21) as i64 - 10).collect();
        let fs: Vec<f64> = vs.iter().map(|&v| v as f64 * 0.37).collect();
        let dest: Vec<i64> = (0..m).map(|_| (next() % 5) as i64).collect();
        let fdest: Vec<f64> = dest.iter().map(|&v| v as f64).collect();
        for e in ["scatter_i", "hist_add_i", "hist_min_i", "hist_mul_i"] {
            check(e, vec![i64s(dest.clone()), i64s(is.clone()), i64s(vs.clone())])?;
        }
        for e in ["hist_max_f", "hist_add_f"] {
            check(e, vec![f64s(fdest.clone()), i64s(is.clone()), f64s(fs.clone())])?;
        }
        check("hist_add_i32", vec![i32s(dest.clone()), i64s(is.clone()), i32s(vs.clone())])?;
        check("hist_add_f32", vec![f32s(&dest), i64s(is.clone()), f32s(&vs)])?;
        let inside: Vec<i64> = is.iter().map(|&i| i.rem_euclid(m as i64)).collect();
        check("grad_gather", vec![f64s(fdest), i64s(inside.clone())])?;
        // An accumulator with many more cells than elements: updated
        // atomically, not through a copy per work item.
        let wide: Vec<f64> = (0..70_000 + m).map(|j| (j % 7) as f64).collect();
        let spread: Vec<i64> = inside.iter().map(|&i| i * 233).collect();
        check("grad_gather", vec![f64s(wide), i64s(spread)])?;
    });
}

fn nests_and_gradients_agree() {
    proptest!(config(), |(rows in prop_oneof![0usize..300, 2000usize..3000], cols in 1usize..20, k in 1usize..6, seed in any::<u64>())| {
        let mut r = seed;
        let mut next = move || { r ^= r << 13; r ^= r >> 7; r ^= r << 17; r };
        let v: Vec<f64> = (0..rows * cols).map(|_| (next() % 10_000) as f64 / 101.0 - 40.0).collect();
        let iv: Vec<Scalar> = v.iter().map(|&x| Scalar::I64(x as i64)).collect();
        check("seg_red", vec![Value::Array(Array::from_scalars(PrimType::I64, vec![rows, cols], &iv))])?;
        check("nest_f", vec![matrix(rows, v.clone())])?;
        check("transpose_computed", vec![matrix(rows, v.clone())])?;
        check("grad_pairs", vec![matrix(rows, v.clone())])?;
        check("grad_min", vec![matrix(rows, v.clone())])?;
        let cs: Vec<f64> = (0..k * cols).map(|_| (next() % 10_000) as f64 / 101.0 - 40.0).collect();
        check("spread_f", vec![matrix(rows, v.clone()), matrix(k, cs.clone())])?;
        check("several_results", vec![matrix(rows, v.clone()), matrix(k, cs.clone())])?;
        check("grad_kmeans", vec![matrix(rows, v), matrix(k, cs)])?;
    });
}

/// On a device with its own memory, an array something still holds stays
/// there between evaluations (a second call copies nothing), and one that
/// nothing holds any more is let go.
fn arrays_stay_on_a_gpu_while_held() {
    device();
    // Its own device: the other tests' evaluations would move the figures.
    let g = gpu::open_as_gpu(&Choice::Auto).expect("the device opened once already");
    g.set_threshold(Some(0.0));
    let opts = EvalOptions {
        device: Some(g.clone()),
        ..EvalOptions::default()
    };
    SOACS.with(|s| {
        let sum = |xs: &Value| match s
            .session
            .run(&s.entries["red_add_f"], vec![xs.clone()], &opts)
        {
            Ok(r) => match r[..] {
                [Value::Scalar(Scalar::F64(x))] => x,
                _ => panic!("not one f64: {r:?}"),
            },
            Err(e) => panic!("{e:?}"),
        };
        let xs = f64s((0..5000).map(|i| i as f64).collect());
        assert_eq!(sum(&xs), 12_497_500.0);
        let copied = g.stats().bytes_to_device;
        assert!(copied >= 5000 * 8, "{:?}", g.stats());
        assert_eq!(g.resident(), (1, 5000 * 8));
        assert_eq!(sum(&xs), 12_497_500.0);
        assert_eq!(g.stats().bytes_to_device, copied, "copied again");
        drop(xs);
        let ys = f64s(vec![1.0; 2000]);
        assert_eq!(sum(&ys), 2000.0);
        assert_eq!(g.resident(), (1, 2000 * 8), "the first array is let go");
    });
}

/// On a device with its own memory, an array a region computed stays
/// there: an evaluation that keeps its results on the device returns it
/// uncopied, the next evaluation reads it there (nothing crosses the bus
/// either way), and it is copied once, when the host reads it.
fn results_stay_on_a_gpu_until_read() {
    device();
    // Its own device, as above.
    let g = gpu::open_as_gpu(&Choice::Auto).expect("the device opened once already");
    g.set_threshold(Some(0.0));
    let opts = EvalOptions {
        device: Some(g.clone()),
        keep_on_device: true,
        ..EvalOptions::default()
    };
    SOACS.with(|s| {
        let run = |entry: &str, args: Vec<Value>, opts: &EvalOptions| {
            s.session
                .run(&s.entries[entry], args, opts)
                .unwrap_or_else(|e| panic!("{e:?}"))
        };
        let n = 5000;
        let xs = f64s((0..n).map(|i| i as f64 - 2500.0).collect());
        let on_host = run("map_f", vec![xs.clone()], &EvalOptions::default());
        let before = g.stats();
        let ys = run("map_f", vec![xs.clone()], &opts);
        let [Value::Device(d)] = &ys[..] else {
            panic!("not one array left on the device: {ys:?}");
        };
        assert_eq!(d.shape(), &[n]);
        assert!(!d.fetched());
        assert_eq!(g.held(), (1, n * 8));
        let after_map = g.stats();
        assert_eq!(
            after_map.bytes_to_device - before.bytes_to_device,
            n as u64 * 8
        );
        // The error flag alone came back.
        assert!(after_map.bytes_from_device - before.bytes_from_device < 64);

        let sum = run("red_add_f", ys.clone(), &opts);
        let after_sum = g.stats();
        assert_eq!(
            after_sum.bytes_to_device, after_map.bytes_to_device,
            "copied to the device again"
        );
        assert!(
            after_sum.bytes_from_device - after_map.bytes_from_device < 64,
            "copied to the host before the next evaluation read it"
        );
        let expected = run("red_add_f", on_host.clone(), &EvalOptions::default());
        assert!(agree(&sum[0], &expected[0]), "{sum:?} against {expected:?}");

        // Read by the host: copied once, and the same as the evaluator's.
        let host = urchin_eval::on_host(ys.clone()).expect("the device gives it back");
        assert!(agree(&host[0], &on_host[0]));
        assert!(d.fetched());
        assert_eq!(g.held(), (0, 0), "counted as on the host now");
        assert_eq!(
            g.stats().bytes_from_device - after_sum.bytes_from_device,
            n as u64 * 8
        );
        urchin_eval::on_host(ys.clone()).expect("the device gives it back");
        assert_eq!(
            g.stats().bytes_from_device - after_sum.bytes_from_device,
            n as u64 * 8,
            "copied twice"
        );
        drop((ys, host));
        // Dropped before the host read it.
        let ys = run("map_f", vec![xs], &opts);
        assert_eq!(g.held(), (1, n * 8));
        drop(ys);
        assert_eq!(g.held(), (0, 0), "let go with the last value holding it");
    });
}

/// The same at the prompt, as a user sees it: a value bound with `let`
/// stays on the device, a computation on it reads it there, and printing
/// it copies it; `:device` says which.
fn the_prompt_keeps_values_on_a_gpu() {
    device();
    let host = urchin::host::Host::default();
    host.devices.run_as_gpu();
    host.devices.configure(Choice::Auto);
    let mut repl = urchin::repl::Repl::with_host(false, host);
    let mut said = |line: &str| {
        let mut out = String::new();
        repl.feed(line, &mut out);
        out
    };
    said(":device threshold 0");
    said("let ys = map (\\x -> f64.sqrt (f64.i64 x)) (iota 5000)");
    let held = "1 array (39.1 KiB) computed there and not copied to the host yet";
    let report = said(":device");
    assert!(report.contains(held), "{report}");
    assert!(report.contains("from the device 4\n"), "{report}");
    // Read where it is: the sum comes back, the array does not.
    let sum: f64 = said("f64.sum ys").trim().parse().expect("a number");
    let exact: f64 = (0..5000).map(|i| f64::from(i).sqrt()).sum();
    assert!(close(sum, exact), "{sum} against {exact}");
    let report = said(":device");
    assert!(report.contains(held), "{report}");
    assert!(!report.contains("from the device 40"), "{report}");
    // Printed: copied once.
    assert_eq!(said("ys[1:3]").trim(), "[1.0, 1.4142135623730951]");
    let report = said(":device");
    assert!(
        report.contains("0 arrays (0 bytes) computed there and not copied to the host yet"),
        "{report}"
    );
    assert!(report.contains("from the device 400"), "{report}");
}

fn main() {
    let opencl = || {
        Need::other(
            "an OpenCL platform",
            opened().as_ref().err().cloned(),
            "URCHIN_REQUIRE_OPENCL",
        )
    };
    let on_device = |name: &str, test: fn()| case(name, vec![opencl()], test);
    let trials: Vec<Trial> = vec![
        case(
            "programs_examples_and_corpus_pass_on_the_device",
            vec![opencl(), Need::shared("corpus")],
            programs_examples_and_corpus_pass_on_the_device,
        ),
        case(
            "programs_examples_and_corpus_pass_run_as_a_gpu",
            vec![opencl(), Need::shared("corpus")],
            programs_examples_and_corpus_pass_run_as_a_gpu,
        ),
        on_device("maps_and_reductions_agree", maps_and_reductions_agree),
        on_device(
            "scatters_and_histograms_agree",
            scatters_and_histograms_agree,
        ),
        on_device("nests_and_gradients_agree", nests_and_gradients_agree),
        on_device(
            "arrays_stay_on_a_gpu_while_held",
            arrays_stay_on_a_gpu_while_held,
        ),
        on_device(
            "results_stay_on_a_gpu_until_read",
            results_stay_on_a_gpu_until_read,
        ),
        on_device(
            "the_prompt_keeps_values_on_a_gpu",
            the_prompt_keeps_values_on_a_gpu,
        ),
    ];
    test_env::harness::run(trials)
}
