//! The test runner behind `urchin test`: finds `.fut` files, reads their
//! test blocks, runs every case against every entry point it names and
//! reports failures, one line each, ending with a summary line.
//!
//! The runner is generic over the [`Engine`] that compiles and runs
//! programs, so it can be tested with a fake one.

use super::blocks::{CaseInput, Expect, RandomValue, TestCase, TestSpec, parse_test_spec};
use ndarray::{ArcArray, IxDyn};
use regex::Regex;
use std::collections::HashSet;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;
use urchin_base::source::{FileId, Span};
use urchin_prim::{Native, PrimType};
use urchin_runtime::value::{Array, Element, Value};
use urchin_runtime::values::{LitValue, Tolerance, ValueType, compare, parse_values};

/// What the runner needs from an interpreter.
pub trait Engine {
    type Program;
    /// Parse and type-check; on failure, the rendered diagnostics (plain
    /// text, no colour).
    fn compile(&mut self, path: &Path, text: &str) -> Result<Self::Program, String>;
    /// The parameter types of an entry point (flattened: one per value), or
    /// an error message if it does not exist.
    fn entry_params(&self, prog: &Self::Program, entry: &str) -> Result<Vec<ValueType>, String>;
    /// Run an entry point; the results flattened; on failure the error
    /// message. When `interrupt` becomes true (the case's time is up) the
    /// run should stop soon with an error.
    fn run(
        &mut self,
        prog: &Self::Program,
        entry: &str,
        args: Vec<Value>,
        interrupt: Option<Arc<AtomicBool>>,
    ) -> Result<Vec<Value>, String>;
    /// After a failed [`Engine::run`]: why the failure means the engine
    /// could not run the case (it is then reported as skipped, not failed),
    /// if it does.
    fn skip_reason(&mut self) -> Option<String> {
        None
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RunnerOptions {
    /// Also run the cases marked `compiled`.
    pub compiled: bool,
    pub tolerance: Tolerance,
    /// Print a line for passing and skipped cases too.
    pub verbose: bool,
    /// The longest a case may run (`--timeout`); past it the case fails
    /// and the run goes on.
    pub timeout: Option<Duration>,
    /// The memory limit programs and data files are read within (the
    /// session's, `--max-memory`).
    pub memory: urchin_base::mem::Budget,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub passed: usize,
    pub failed: usize,
    pub skipped: usize,
    /// Of the programs that must not compile (`error:` blocks), how many
    /// were expected, and how many urchin rejected with a diagnostic of
    /// its own, whether or not the message matched Futhark's regex.
    pub rejections: Rejections,
}

/// Compile errors expected and raised, whatever their message.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rejections {
    pub expected: usize,
    pub rejected: usize,
}

/// Runs the tests of `dir` as a test suite expects them to go: no case
/// fails and some case passes. Returns the summary and the report, or
/// what went wrong with the report.
pub fn run_suite<E: Engine>(
    dir: &Path,
    engine: &mut E,
    opts: &RunnerOptions,
) -> Result<(Summary, String), String> {
    let mut out = Vec::new();
    let summary = run_paths(&[dir.to_path_buf()], engine, opts, &mut out)
        .map_err(|e| format!("writing the report: {e}"))?;
    let report = String::from_utf8_lossy(&out).into_owned();
    if summary.failed > 0 {
        Err(format!("failures in {}:\n{report}", dir.display()))
    } else if summary.passed == 0 {
        Err(format!("no test cases found in {}", dir.display()))
    } else {
        Ok((summary, report))
    }
}

/// Runs the tests of every file in `paths` (directories are searched
/// recursively for `*.fut`, in sorted order) and writes the report to
/// `out`, ending with `N passed, M failed, K skipped`. Only errors writing
/// to `out` are returned; everything else is a test failure.
pub fn run_paths<E: Engine>(
    paths: &[PathBuf],
    engine: &mut E,
    opts: &RunnerOptions,
    out: &mut dyn Write,
) -> io::Result<Summary> {
    let mut r = Report::new(out, opts);
    let mut seen = HashSet::new();
    for path in paths {
        let mut files = Vec::new();
        match collect_files(path, &mut files, &mut seen) {
            Ok(()) => {
                for f in files {
                    if f.is_file() || f == *path {
                        run_file(&f, engine, &mut r)?;
                    } else {
                        // A FIFO or a device named `x.fut` in a directory
                        // would block or never end: it is no program.
                        r.summary.skipped += 1;
                        writeln!(r.out, "{}: skipped: not a regular file", f.display())?;
                    }
                }
            }
            Err(e) => r.fail(&format!("{}: {e}", path.display()))?,
        }
    }
    r.finish()
}

/// The `.fut` files under `dir`, recursively, in the order `urchin test`
/// runs them.
pub fn fut_files(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    collect_files(dir, &mut files, &mut HashSet::new())?;
    Ok(files)
}

/// A path given explicitly is taken whatever its extension; a directory
/// contributes its `.fut` files, recursively, sorted by path (the caller
/// runs only those that are regular files). Each
/// directory and file is visited once (by its canonical path), so that a
/// symbolic link back up the tree neither loops nor repeats files.
fn collect_files(
    path: &Path,
    files: &mut Vec<PathBuf>,
    seen: &mut HashSet<PathBuf>,
) -> io::Result<()> {
    if !seen.insert(std::fs::canonicalize(path)?) {
        return Ok(());
    }
    if !path.is_dir() {
        files.push(path.to_path_buf());
        return Ok(());
    }
    let mut entries = std::fs::read_dir(path)?
        .map(|e| e.map(|e| e.path()))
        .collect::<io::Result<Vec<_>>>()?;
    entries.sort();
    for p in entries {
        if p.is_dir() || p.extension().is_some_and(|e| e == "fut") {
            collect_files(&p, files, seen)?;
        }
    }
    Ok(())
}

struct Report<'a> {
    out: &'a mut dyn Write,
    opts: &'a RunnerOptions,
    summary: Summary,
}

