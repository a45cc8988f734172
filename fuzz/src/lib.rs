//! The fuzz targets' bodies: each takes the fuzzer's bytes and runs one
//! stage of urchin on them. The invariant is the same for all: whatever the
//! input, the stage ends in a value or in diagnostics, never in a panic, an
//! abort, a stack overflow or a run past its budget; those are the
//! findings, which the fuzzer records as crashes (the process dies) or
//! hangs (it outlives the fuzzer's timeout).

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;
use urchin::driver::Session;
use urchin::host::Host;
use urchin::repl::Repl;
use urchin::testing::blocks::parse_test_spec;
use urchin::testing::engine::{FastEngine, Loaded, SmallStepEngine};
use urchin::testing::runner::{Engine, RunnerOptions, run_text, test_count};
use urchin_base::diag::render_all;
use urchin_base::mem::Budget;
use urchin_base::source::{FileId, SourceMap};
use urchin_runtime::value::Value;
use urchin_runtime::values::{ValueType, format_value};
use urchin_syntax as syntax;
use urchin_syntax::ast::Erase;

/// The memory limit of a fuzz target (`--max-memory`): far below the
/// machine's, so that an input allocating past it is a diagnostic rather
/// than a slow swap or the fuzzer's out-of-memory kill.
pub const MEMORY_LIMIT: usize = 512 << 20;

/// How long one test case may run (the runner's `--timeout`): with at most
/// `MAX_CASES` cases, well inside the fuzzer's timeout (`run.sh`), so that
/// a long-running program is an ordinary failure and only a run that
/// ignores the budget is a hang.
pub const CASE_TIME: Duration = Duration::from_millis(250);

/// Inputs with more test cases than this are not run (mutations that copy
/// a block over and over would otherwise add up to a hang).
pub const MAX_CASES: usize = 8;

/// The reference semantics' step budget: small, so that the fuzzer spends
/// its time on many programs rather than on one long one.
pub const MAX_STEPS: u64 = 200_000;

/// What every target runs with: `MEMORY_LIMIT`, one thread and no device
/// (the same results, and a fuzzer runs one process per core).
fn host() -> Host {
    let mut host = Host::default();
    host.memory = Budget::new(MEMORY_LIMIT);
    host.set_threads(1);
    host
}

thread_local! {
    /// The prelude, checked once: every input's session is a copy.
    static PRELUDE: Session = Session::with_host(host());
}

/// A session with the prelude loaded, running with [`host`].
fn fresh_session() -> Session {
    PRELUDE.with(|p| p.with_new_host(host()))
}

/// Sets up the process once, before the fuzz loop: the prelude checked,
/// so that it is in the state the fuzzer forks from rather than checked
/// again for every input.
pub fn init() {
    PRELUDE.with(|_| ());
}

/// The program text of an input: the fuzzer's bytes read as UTF-8.
fn text(data: &[u8]) -> Option<&str> {
    std::str::from_utf8(data).ok()
}

/// Diagnostics must render: they are what a user sees.
fn render(diags: &[urchin_base::diag::Diagnostic], name: &str, text: &str) {
    let mut sources = SourceMap::new();
    sources.add(name, text);
    render_all(diags, &sources, false);
}

/// `parse`: the program parser and the REPL's, and the printer on what
/// parses, whose output must parse again to the same program (the
/// round trip src/syntax/tests/corpus.rs checks on real programs).
pub fn parse(data: &[u8]) {
    let Some(text) = text(data) else { return };
    match syntax::parse_program(text, FileId(0)) {
        Ok(program) => {
            let printed = syntax::pretty::program(&program);
            match syntax::parse_program(&printed, FileId(0)) {
                Ok(again) => assert!(
                    again.erase() == program.erase(),
                    "the program printed as\n{printed}\nparses to another program"
                ),
                Err(diags) => panic!(
                    "the program printed as\n{printed}\ndoes not parse:\n{}",
                    diags[0].message
                ),
            }
        }
        Err(diags) => render(&diags, "fuzz.fut", text),
    }
    if let Err(diags) = syntax::parse_repl(text, FileId(0)) {
        render(&diags, "<repl>", text);
    }
}

/// `check`: type checking with AUTOMAP and elaboration of a program, then
/// lowering, AD and simplification of each of its monomorphic definitions
/// (what running it would compile).
pub fn check(data: &[u8]) {
    let Some(text) = text(data) else { return };
    let mut session = fresh_session();
    match session.load("fuzz.fut", text) {
        Ok(ids) => {
            for id in ids {
                if session.def(id).scheme.is_mono() {
                    if let Err(d) = session.compile(id) {
                        render_all(&[d], &session.sources, false);
                    }
                }
            }
        }
        Err(diags) => {
            render_all(&diags, &session.sources, false);
        }
    }
}

/// Runs an input as `urchin test` runs a file: its `-- ==` test blocks give
/// the entry points and their arguments, which the engine computes; each
/// case has `CASE_TIME`.
fn run_tests<E: Engine>(data: &[u8], engine: &mut E) {
    let Some(text) = text(data) else { return };
    if parse_test_spec(text, FileId(0)).is_ok_and(|spec| test_count(&spec) > MAX_CASES) {
        return;
    }
    let opts = RunnerOptions {
        timeout: Some(CASE_TIME),
        memory: Budget::new(MEMORY_LIMIT),
        ..RunnerOptions::default()
    };
    run_text("fuzz.fut", text, engine, &opts, &mut std::io::sink())
        .expect("writing to a sink cannot fail");
}

