//! `urchin test --engine small-step`: the project's programs and the
//! examples under the reference semantics (the acceptance corpus:
//! `tests/external/corpus.rs`).

use std::path::{Path, PathBuf};
use urchin::testing::engine::SmallStepEngine;
use urchin::testing::runner::{RunnerOptions, Summary, run_paths};

fn run(dir: &Path) -> (Summary, String) {
    let mut engine = SmallStepEngine::default();
    let mut out = Vec::new();
    let opts = RunnerOptions {
        verbose: true,
        ..RunnerOptions::default()
    };
    let summary = run_paths(&[dir.to_path_buf()], &mut engine, &opts, &mut out)
        .expect("writing to a buffer cannot fail");
    (summary, String::from_utf8_lossy(&out).into_owned())
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The cases of `tests/programs/` that the reference runs: raise it when
/// more pass, never lower it.
const PROGRAMS_PASSED: usize = 1193;

/// What the reference semantics does not define, and so may skip (size
/// expressions and sizes that only a type gives, reverse mode): every
/// other skip (a step budget run out, say) fails the test.
const UNDEFINED: [&str; 4] = [
    "(reverse-mode AD) is not supported by the reference semantics",
    "a size expression in a type (",
    "(its sizes come from its argument's type) is not supported",
    "which only its result's type names is not supported",
];

/// The project's own programs. One case differs from the fast evaluator
/// by design: the reference does not know the shape of the rows of an
/// empty array made by `map` of a function returning arrays (see
/// docs/SEMANTICS.md, "Empty arrays").
#[test]
fn project_programs() {
    let (summary, report) = run(&root().join("tests/programs"));
    let known = ["soac_nested.fut:8: entry `rows_cols` case 1: value #2: shape mismatch"];
    let cases = || report.lines().filter(|l| l.contains(".fut:"));
    let failures: Vec<&str> = cases()
        .filter(|l| !l.contains(": ok") && !l.contains(": skipped ("))
        .collect();
    for f in &failures {
        assert!(
            known.iter().any(|k| f.contains(k)),
            "unexpected failure: {f}\n{report}"
        );
    }
    for skip in cases().filter(|l| l.contains(": skipped (")) {
        assert!(
            UNDEFINED.iter().any(|u| skip.contains(u)),
            "a skip for a reason other than what the reference does not define: {skip}"
        );
    }
    assert_eq!(summary.failed, failures.len(), "{report}");
    assert!(
        summary.passed >= PROGRAMS_PASSED,
        "{} cases passed, fewer than the {PROGRAMS_PASSED} recorded",
        summary.passed
    );
}

/// The examples under the reference semantics: every case it can run
/// passes; it skips only reverse-mode AD (the reference defines `jvp`
/// alone; docs/SEMANTICS.md) and the benchmark datasets.
#[test]
fn examples() {
    crate::support::examples_pass(
        &mut SmallStepEngine::default(),
        15,
        &["compiled only)", "`vjp` (reverse-mode AD) is not supported"],
    );
}
