//! The Futhark ratchet: `urchin test` over Futhark's own test programs
//! (`../shared/futhark-tests/lang`, `ad`, `modules`, and `errors`, the
//! programs that must not compile). Each folder's result must be the line
//! recorded for it in `tests/futhark_rates.txt`: fewer passing cases is a
//! regression; more (or a changed number of cases) means the line must be
//! replaced by the one the test prints, so the figure only moves up, by a
//! commit. For `errors`, a case passes when urchin's message matches
//! Futhark's; how many programs urchin rejects at all is a second figure,
//! `errors-rejected`.
//!
//! The files run in batches of [`BATCH`], a `urchin test --verbose
//! --compiled` process each; a process that reports nothing for
//! [`CASE_LIMIT`] (a case that hangs) is stopped. A batch cut short by a
//! panic, abort, stack overflow or hang runs again a process per file, so
//! that it fails that file's remaining cases and nothing else.

use libtest_mimic::Trial;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;
use urchin::testing::blocks::parse_test_spec;
use urchin::testing::runner::{fut_files, test_count};
use urchin_base::source::FileId;
use urchin_test_env::harness::{Need, case, shared_path};

/// The recorded figures, relative to the repository.
const RATES: &str = "tests/futhark_rates.txt";

/// How long a file's process may go without reporting a case (the first
/// one includes loading and checking the program). Generous: a case that
/// takes this long in an interpreter is a hang, not a slow case, and the
/// limit must hold on a loaded machine and in a debug build.
const CASE_LIMIT: Duration = Duration::from_secs(60);

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Tally {
    passed: usize,
    failed: usize,
    skipped: usize,
    /// Programs that must not compile, and those urchin rejected.
    expected_errors: usize,
    rejected: usize,
}

impl Tally {
    fn add(&mut self, other: Tally) {
        self.passed += other.passed;
        self.failed += other.failed;
        self.skipped += other.skipped;
        self.expected_errors += other.expected_errors;
        self.rejected += other.rejected;
    }

    /// The figure recorded for a folder: passed and counted (passed or
    /// failed) cases, then skipped ones, so that a case that stops running
    /// changes the figure too.
    fn figure(&self) -> String {
        format!(
            "{}/{} {}",
            self.passed,
            self.passed + self.failed,
            self.skipped
        )
    }
}

/// Files per process. Every process checks the prelude first (about 80 ms
/// of CPU), which a process per file repeated 1,600 times across the four
/// folders: a minute of a two-core machine's test run.
const BATCH: usize = 16;

/// The result of a process over some files, and what went wrong with it,
/// if anything.
struct FileResult {
    tally: Tally,
    trouble: Option<String>,
}

/// `N passed, M failed, K skipped`, the runner's last line.
fn summary(line: &str) -> Option<Tally> {
    let mut words = line.split([' ', ',']).filter(|w| !w.is_empty());
    let mut number = |label: &str| {
        let n = words.next()?.parse().ok()?;
        (words.next()? == label).then_some(n)
    };
    let t = Tally {
        passed: number("passed")?,
        failed: number("failed")?,
        skipped: number("skipped")?,
        ..Tally::default()
    };
    words.next().is_none().then_some(t)
}

/// `compile errors: R of E rejected as expected`, the line before the
/// summary where a file expects compile errors: (E, R).
fn rejections(line: &str) -> Option<(usize, usize)> {
    let rest = line.strip_prefix("compile errors: ")?;
    let (rejected, rest) = rest.split_once(" of ")?;
    let expected = rest.strip_suffix(" rejected as expected")?;
    Some((expected.parse().ok()?, rejected.parse().ok()?))
}

/// The number of tests the runner counts in a file (1 if its test blocks
/// cannot be read, which the runner counts as one failure).
fn tests_in(path: &Path) -> usize {
    let Ok(text) = std::fs::read_to_string(path) else {
        return 1;
    };
    std::panic::catch_unwind(|| parse_test_spec(&text, FileId(0)).map_or(1, |s| test_count(&s)))
        .unwrap_or(1)
        .max(1)
}

