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
//! Each file runs in its own `urchin test --verbose --compiled` process,
//! so that a panic, abort or stack overflow fails that file's remaining
//! cases and nothing else, and a process that reports nothing for
//! [`CASE_LIMIT`] (a case that hangs) is stopped, its remaining cases
//! failed.

use libtest_mimic::Trial;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
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

/// One file's result, and what went wrong with its process, if anything.
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

fn run_file(path: &Path) -> FileResult {
    let mut child = Command::new(env!("CARGO_BIN_EXE_urchin"))
        .arg("test")
        .arg("--verbose")
        // Cases marked `compiled` (most with `random input`) run too: a
        // case the ratchet skips is a case nothing checks.
        .arg("--compiled")
        .arg(path)
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
    let failed = tests_in(path).saturating_sub(passed + skipped).max(1);
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

/// Runs every file of `dir`, a process per file, as many at a time as
/// there are cores.
fn run_folder(dir: &Path) -> (Tally, Vec<String>) {
    let files = fut_files(dir).expect("a readable folder");
    assert!(!files.is_empty(), "no .fut files in {}", dir.display());
    let queue = Mutex::new(files.into_iter());
    let results = Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| {
                while let Some(f) = queue.lock().expect("the queue").next() {
                    let r = run_file(&f);
                    results.lock().expect("the results").push((f, r));
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
    ]
}