impl<'a> Report<'a> {
    fn new(out: &'a mut dyn Write, opts: &'a RunnerOptions) -> Report<'a> {
        Report {
            out,
            opts,
            summary: Summary::default(),
        }
    }

    /// The summary line (after one for expected compile errors, if any),
    /// and the summary.
    fn finish(self) -> io::Result<Summary> {
        let s = self.summary;
        let Rejections { expected, rejected } = s.rejections;
        if expected > 0 {
            writeln!(
                self.out,
                "compile errors: {rejected} of {expected} rejected as expected"
            )?;
        }
        writeln!(
            self.out,
            "{} passed, {} failed, {} skipped",
            s.passed, s.failed, s.skipped
        )?;
        Ok(s)
    }

    fn fail(&mut self, line: &str) -> io::Result<()> {
        self.summary.failed += 1;
        writeln!(self.out, "{line}")
    }

    fn pass(&mut self, line: &str) -> io::Result<()> {
        self.summary.passed += 1;
        if self.opts.verbose {
            writeln!(self.out, "{line}")?;
        }
        Ok(())
    }

    fn skip(&mut self, line: &str) -> io::Result<()> {
        self.summary.skipped += 1;
        if self.opts.verbose {
            writeln!(self.out, "{line}")?;
        }
        Ok(())
    }

    fn outcome(&mut self, loc: &str, outcome: Outcome) -> io::Result<()> {
        match outcome {
            Outcome::Pass => self.pass(&format!("{loc}: ok")),
            Outcome::Skip(why) => self.skip(&format!("{loc}: skipped ({why})")),
            Outcome::Fail(why) => self.fail(&format!("{loc}: {why}")),
        }
    }
}

enum Outcome {
    Pass,
    Fail(String),
    Skip(String),
}

/// 1-based line of a byte offset.
pub(crate) fn line_of(text: &str, offset: u32) -> usize {
    let end = (offset as usize).min(text.len());
    text.as_bytes()[..end]
        .iter()
        .filter(|b| **b == b'\n')
        .count()
        + 1
}

fn first_line(msg: &str) -> &str {
    msg.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("")
}

