//! `urchin test --engine small-step`: the project's programs and the
//! examples under the reference semantics (the acceptance corpus:
//! `tests/external/corpus.rs`).

use std::path::{Path, PathBuf};
use urchin::testing::engine::SmallStepEngine;
use urchin::testing::runner::{RunnerOptions, Summary, run_paths};

fn run(dir: &Path) -> (Summary, String) {
    let mut engine = SmallStepEngine::default();
    let mut out = Vec::new();
    let summary = run_paths(
        &[dir.to_path_buf()],
        &mut engine,
        &RunnerOptions::default(),
        &mut out,
    )
    .expect("writing to a buffer cannot fail");
    (summary, String::from_utf8_lossy(&out).into_owned())
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The project's own programs. One case differs from the fast evaluator
/// by design: the reference does not know the shape of the rows of an
/// empty array made by `map` of a function returning arrays (see
/// docs/SEMANTICS.md, "Empty arrays").
#[test]
fn project_programs() {
    let (summary, report) = run(&root().join("tests/programs"));
    let known = ["soac_nested.fut:8: entry `rows_cols` case 1: value #2: shape mismatch"];
    let failures: Vec<&str> = report
        .lines()
        .filter(|l| l.contains(".fut:") && !l.contains(": ok"))
        .collect();
    for f in &failures {
        assert!(
            known.iter().any(|k| f.contains(k)),
            "unexpected failure: {f}\n{report}"
        );
    }
    assert_eq!(summary.failed, failures.len(), "{report}");
    assert!(summary.passed > 600, "{report}");
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