fn run_files(paths: &[PathBuf]) -> FileResult {
    let mut child = Command::new(env!("CARGO_BIN_EXE_urchin"))
        .arg("test")
        .arg("--verbose")
        // Cases marked `compiled` (most with `random input`) run too: a
        // case the ratchet skips is a case nothing checks.
        .arg("--compiled")
        .args(paths)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start urchin");
    let stdout = child.stdout.take().expect("a piped standard output");
    let mut stderr = child.stderr.take().expect("a piped standard error");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).split(b'\n') {
            let Ok(line) = line else { break };
            if tx
                .send(String::from_utf8_lossy(&line).into_owned())
                .is_err()
            {
                break;
            }
        }
    });
    let errors = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = stderr.read_to_end(&mut bytes);
        String::from_utf8_lossy(&bytes).into_owned()
    });
    let mut lines = Vec::new();
    let mut hung = false;
    loop {
        match rx.recv_timeout(CASE_LIMIT) {
            Ok(line) => lines.push(line),
            Err(RecvTimeoutError::Disconnected) => break,
            Err(RecvTimeoutError::Timeout) => {
                hung = true;
                let _ = child.kill();
                break;
            }
        }
    }
    let status = child.wait().expect("wait for urchin");
    let errors = errors.join().unwrap_or_default();
    let finished = !hung && matches!(status.code(), Some(0 | 1));
    if let Some(mut t) = lines.last().and_then(|l| summary(l)).filter(|_| finished) {
        let before = lines.len().checked_sub(2).and_then(|i| lines.get(i));
        if let Some((expected, rejected)) = before.and_then(|l| rejections(l)) {
            t.expected_errors = expected;
            t.rejected = rejected;
        }
        return FileResult {
            tally: t,
            trouble: None,
        };
    }
    // Cut short: what was reported stands, the rest failed.
    let reported = |suffix: &str| lines.iter().filter(|l| l.ends_with(suffix)).count();
    let passed = reported(": ok");
    let skipped = lines.iter().filter(|l| l.contains(": skipped (")).count();
    let cases: usize = paths.iter().map(|p| tests_in(p)).sum();
    let failed = cases.saturating_sub(passed + skipped).max(1);
    let why = if hung {
        format!("no case finished within {} s", CASE_LIMIT.as_secs())
    } else {
        // A panic's location and its message, on the line after.
        let mut lines = errors.lines().skip_while(|l| !l.contains("panicked at"));
        match (lines.next(), lines.next()) {
            (Some(at), message) => {
                let at = at.split_once("panicked").map_or(at, |(_, rest)| rest);
                format!("panicked{at} {}", message.unwrap_or_default().trim())
            }
            (None, _) => format!("urchin ended with {status}"),
        }
    };
    FileResult {
        tally: Tally {
            passed,
            failed,
            skipped,
            ..Tally::default()
        },
        trouble: Some(why),
    }
}

/// Runs a batch of files in one process; if it is cut short, each file
/// again in a process of its own, so that the trouble is one file's.
/// (`run` is [`run_files`] but in this file's test of the rule.)
fn run_batch(
    batch: &[PathBuf],
    run: &dyn Fn(&[PathBuf]) -> FileResult,
) -> Vec<(PathBuf, FileResult)> {
    let whole = run(batch);
    if whole.trouble.is_none() || batch.len() == 1 {
        return vec![(batch[0].clone(), whole)];
    }
    batch
        .iter()
        .map(|f| (f.clone(), run(std::slice::from_ref(f))))
        .collect()
}

/// Runs every file of `dir`, in batches, as many processes at a time as
/// there are cores.
fn run_folder(dir: &Path) -> (Tally, Vec<String>) {
    let files = fut_files(dir).expect("a readable folder");
    assert!(!files.is_empty(), "no .fut files in {}", dir.display());
    let queue = Mutex::new(files.chunks(BATCH));
    let results = Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| {
                while let Some(batch) = queue.lock().expect("the queue").next() {
                    let r = run_batch(batch, &run_files);
                    results.lock().expect("the results").extend(r);
                }
            });
        }
    });
    let mut results = results.into_inner().expect("the results");
    results.sort_by(|a, b| a.0.cmp(&b.0));
    let mut total = Tally::default();
    let mut troubles = Vec::new();
    for (f, r) in results {
        total.add(r.tally);
        if let Some(why) = r.trouble {
            let name = f.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap_or(&f);
            troubles.push(format!("{}: {why}", name.display()));
        }
    }
    (total, troubles)
}

/// The line recorded for `folder` in the rates file.
fn recorded(folder: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(RATES);
    let text = std::fs::read_to_string(&path).expect("read tests/futhark_rates.txt");
    let line = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .find(|l| l.split_whitespace().next() == Some(folder));
    let figure = line.map(|l| l.split_whitespace().skip(1).collect::<Vec<_>>().join(" "));
    figure
        .filter(|f| !f.is_empty())
        .unwrap_or_else(|| panic!("{RATES} has no line `{folder} PASSED/COUNTED SKIPPED`"))
}

fn passed_of(figure: &str) -> usize {
    figure
        .split('/')
        .next()
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("`{figure}` in {RATES} is not PASSED/COUNTED SKIPPED"))
}

