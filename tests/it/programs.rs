//! Runs the test blocks of `tests/programs/` and of the shared acceptance
//! corpus (`crate::test_env::shared_data`) with the fast evaluator; every
//! case must pass.

use crate::test_env::shared_data;
use std::path::{Path, PathBuf};
use urchin::testing::engine::FastEngine;
use urchin::testing::runner::{RunnerOptions, run_paths};

fn run(dir: &Path) {
    let mut engine = FastEngine::default();
    let mut out = Vec::new();
    let summary = run_paths(
        &[dir.to_path_buf()],
        &mut engine,
        &RunnerOptions::default(),
        &mut out,
    )
    .expect("writing to a buffer cannot fail");
    let report = String::from_utf8_lossy(&out);
    assert_eq!(
        summary.failed,
        0,
        "failures in {}:\n{report}",
        dir.display()
    );
    assert!(
        summary.passed > 0,
        "no test cases found in {}",
        dir.display()
    );
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn project_programs() {
    run(&root().join("tests/programs"));
}

#[test]
fn acceptance_corpus_lang() {
    if let Some(dir) = shared_data("corpus/lang") {
        run(&dir);
    }
}

#[test]
fn acceptance_corpus_automap() {
    if let Some(dir) = shared_data("corpus/automap") {
        run(&dir);
    }
}
