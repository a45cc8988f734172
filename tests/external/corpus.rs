//! The shared acceptance corpus (`../shared/corpus`) under `urchin test`:
//! every case passes with the fast evaluator and with the small-step
//! reference semantics, which skips none of `lang` and `automap` and
//! reports the AD programs, which it does not define, as skipped.

use libtest_mimic::Trial;
use urchin::testing::engine::{FastEngine, SmallStepEngine};
use urchin::testing::runner::{Engine, RunnerOptions, Summary, run_suite};
use urchin_test_env::harness::{Need, case, shared_path};

/// Runs `corpus/{folder}` with `engine`: no case fails, some pass.
fn run(folder: &str, engine: &mut impl Engine, opts: &RunnerOptions) -> (Summary, String) {
    run_suite(&shared_path(&format!("corpus/{folder}")), engine, opts)
        .unwrap_or_else(|e| panic!("{e}"))
}

fn fast(folder: &str) {
    run(
        folder,
        &mut FastEngine::default(),
        &RunnerOptions::default(),
    );
}

fn small_step(folder: &str) {
    let (summary, report) = run(
        folder,
        &mut SmallStepEngine::default(),
        &RunnerOptions::default(),
    );
    assert_eq!(summary.skipped, 0, "skipped in corpus/{folder}:\n{report}");
}

/// AD is not defined by the reference semantics: those cases are
/// reported as skipped, with the reason, not as failures.
fn small_step_skips_ad() {
    let opts = RunnerOptions {
        verbose: true,
        ..RunnerOptions::default()
    };
    let (summary, report) = run("ad", &mut SmallStepEngine::default(), &opts);
    assert!(summary.skipped > 0, "{report}");
    assert!(
        report.contains("is not supported by the reference semantics"),
        "{report}"
    );
}

pub fn trials() -> Vec<Trial> {
    let on = |name: &str, folder: &'static str, test: fn(&str)| {
        case(
            &format!("corpus::{name}"),
            vec![Need::shared(&format!("corpus/{folder}"))],
            move || test(folder),
        )
    };
    vec![
        on("lang_with_the_evaluator", "lang", fast),
        on("automap_with_the_evaluator", "automap", fast),
        on("lang_with_small_steps", "lang", small_step),
        on("automap_with_small_steps", "automap", small_step),
        case(
            "corpus::ad_skipped_by_small_steps",
            vec![Need::shared("corpus/ad")],
            small_step_skips_ad,
        ),
    ]
}