/// Runs `folder` and holds its figure to the recorded one; its tally.
fn ratchet(folder: &str) -> Tally {
    let dir = shared_path(&format!("futhark-tests/{folder}"));
    let (t, troubles) = run_folder(&dir);
    let counted = t.passed + t.failed;
    let rate = 100.0 * t.passed as f64 / counted.max(1) as f64;
    let mut report = format!(
        "futhark-tests/{folder}: {} of {counted} cases pass ({rate:.1}%), {} skipped",
        t.passed, t.skipped
    );
    for trouble in &troubles {
        report.push_str(&format!("\n  cut short: {trouble}"));
    }
    // Straight to the terminal: the harness would hide a passing test's
    // output.
    let _ = writeln!(std::io::stderr(), "{report}");
    hold(folder, t.passed, &t.figure(), &report);
    t
}

/// Fails unless `now` (`passed` of some count) is the figure recorded for
/// `key`, saying whether it is a regression or a rise to record.
fn hold(key: &str, passed: usize, now: &str, report: &str) {
    let floor = recorded(key);
    assert!(
        passed >= passed_of(&floor),
        "{report}\nfewer than the {floor} recorded for `{key}` in {RATES}: a regression \
         (`urchin test ../shared/futhark-tests/{}` lists the failures)",
        key.trim_end_matches("-rejected")
    );
    assert!(
        now == floor,
        "{report}\nthe figure has changed from the {floor} recorded in {RATES}: \
         replace that line by `{key} {now}` and commit it"
    );
}

/// Programs Futhark rejects: those whose message matches Futhark's, and
/// those rejected at all.
fn futhark_tests_errors() {
    let t = ratchet("errors");
    let rate = 100.0 * t.rejected as f64 / t.expected_errors.max(1) as f64;
    let report = format!(
        "futhark-tests/errors: {} of {} programs rejected ({rate:.1}%)",
        t.rejected, t.expected_errors
    );
    let _ = writeln!(std::io::stderr(), "{report}");
    let now = format!("{}/{}", t.rejected, t.expected_errors);
    hold("errors-rejected", t.rejected, &now, &report);
}

fn a_summary_line_is_read() {
    assert_eq!(
        summary("448 passed, 547 failed, 50 skipped"),
        Some(Tally {
            passed: 448,
            failed: 547,
            skipped: 50,
            ..Tally::default()
        })
    );
    assert_eq!(
        rejections("compile errors: 134 of 169 rejected as expected"),
        Some((169, 134))
    );
    assert_eq!(rejections("134 of 169 rejected"), None);
    assert_eq!(summary("448 passed, 547 failed"), None);
    assert_eq!(summary("ok: 1 passed, 2 failed, 3 skipped"), None);
}

/// A batch that a file cuts short runs again file by file: the trouble is
/// that file's, and the others' cases count once, from their own runs.
fn a_cut_short_batch_runs_again_file_by_file() {
    let files: Vec<PathBuf> = ["a.fut", "b.fut", "c.fut"].map(PathBuf::from).into();
    let runs = Mutex::new(Vec::new());
    let run = |paths: &[PathBuf]| {
        runs.lock().expect("the runs").push(paths.len());
        let culprit = paths.iter().any(|p| p.ends_with("b.fut"));
        FileResult {
            tally: Tally {
                passed: paths.len() - usize::from(culprit),
                failed: usize::from(culprit),
                ..Tally::default()
            },
            trouble: culprit.then(|| "panicked".to_string()),
        }
    };
    let results = run_batch(&files, &run);
    assert_eq!(*runs.lock().expect("the runs"), [3, 1, 1, 1]);
    let troubled: Vec<&PathBuf> = results
        .iter()
        .filter(|(_, r)| r.trouble.is_some())
        .map(|(f, _)| f)
        .collect();
    assert_eq!(troubled, [&PathBuf::from("b.fut")]);
    let mut total = Tally::default();
    for (_, r) in &results {
        total.add(r.tally);
    }
    assert_eq!((total.passed, total.failed), (2, 1));
    // A batch that finishes is one run.
    runs.lock().expect("the runs").clear();
    assert_eq!(run_batch(&files[..1], &run).len(), 1);
    assert_eq!(
        run_batch(&[files[0].clone(), files[2].clone()], &run).len(),
        1
    );
    assert_eq!(*runs.lock().expect("the runs"), [1, 2]);
}

pub fn trials() -> Vec<Trial> {
    let folder = |f: &'static str| {
        case(
            &format!("futhark::futhark_tests_{f}"),
            vec![Need::shared(&format!("futhark-tests/{f}"))],
            move || {
                ratchet(f);
            },
        )
    };
    vec![
        folder("lang"),
        folder("ad"),
        folder("modules"),
        case(
            "futhark::futhark_tests_errors",
            vec![Need::shared("futhark-tests/errors")],
            futhark_tests_errors,
        ),
        case(
            "futhark::a_summary_line_is_read",
            vec![],
            a_summary_line_is_read,
        ),
        case(
            "futhark::a_cut_short_batch_runs_again_file_by_file",
            vec![],
            a_cut_short_batch_runs_again_file_by_file,
        ),
    ]
}