fn indented(msg: &str) -> String {
    msg.lines()
        .map(|l| format!("    {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The number of tests in a file: one per case and entry point, and one
/// per compile-error expectation.
pub fn test_count(spec: &TestSpec) -> usize {
    spec.blocks
        .iter()
        .map(|b| {
            usize::from(b.compile_error.is_some())
                + b.cases.len() * b.entries.len()
                + b.properties.len()
        })
        .sum()
}

/// Runs the test blocks of one program given as text, as `run_paths` runs
/// a file's, ending with the same summary line; for the fuzz targets
/// (fuzz/), which must not touch the file system: a case reading values
/// from a file (`input @`, `output @`) fails, there being no directory to
/// read them from.
pub fn run_text<E: Engine>(
    name: &str,
    text: &str,
    engine: &mut E,
    opts: &RunnerOptions,
    out: &mut dyn Write,
) -> io::Result<Summary> {
    let mut r = Report::new(out, opts);
    run_source(Path::new(name), text, None, engine, &mut r)?;
    r.finish()
}

fn run_file<E: Engine>(path: &Path, engine: &mut E, r: &mut Report) -> io::Result<()> {
    match urchin_base::source::read_source(path, r.opts.memory) {
        Ok(text) => run_source(
            path,
            &text,
            Some(path.parent().unwrap_or(Path::new(""))),
            engine,
            r,
        ),
        Err(e) => r.fail(&format!("{}: cannot read: {e}", path.display())),
    }
}

/// The tests of a program read from `path`; data files are looked up in
/// `dir`, where there is one.
fn run_source<E: Engine>(
    path: &Path,
    text: &str,
    dir: Option<&Path>,
    engine: &mut E,
    r: &mut Report,
) -> io::Result<()> {
    let name = path.display();
    let spec = match parse_test_spec(text, FileId(0)) {
        Ok(s) => s,
        Err(d) => {
            let line = d.span.map_or(1, |s| line_of(text, s.start));
            let label = d
                .label
                .as_deref()
                .map(|l| format!(" ({l})"))
                .unwrap_or_default();
            return r.fail(&format!(
                "{name}:{line}: invalid test block: {}{label}",
                d.message
            ));
        }
    };
    if spec.disabled() {
        r.summary.skipped += test_count(&spec);
        return writeln!(r.out, "{name}: skipped: disabled by a `disable` tag");
    }
    let compiled = engine.compile(path, text);
    let mut compile_error_expected = false;
    for block in &spec.blocks {
        let Some((re, span)) = &block.compile_error else {
            continue;
        };
        compile_error_expected = true;
        r.summary.rejections.expected += 1;
        if compiled
            .as_ref()
            .is_err_and(|msg| !msg.contains("internal error: "))
        {
            r.summary.rejections.rejected += 1;
        }
        let loc = format!("{name}:{}", line_of(text, span.start));
        let outcome = match (&compiled, error_regex(re)) {
            (_, Err(e)) => Outcome::Fail(format!("invalid regular expression \"{re}\": {e}")),
            (Ok(_), _) => Outcome::Fail(format!(
                "expected a compile error matching \"{re}\", but the program compiled"
            )),
            // A bug of urchin's is not the error the test expects.
            (Err(msg), Ok(_)) if msg.contains("internal error: ") => Outcome::Fail(format!(
                "expected a compile error matching \"{re}\", but urchin failed internally: {}",
                first_line(msg)
            )),
            (Err(msg), Ok(rx)) if rx.is_match(msg) => Outcome::Pass,
            (Err(msg), Ok(_)) => Outcome::Fail(format!(
                "compile error did not match \"{re}\": {}",
                first_line(msg)
            )),
        };
        r.outcome(&format!("{loc}: compile error"), outcome)?;
    }
    let prog = match compiled {
        Ok(p) => Some(p),
        Err(msg) => {
            let has_cases = spec.blocks.iter().any(|b| !b.cases.is_empty());
            if has_cases || !compile_error_expected {
                // The diagnostics once; each case then fails in one line.
                writeln!(r.out, "{name}: does not compile:\n{}", indented(&msg))?;
            }
            None
        }
    };
    let failed_before = r.summary.failed;
    for block in &spec.blocks {
        for (prop, span) in &block.properties {
            let loc = format!("{name}:{}: property `{prop}`", line_of(text, span.start));
            r.outcome(
                &loc,
                Outcome::Skip("property-based tests are not supported".into()),
            )?;
        }
        for case in &block.cases {
            let line = line_of(text, case.span.start);
            for entry in &block.entries {
                let dataset = case
                    .name
                    .as_ref()
                    .map(|n| format!(" \"{n}\""))
                    .unwrap_or_default();
                let loc = format!(
                    "{name}:{line}: entry `{entry}` case {}{dataset}",
                    case.index
                );
                let outcome = run_case(engine, prog.as_ref(), case, entry, dir, r.opts);
                r.outcome(&loc, outcome)?;
            }
        }
    }
    // A program that does not compile is one failure even when no case
    // could report it (no cases, or all of them skipped).
    if prog.is_none() && !compile_error_expected && r.summary.failed == failed_before {
        r.summary.failed += 1;
    }
    Ok(())
}

/// An `error:` block's regex as Futhark's test runner reads it: `.`
/// matches newlines too, since an error is several lines (a message, its
/// place, the calls it happened inside).
fn error_regex(re: &str) -> Result<Regex, regex::Error> {
    regex::RegexBuilder::new(re)
        .dot_matches_new_line(true)
        .build()
}

fn run_case<E: Engine>(
    engine: &mut E,
    prog: Option<&E::Program>,
    case: &TestCase,
    entry: &str,
    dir: Option<&Path>,
    opts: &RunnerOptions,
) -> Outcome {
    if case.input == CaseInput::Script {
        return Outcome::Skip("script input".into());
    }
    if case.compiled_only && !opts.compiled {
        return Outcome::Skip("compiled only".into());
    }
    let Some(prog) = prog else {
        return Outcome::Fail("the program does not compile".to_string());
    };
    let params = match engine.entry_params(prog, entry) {
        Ok(p) => p,
        Err(e) => return Outcome::Fail(e),
    };
    let args = match inputs(case, &params, dir, opts.memory) {
        Ok(a) => a,
        Err(e) => return Outcome::Fail(e),
    };
    let watchdog = opts.timeout.map(Watchdog::start);
    let result = engine.run(prog, entry, args, watchdog.as_ref().map(|w| w.flag.clone()));
    if watchdog.is_some_and(|w| w.fired()) {
        let secs = opts.timeout.unwrap_or_default().as_secs_f64();
        return Outcome::Fail(format!("timed out after {secs} s (--timeout)"));
    }
    if result.is_err() {
        if let Some(why) = engine.skip_reason() {
            return Outcome::Skip(why);
        }
    }
    let outcome = match (&case.expect, result) {
        (Expect::Error(re, _), Ok(_)) => {
            Err(format!("expected an error matching \"{re}\", got success"))
        }
        (Expect::Error(re, _), Err(msg)) => match error_regex(re) {
            Ok(rx) if rx.is_match(&msg) => Ok(()),
            Ok(_) => Err(format!(
                "error did not match \"{re}\": {}",
                first_line(&msg)
            )),
            Err(e) => Err(format!("invalid regular expression \"{re}\": {e}")),
        },
        (_, Err(msg)) => Err(format!("run-time error: {}", first_line(&msg))),
        (Expect::Success, Ok(_)) => Ok(()),
        (Expect::Output(text, span), Ok(got)) => parse_values(text, span.file, span.start as usize)
            .map_err(|d| format!("invalid expected output: {}", d.message))
            .and_then(|expected| check_output(&expected, &got, opts.tolerance)),
        (Expect::OutputFile(file), Ok(got)) => data_file(dir, file)
            .and_then(|path| read_values(&path, opts.memory))
            .map_err(|e| format!("expected output: {e}"))
            .and_then(|expected| check_output(&expected, &got, opts.tolerance)),
    };
    match outcome {
        Ok(()) => Outcome::Pass,
        Err(why) => Outcome::Fail(why),
    }
}

/// Sets `flag` once the time is up, unless dropped first.
struct Watchdog {
    flag: Arc<AtomicBool>,
    /// Dropping it wakes the thread, which then ends.
    _cancel: mpsc::Sender<()>,
}

impl Watchdog {
    fn start(limit: Duration) -> Watchdog {
        let flag = Arc::new(AtomicBool::new(false));
        let (cancel, wait) = mpsc::channel::<()>();
        let f = flag.clone();
        std::thread::spawn(move || {
            if let Err(mpsc::RecvTimeoutError::Timeout) = wait.recv_timeout(limit) {
                f.store(true, Ordering::Relaxed);
            }
        });
        Watchdog {
            flag,
            _cancel: cancel,
        }
    }

    fn fired(&self) -> bool {
        self.flag.load(Ordering::Relaxed)
    }
}

fn plural(n: usize, what: &str) -> String {
    if n == 1 {
        format!("{n} {what}")
    } else {
        format!("{n} {what}s")
    }
}

/// Compares results with the expected values; each expected value is read
/// at the type of the corresponding result.
fn check_output(expected: &[LitValue], got: &[Value], tol: Tolerance) -> Result<(), String> {
    if expected.len() != got.len() {
        return Err(format!(
            "expected {}, got {}",
            plural(expected.len(), "value"),
            got.len()
        ));
    }
    let prefix = |i: usize| {
        if got.len() > 1 {
            format!("value #{i}: ")
        } else {
            String::new()
        }
    };
    for (i, (e, g)) in expected.iter().zip(got).enumerate() {
        let t = ValueType::of(g);
        if !e.accepts(t) {
            return Err(format!(
                "{}type mismatch: expected {} got {t}",
                prefix(i),
                e.value_type()
            ));
        }
        let ev = e
            .to_value(Some(t))
            .map_err(|m| format!("{}{m}", prefix(i)))?;
        compare(&ev, g, tol).map_err(|m| format!("{}{m}", prefix(i)))?;
    }
    Ok(())
}

/// Where a data file named in a test block is.
fn data_file(dir: Option<&Path>, file: &Path) -> Result<PathBuf, String> {
    dir.map(|d| d.join(file)).ok_or_else(|| {
        format!(
            "cannot read {}: the program is not in a file",
            file.display()
        )
    })
}

/// Values from a data file (an `input @` or `output @` file): text or
/// binary values, gzipped if the name ends in `.gz`.
fn read_values(path: &Path, memory: urchin_base::mem::Budget) -> Result<Vec<LitValue>, String> {
    let data = urchin_runtime::values::read_data_file(path, memory)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    urchin_runtime::values::read_values(&data, FileId(0)).map_err(|d| {
        let text = urchin_runtime::values::display_text(&data);
        let line = d.span.map_or(1, |s| line_of(&text, s.start));
        format!("{}:{line}: {}", path.display(), d.message)
    })
}

/// The arguments of a case, at the entry point's parameter types.
fn inputs(
    case: &TestCase,
    params: &[ValueType],
    dir: Option<&Path>,
    memory: urchin_base::mem::Budget,
) -> Result<Vec<Value>, String> {
    let lits = match &case.input {
        CaseInput::Values(text, span) => parse_values(text, span.file, span.start as usize)
            .map_err(|d| format!("invalid input: {}", d.message))?,
        CaseInput::File(file) => data_file(dir, file)
            .and_then(|path| read_values(&path, memory))
            .map_err(|e| format!("input: {e}"))?,
        CaseInput::Random(specs, span) => return random_inputs(specs, *span, params),
        CaseInput::Script => return Err("script inputs are not supported".to_string()),
    };
    if lits.len() != params.len() {
        return Err(format!(
            "the entry point takes {}, the input has {}",
            plural(params.len(), "value"),
            lits.len()
        ));
    }
    lits.iter()
        .zip(params)
        .enumerate()
        .map(|(i, (l, p))| {
            l.to_value(Some(*p))
                .map_err(|m| format!("input value #{i}: {m}"))
        })
        .collect()
}

/// Generated arguments: floats uniform in [0, 1), integers in [0, 100),
/// from a xorshift generator seeded by the case's position in the file, so
/// every run sees the same values. A shape too large to hold is an error,
/// found before anything is allocated.
fn random_inputs(
    specs: &[RandomValue],
    span: Span,
    params: &[ValueType],
) -> Result<Vec<Value>, String> {
    if specs.len() != params.len() {
        return Err(format!(
            "the entry point takes {}, the random input has {}",
            plural(params.len(), "value"),
            specs.len()
        ));
    }
    let mut rng = XorShift::new(u64::from(span.start));
    specs
        .iter()
        .zip(params)
        .enumerate()
        .map(|(i, (spec, p))| {
            let (shape, elem) = match spec {
                RandomValue::Constant(s) => {
                    let t = ValueType::new(s.ty(), 0);
                    if t != *p {
                        return Err(format!("random input value #{i}: expected {p}, got {t}"));
                    }
                    return Ok(Value::Scalar(*s));
                }
                RandomValue::Random { shape, elem } => (shape, *elem),
            };
            let t = ValueType::new(elem, shape.len());
            if t != *p {
                return Err(format!("random input value #{i}: expected {p}, got {t}"));
            }
            let too_large = || format!("random input value #{i}: {spec} is too large to generate");
            let n = shape
                .iter()
                .try_fold(1usize, |n, d| n.checked_mul(*d))
                .ok_or_else(too_large)?;
            fn fill<T: Element>(rng: &mut XorShift, shape: &[usize], n: usize) -> Option<Array> {
                let mut data: Vec<T> = Vec::new();
                data.try_reserve_exact(n).ok()?;
                data.extend((0..n).map(|_| rng.element::<T>()));
                ArcArray::from_shape_vec(IxDyn(shape), data)
                    .ok()
                    .map(T::wrap_array)
            }
            let array = urchin_prim::dispatch_prim!(elem, fill(&mut rng, shape, n))
                .ok_or_else(too_large)?;
            Ok(if shape.is_empty() {
                Value::Scalar(array.get_flat(0))
            } else {
                Value::Array(array)
            })
        })
        .collect()
}

/// xorshift64* (Vigna): small, fast and good enough for test data.
struct XorShift(u64);

impl XorShift {
    fn new(seed: u64) -> XorShift {
        // splitmix64 spreads nearby seeds apart; the state must not be 0.
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        XorShift((z ^ (z >> 31)) | 1)
    }

    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Floats in [0, 1) from the top 53 bits (rounded to the type), the
    /// integers 0 to 99, or a fair bool.
    fn element<T: Native>(&mut self) -> T {
        let x = self.next();
        match T::TY {
            PrimType::Bool => T::from_u64(x >> 63),
            t if t.is_float() => {
                // Rounding to a narrower float may give 1.0; stay below.
                let y = T::from_f64((x >> 11) as f64 / (1u64 << 53) as f64);
                if y.to_f64() < 1.0 {
                    y
                } else {
                    T::from_f64(0.0)
                }
            }
            _ => T::from_u64(x % 100),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use urchin_prim::Scalar;

    /// A stand-in interpreter. A program is a list of lines
    /// `entry NAME TYPE...` (comments aside); a line `bad` makes it fail to
    /// compile. Entries named `sum*` return the sum of all their input
    /// elements at the first parameter's element type, `boom*` fail with an
    /// out-of-bounds error, and anything else returns its arguments.
    struct Fake;

    struct FakeProgram(Vec<(String, Vec<ValueType>)>);

    fn parse_type(s: &str) -> Option<ValueType> {
        let rank = s.matches("[]").count();
        PrimType::from_name(s.trim_start_matches("[]")).map(|e| ValueType::new(e, rank))
    }

    impl Engine for Fake {
        type Program = FakeProgram;

        fn compile(&mut self, _path: &Path, text: &str) -> Result<FakeProgram, String> {
            let mut entries = Vec::new();
            for (i, line) in text.lines().enumerate() {
                let words: Vec<&str> = line.split_whitespace().collect();
                match words.as_slice() {
                    ["bad", ..] => {
                        return Err(format!(
                            "Error: parse error: unexpected `bad`\n  at line {}",
                            i + 1
                        ));
                    }
                    ["entry", name, types @ ..] => {
                        let types = types
                            .iter()
                            .map(|t| parse_type(t).ok_or(format!("bad type {t}")));
                        entries.push((name.to_string(), types.collect::<Result<_, _>>()?));
                    }
                    _ => {}
                }
            }
            Ok(FakeProgram(entries))
        }

        fn entry_params(&self, prog: &FakeProgram, entry: &str) -> Result<Vec<ValueType>, String> {
            prog.0
                .iter()
                .find(|(n, _)| n == entry)
                .map(|(_, p)| p.clone())
                .ok_or_else(|| format!("no entry point `{entry}`"))
        }

        fn run(
            &mut self,
            prog: &FakeProgram,
            entry: &str,
            args: Vec<Value>,
            _interrupt: Option<Arc<AtomicBool>>,
        ) -> Result<Vec<Value>, String> {
            let params = self.entry_params(prog, entry)?;
            if entry.starts_with("boom") {
                return Err(
                    "index 3 out of bounds for an array of 3 elements\n  at t.fut:3".to_string(),
                );
            }
            if !entry.starts_with("sum") {
                return Ok(args);
            }
            let elems = args.iter().flat_map(|a| match a {
                Value::Array(x) => x.to_scalars(),
                other => other.scalar().into_iter().collect(),
            });
            let t = params.first().map_or(PrimType::I64, |p| p.elem);
            let total: f64 = elems.map(Scalar::as_f64).sum();
            Ok(vec![Value::Scalar(if t.is_float() {
                Scalar::from_f64(t, total)
            } else {
                Scalar::from_i64(t, total as i64)
            })])
        }
    }

    /// A fresh directory for one test's files, removed afterwards.
    struct Dir(PathBuf);

    impl Dir {
        fn new(name: &str) -> Dir {
            let p =
                std::env::temp_dir().join(format!("urchin-testing-{}-{name}", std::process::id()));
            let _ = fs::remove_dir_all(&p);
            fs::create_dir_all(&p).expect("temp dir");
            Dir(p)
        }

        fn file(&self, rel: &str, text: &str) -> PathBuf {
            let p = self.0.join(rel);
            fs::create_dir_all(p.parent().expect("has a parent")).expect("temp dir");
            fs::write(&p, text).expect("write test file");
            p
        }
    }

    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    fn run_with(dir: &Dir, paths: &[PathBuf], opts: RunnerOptions) -> (Summary, String) {
        let mut out = Vec::new();
        let s = run_paths(paths, &mut Fake, &opts, &mut out).expect("writing to a Vec");
        let text = String::from_utf8(out).expect("utf-8 output");
        (s, text.replace(&format!("{}/", dir.0.display()), ""))
    }

    fn run_one(name: &str, text: &str) -> (Summary, String) {
        let dir = Dir::new(name);
        let p = dir.file(&format!("{name}.fut"), text);
        run_with(&dir, &[p], RunnerOptions::default())
    }

    /// Runs the program `text` as `name.fut`: its summary is `expected` and
    /// its output contains each of `lines`.
    fn expect_run(name: &str, text: &str, expected: Summary, lines: &[&str]) {
        let (s, out) = run_one(name, text);
        assert_eq!(s, expected, "{out}");
        for l in lines {
            assert!(out.contains(l), "{l:?} not in:\n{out}");
        }
    }

    fn summary(passed: usize, failed: usize, skipped: usize) -> Summary {
        Summary {
            passed,
            failed,
            skipped,
            ..Summary::default()
        }
    }

    /// A summary of `expected` programs that must not compile, `rejected`
    /// of which did not.
    fn rejecting(s: Summary, expected: usize, rejected: usize) -> Summary {
        Summary {
            rejections: Rejections { expected, rejected },
            ..s
        }
    }

    #[test]
    fn passing_cases_with_coerced_inputs() {
        let (s, out) = run_one(
            "pass",
            "-- ==\n-- entry: sum_i sum_f\n-- input { [1, 2, 3] 10 }\n-- output { 16 }\n\nentry sum_i []i64 i64\nentry sum_f []f32 f32\n",
        );
        assert_eq!(s, summary(2, 0, 0), "{out}");
        assert_eq!(out, "2 passed, 0 failed, 0 skipped\n");
    }

    #[test]
    fn output_mismatches() {
        expect_run(
            "mismatch",
            "-- ==\n-- entry: sum\n-- input { [1, 2] }\n-- output { 4 }\n-- input { [1.5, 1] }\n-- output { 2.5 }\n-- input { [1] }\n-- output { 1 2 }\n-- input { [1] }\n-- output { [1] }\nentry sum []f64\n",
            summary(1, 3, 0),
            &[
                "mismatch.fut:3: entry `sum` case 0: expected 4.0, got 3.0\n",
                "mismatch.fut:7: entry `sum` case 2: expected 2 values, got 1\n",
                "case 3: type mismatch: expected []i32 got f64\n",
            ],
        );
    }

    #[test]
    fn run_time_errors() {
        expect_run(
            "errors",
            "-- ==\n-- entry: boom\n-- input { 1 }\n-- error: out of bounds\n-- input { 1 }\n-- error: division\n-- input { 1 }\n-- output { 1 }\n\n-- ==\n-- entry: id\n-- input { 1 }\n-- error: .\nentry boom i32\nentry id i32\n",
            summary(1, 3, 0),
            &[
                "case 1: error did not match \"division\": index 3 out of bounds for an array of 3 elements\n",
                "case 2: run-time error: index 3 out of bounds for an array of 3 elements\n",
                "errors.fut:12: entry `id` case 0: expected an error matching \".\", got success\n",
            ],
        );
    }

    #[test]
    fn compile_errors() {
        let (s, out) = run_one("expected", "-- ==\n-- error: unexpected `bad`\nbad\n");
        assert_eq!(s, rejecting(summary(1, 0, 0), 1, 1), "{out}");
        assert_eq!(
            out,
            "compile errors: 1 of 1 rejected as expected\n1 passed, 0 failed, 0 skipped\n"
        );
        let (s, out) = run_one("unmatched", "-- ==\n-- error: ambiguous\nbad\n");
        assert_eq!(s, rejecting(summary(0, 1, 0), 1, 1), "{out}");
        assert!(out.starts_with("unmatched.fut:2: compile error: compile error did not match \"ambiguous\": Error: parse error: unexpected `bad`\n"), "{out}");
        expect_run(
            "compiles",
            "-- ==\n-- error: ambiguous\nentry main\n",
            rejecting(summary(0, 1, 0), 1, 0),
            &["expected a compile error matching \"ambiguous\", but the program compiled"],
        );
        let (s, out) = run_one("broken", "-- ==\n-- input { 1 }\n-- input { 2 }\nbad\n");
        assert_eq!(s, summary(0, 2, 0), "{out}");
        assert_eq!(
            out.matches("parse error").count(),
            1,
            "diagnostics once: {out}"
        );
        assert!(out.contains("broken.fut:3: entry `main` case 1: the program does not compile\n"));
        let (s, _) = run_one("noblocks", "bad\n");
        assert_eq!(s, summary(0, 1, 0));
        let (s, out) = run_one("allskipped", "-- ==\n-- compiled input { 1 }\nbad\n");
        assert_eq!(s, summary(0, 1, 1), "{out}");
        let (s, out) = run_one("fine", "-- no test blocks\nentry main i32\n");
        assert_eq!(
            (s, out.as_str()),
            (summary(0, 0, 0), "0 passed, 0 failed, 0 skipped\n")
        );
    }

    #[test]
    fn inputs_from_files_and_random_inputs() {
        let dir = Dir::new("files");
        dir.file("data/in.txt", "[1, 2,\n 3]\n4\n");
        dir.file("data/out.txt", "10");
        let p = dir.file(
            "sub/t.fut",
            "-- ==\n-- entry: sum\n-- input @ ../data/in.txt\n-- output @ ../data/out.txt\n-- input @ missing.txt\n-- random input { [100]f32 f32 }\n-- random input { [3]i64 f32 }\nentry sum []f32 f32\n",
        );
        let (s, out) = run_with(&dir, &[p], RunnerOptions::default());
        assert_eq!(s, summary(2, 2, 0), "{out}");
        assert!(out.contains("case 1: input: cannot read"), "{out}");
        assert!(
            out.contains("case 3: random input value #0: expected []f32, got []i64"),
            "{out}"
        );
    }

    #[test]
    fn programs_given_as_text_read_no_files() {
        let mut out = Vec::new();
        let s = run_text(
            "t.fut",
            "-- ==\n-- entry: sum\n-- input { [1, 2] }\n-- output { 3 }\n-- input @ /dev/zero\n-- input { [1] }\n-- output @ /dev/zero\nentry sum []i32\n",
            &mut Fake,
            &RunnerOptions::default(),
            &mut out,
        )
        .expect("writes to a vector");
        let out = String::from_utf8(out).expect("UTF-8");
        assert_eq!(s, summary(1, 2, 0), "{out}");
        assert!(
            out.contains("t.fut:5: entry `sum` case 1: input: cannot read /dev/zero: the program is not in a file"),
            "{out}"
        );
        assert!(out.ends_with("1 passed, 2 failed, 0 skipped\n"), "{out}");
    }

    #[test]
    fn random_values_are_deterministic_and_in_range() {
        let random = |shape: Vec<usize>, elem| RandomValue::Random { shape, elem };
        let specs = [
            random(vec![50], PrimType::F64),
            random(vec![50], PrimType::I32),
            RandomValue::Constant(Scalar::I64(7)),
        ];
        let params = [
            ValueType::new(PrimType::F64, 1),
            ValueType::new(PrimType::I32, 1),
            ValueType::new(PrimType::I64, 0),
        ];
        let span = Span::new(FileId(0), 7, 8);
        let a = random_inputs(&specs, span, &params).expect("types agree");
        let b = random_inputs(&specs, span, &params).expect("types agree");
        let floats = a[0].array().map(Array::to_scalars).unwrap_or_default();
        let ints = a[1].array().map(Array::to_scalars).unwrap_or_default();
        assert!(floats.iter().all(|x| (0.0..1.0).contains(&x.as_f64())));
        assert!(ints.iter().all(|x| (0..100).contains(&x.as_i64())));
        assert!(ints.iter().any(|x| x.as_i64() != ints[0].as_i64()));
        assert_eq!(a[2].scalar(), Some(Scalar::I64(7)));
        assert_eq!(
            compare(&a[0], &b[0], Tolerance { abs: 0.0, rel: 0.0 }),
            Ok(())
        );
        // Every element type can be generated.
        for t in PrimType::ALL {
            let v = random_inputs(&[random(vec![3, 2], t)], span, &[ValueType::new(t, 2)]);
            assert_eq!(v.ok().and_then(|v| v[0].array().map(|a| a.elem())), Some(t));
        }
        // Shapes too large to hold are errors, not aborts.
        for shape in [vec![4294967296, 4294967296], vec![1 << 62]] {
            let rank = shape.len();
            let huge = random_inputs(
                &[random(shape, PrimType::I32)],
                span,
                &[ValueType::new(PrimType::I32, rank)],
            );
            assert!(huge.is_err_and(|e| e.contains("too large to generate")));
        }
        let wrong = random_inputs(&specs[2..], span, &[ValueType::new(PrimType::I32, 0)]);
        assert_eq!(
            wrong.err().as_deref(),
            Some("random input value #0: expected i32, got i64")
        );
    }

    #[test]
    fn skipped_cases_and_files() {
        let (s, out) = run_one(
            "skips",
            "-- ==\n-- compiled input { 1 }\n-- output { 1 }\n-- script input { main 1 }\n-- input { 2 }\n-- output { 2 }\nentry main i32\n",
        );
        assert_eq!(s, summary(1, 0, 2), "{out}");
        let dir = Dir::new("compiled");
        let p = dir.file(
            "c.fut",
            "-- ==\n-- compiled input { 1 }\n-- output { 1 }\nentry main i32\n",
        );
        let opts = RunnerOptions {
            compiled: true,
            ..RunnerOptions::default()
        };
        assert_eq!(run_with(&dir, &[p], opts).0, summary(1, 0, 0));
        let (s, out) = run_one(
            "disabled",
            "-- ==\n-- tags { disable }\n-- input { 1 }\n-- output { 2 }\nentry main i32\n",
        );
        assert_eq!(s, summary(0, 0, 1));
        assert_eq!(
            out,
            "disabled.fut: skipped: disabled by a `disable` tag\n0 passed, 0 failed, 1 skipped\n"
        );
        expect_run(
            "props",
            "-- ==\n-- property: p q\n-- \"one\" input { 1 }\n-- output { 2 }\nentry main i32\n",
            summary(0, 1, 2),
            &["props.fut:3: entry `main` case 0 \"one\": expected 2, got 1"],
        );
    }

    #[test]
    fn bad_specs_and_paths() {
        for (name, text, line) in [
            (
                "bad",
                "-- ==\n-- input { [1, 2 }\n-- output { 1 }\nentry main []i32\n",
                "bad.fut:2: entry `main` case 0: invalid input: expected `,` or `]`",
            ),
            (
                "spec",
                "-- ==\n-- input { 1 }\n-- outptu { 1 }\nentry main i32\n",
                "spec.fut:3: invalid test block: unknown test-block directive `outptu`",
            ),
            (
                "noentry",
                "-- ==\n-- input { 1 }\nentry other i32\n",
                "case 0: no entry point `main`",
            ),
            (
                "arity",
                "-- ==\n-- input { 1 }\nentry main i32 i32\n",
                "the entry point takes 2 values, the input has 1",
            ),
        ] {
            expect_run(name, text, summary(0, 1, 0), &[line]);
        }
        let dir = Dir::new("missing");
        let (s, _) = run_with(&dir, &[dir.0.join("nope.fut")], RunnerOptions::default());
        assert_eq!(s, summary(0, 1, 0));
    }

    #[test]
    fn snapshot_of_a_small_suite() {
        let dir = Dir::new("suite");
        dir.file(
            "a/arith.fut",
            "-- Sums.\n-- ==\n-- entry: sum_i sum_f\n-- input { [1, 2, 3] 10 }\n-- output { 16 }\n-- input { [1] 1 }\n-- output { 3 }\n\n-- ==\n-- entry: boom\n-- input { 0 }\n-- error: out of bounds\n-- input { 0 }\n-- error: overflow\n\nentry sum_i []i64 i64\nentry sum_f []f32 f32\nentry boom i32\n",
        );
        dir.file(
            "a/ids.fut",
            "-- ==\n-- input { [[1.0, 2.0], [3.5, 4.0]] true }\n-- output { [[1.0, 2.0], [3.7, 4.0]] true }\n-- compiled input { empty([0]i32) }\n-- random input { [4][4]f64 bool }\n\nentry main [][]f64 bool\n",
        );
        dir.file(
            "b/ambiguous.fut",
            "-- ==\n-- error: error: unexpected\nbad\n",
        );
        dir.file(
            "b/broken.fut",
            "-- ==\n-- input { 1 }\n-- output { 1 }\nbad\n",
        );
        dir.file(
            "b/off.fut",
            "-- ==\n-- tags { disable }\n-- input { 1 }\nentry main i32\n",
        );
        dir.file("b/notes.txt", "not a test");
        let (s, out) = run_with(&dir, std::slice::from_ref(&dir.0), RunnerOptions::default());
        assert_eq!(s, rejecting(summary(5, 5, 2), 1, 1));
        insta::with_settings!({snapshot_path => "../../snapshots"}, {
            insta::assert_snapshot!("runner_small_suite", out);
        });
        let verbose = RunnerOptions {
            verbose: true,
            ..RunnerOptions::default()
        };
        let (_, out) = run_with(&dir, std::slice::from_ref(&dir.0), verbose);
        insta::with_settings!({snapshot_path => "../../snapshots"}, {
            insta::assert_snapshot!("runner_small_suite_verbose", out);
        });
    }
}
