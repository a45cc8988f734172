//! `urchin test --engine small-step`: the acceptance corpus and the
//! project's programs under the reference semantics.

use crate::test_env::shared_data;
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

fn corpus(name: &str) {
    let Some(dir) = shared_data(&format!("corpus/{name}")) else {
        return;
    };
    let (summary, report) = run(&dir);
    assert_eq!(
        summary.failed,
        0,
        "failures in {}:\n{report}",
        dir.display()
    );
    assert_eq!(
        summary.skipped,
        0,
        "skipped in {}:\n{report}",
        dir.display()
    );
    assert!(
        summary.passed > 0,
        "no test cases found in {}",
        dir.display()
    );
}

#[test]
fn acceptance_corpus_lang() {
    corpus("lang");
}

#[test]
fn acceptance_corpus_automap() {
    corpus("automap");
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

/// AD is not defined by the reference semantics: those cases are
/// reported as skipped, with the reason, not as failures.
#[test]
fn ad_cases_are_skipped() {
    let Some(dir) = shared_data("corpus/ad") else {
        return;
    };
    let mut engine = SmallStepEngine::default();
    let mut out = Vec::new();
    let opts = RunnerOptions {
        verbose: true,
        ..RunnerOptions::default()
    };
    let summary = run_paths(std::slice::from_ref(&dir), &mut engine, &opts, &mut out)
        .expect("writing to a buffer cannot fail");
    let report = String::from_utf8_lossy(&out);
    assert_eq!(summary.failed, 0, "{report}");
    assert!(summary.skipped > 0, "{report}");
    assert!(
        report.contains("is not supported by the reference semantics"),
        "{report}"
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
