//! Runs the test blocks of `tests/programs/` and of the examples with the
//! fast evaluator; every case must pass. The shared acceptance corpus is
//! run by `tests/external/corpus.rs`.

use std::path::{Path, PathBuf};
use urchin::testing::engine::FastEngine;
use urchin::testing::runner::{RunnerOptions, run_suite};

fn run(dir: &Path) {
    if let Err(e) = run_suite(dir, &mut FastEngine::default(), &RunnerOptions::default()) {
        panic!("{e}");
    }
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn project_programs() {
    run(&root().join("tests/programs"));
}

/// The examples' test blocks: every case with an expected result passes;
/// the skipped ones are the benchmark datasets (`compiled random input`,
/// no expected output), which `urchin bench` and `bench/run.py` run.
#[test]
fn examples_test_blocks() {
    crate::support::examples_pass(&mut FastEngine::default(), 30, &["compiled only)"]);
}

/// Every example says how to run it (`-- Run it:   urchin run
/// examples/NAME.fut [-e ENTRY] < examples/NAME.in`, which the README
/// points to), and that command works: the entry exists and reads its
/// input file (issue 43, item 26: `logreg` needed `-e grad`, and two
/// examples had no input file).
#[test]
fn examples_run_as_their_headers_say() {
    let dir = root().join("examples");
    let mut examples: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("the examples")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "fut"))
        .filter(|p| !p.ends_with("gradient-descent.fut"))
        .collect();
    examples.sort();
    assert!(examples.len() >= 10);
    for p in examples {
        let text = std::fs::read_to_string(&p).expect("an example");
        let line = text
            .lines()
            .find_map(|l| l.strip_prefix("-- Run it:"))
            .unwrap_or_else(|| panic!("{} has no `-- Run it:` line", p.display()));
        let words: Vec<&str> = line.split_whitespace().collect();
        let (args, input) = match words.as_slice() {
            ["urchin", "run", args @ .., "<", input] => (args.to_vec(), *input),
            _ => panic!("{}: `{line}` is not `urchin run ... < FILE`", p.display()),
        };
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_urchin"))
            .arg("run")
            .args(&args)
            .current_dir(root())
            .stdin(std::fs::File::open(root().join(input)).expect("the input file"))
            .output()
            .expect("urchin runs");
        assert!(
            o.status.success() && !o.stdout.is_empty(),
            "{}: `urchin run {}` failed:\n{}",
            p.display(),
            args.join(" "),
            String::from_utf8_lossy(&o.stderr)
        );
    }
}