/// `eval`: the fast evaluator, on one thread and no device (the same
/// results, and a fuzzer runs one process per core), within the memory
/// limit and `CASE_TIME` a case.
pub fn eval(data: &[u8]) {
    let mut engine = FastEngine::starting_from(fresh_session());
    engine.options.device = None;
    run_tests(data, &mut engine);
}

/// `step`: the small-step reference semantics, within `MAX_STEPS` steps,
/// the memory limit and `CASE_TIME` a case.
pub fn step(data: &[u8]) {
    let mut engine = SmallStepEngine::starting_from(fresh_session());
    engine.options.max_steps = MAX_STEPS;
    run_tests(data, &mut engine);
}

/// `automap`: AUTOMAP's elaboration re-checked against explicit maps. The
/// program's elaboration (what `urchin elab` prints: every implicit `map`
/// and `rep` written out) must check with AUTOMAP off, and its test cases
/// must give the same values, or both fail, on the program and on its
/// elaboration (a wrong value on an edge case, such as an empty array,
/// shows as a difference). Budgets as `eval`'s.
pub fn automap(data: &[u8]) {
    let mut engine = Elaborated(FastEngine::starting_from(fresh_session()));
    engine.0.options.device = None;
    run_tests(data, &mut engine);
}

/// The fast engine over a program and its elaboration side by side.
struct Elaborated(FastEngine);

impl Engine for Elaborated {
    type Program = (Loaded, Loaded);

    fn compile(&mut self, path: &Path, text: &str) -> Result<(Loaded, Loaded), String> {
        let mut session = fresh_session();
        let ids = session
            .load(&path.display().to_string(), text)
            .map_err(|d| render_all(&d, &session.sources, false))?;
        let decs = syntax::parse_program(text, FileId(0))
            .expect("a program that loaded parses")
            .decs;
        let explicit = urchin::driver::elaborated(&session, &decs, &ids);
        let mut off = fresh_session();
        off.types.automap = false;
        let elaborated = Loaded::load_in(off, Path::new("elaborated.fut"), &explicit)
            .unwrap_or_else(|e| {
                panic!("the elaboration does not check with AUTOMAP off:\n{explicit}\n{e}")
            });
        let implicit = Loaded::load_in(fresh_session(), path, text)?;
        Ok((implicit, elaborated))
    }

    fn entry_params(&self, prog: &(Loaded, Loaded), entry: &str) -> Result<Vec<ValueType>, String> {
        self.0.entry_params(&prog.0, entry)
    }

    fn run(
        &mut self,
        prog: &(Loaded, Loaded),
        entry: &str,
        args: Vec<Value>,
        interrupt: Option<Arc<AtomicBool>>,
    ) -> Result<Vec<Value>, String> {
        let implicit = self.0.run(&prog.0, entry, args.clone(), interrupt.clone());
        let explicit = self.0.run(&prog.1, entry, args, interrupt);
        // A case stopped by its budget may stop in one and not the other.
        let budget = |r: &Result<Vec<Value>, String>| {
            r.as_ref()
                .is_err_and(|e| e.contains("interrupted") || e.contains("out of memory"))
        };
        if !budget(&implicit) && !budget(&explicit) {
            let shown = |r: &Result<Vec<Value>, String>| match r {
                Ok(vs) => Ok(vs.iter().map(format_value).collect::<Vec<_>>()),
                Err(_) => Err(()),
            };
            assert!(
                shown(&implicit) == shown(&explicit),
                "`{entry}` gives {implicit:?} with AUTOMAP and {explicit:?} elaborated"
            );
        }
        implicit
    }
}

/// At most this many lines of an input go to the REPL.
pub const MAX_LINES: usize = 64;

/// How long one REPL input may run before it is interrupted (as Ctrl-C
/// would), and the most lines of the input fed to it.
pub const LINE_TIME: Duration = Duration::from_millis(250);

/// `repl`: the input's lines typed at the REPL one after the other (as
/// piped into `urchin`): definitions, expressions and what they leave in
/// `it`, redefinitions, commands. Each input that runs past `LINE_TIME`
/// is interrupted. The REPL catches a panic and goes on, so a finding is
/// what it prints for one: an internal error (a bug of urchin's, never an
/// error in the input); a stack overflow still kills the process.
/// Commands that act outside the session (`:!`, `:cd`, `:edit`, `--out`
/// files, `:device`) are left out.
pub fn repl(data: &[u8]) {
    let Some(text) = text(data) else { return };
    let mut repl = Repl::with_session(fresh_session(), false);
    let flag = repl.interrupt_flag();
    let (tick, ticks) = mpsc::channel::<()>();
    let watchdog = std::thread::spawn(move || {
        loop {
            match ticks.recv_timeout(LINE_TIME) {
                Ok(()) => {}
                Err(mpsc::RecvTimeoutError::Timeout) => flag.store(true, Ordering::SeqCst),
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
        }
    });
    let outside = |l: &str| {
        let t = l.trim_start();
        [":!", ":cd", ":e", ":de", ":q"]
            .iter()
            .any(|c| t.starts_with(c))
            || l.contains("--out")
    };
    let mut out = String::new();
    for line in text.lines().take(MAX_LINES).filter(|l| !outside(l)) {
        let _ = tick.send(());
        repl.feed(line, &mut out);
    }
    repl.finish(&mut out);
    drop(tick);
    watchdog.join().expect("the watchdog ends");
    // At the start of a line: a snippet of the input may hold the words.
    assert!(
        !out.lines()
            .any(|l| l.starts_with("Error: internal error") || l.starts_with("internal error")),
        "the REPL reports a bug of urchin's:\n{out}"
    );
}
