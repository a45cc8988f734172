//! The REPL.
//!
//! [`Repl`] is the engine: it takes input a line at a time and writes what
//! a user would see to a [`Sink`], without knowing about terminals, so
//! that tests can drive it with a transcript. `terminal` runs it under
//! rustyline (prompt, history, completion, highlighting, Ctrl-C) or over
//! piped standard input.
//!
//! Each complete input is one of: an expression (evaluated and printed),
//! declarations (`def`, `let`, `type`), a pattern binding `let (a, b) = e`,
//! or a `:command` (see `commands`). A `let x = e` of a value evaluates `e`
//! once and keeps the value; a `def` (or a `let` of a function) adds a
//! definition. Every input is transactional: on an error the session is
//! left as it was.

mod ad;
pub mod breakpoints;
pub mod commands;
pub mod complete;
pub mod highlight;
mod modules;
pub mod plot;
mod print;
pub mod query;
mod style;
#[cfg(feature = "terminal")]
mod terminal;

use crate::driver::{Checkpoint, Session, show_dec};
use crate::host::Host;
use crate::plot::Figure;
use commands::Invocation;
use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use style::{Style, paint};
use urchin_base::diag::{Diagnostic, render_all};
use urchin_base::source::FileId;
use urchin_eval::EvalOptions;
use urchin_runtime::value::Value;
use urchin_runtime::{RuntimeError, RuntimeErrorKind};
use urchin_syntax::ast::{Dec, DefKeyword, Expr, ExprKind, Ident, Pat, Program, QualName, ValDec};
use urchin_syntax::{self as syntax, ReplInput, Token, pretty};
use urchin_types::CheckedDef;
use urchin_types::env::GlobalKind;
use urchin_types::intrinsics;
use urchin_types::scheme::{Defaulting, Scheme};
use urchin_types::ty::{Base, Namer, TyVar, Type};
use urchin_types::unify::Class;
use web_time::{Duration, Instant};

pub use breakpoints::{Console, Line};
#[cfg(feature = "terminal")]
pub use terminal::run;

/// The name the last expression's value is bound to, as in GHCi.
pub const IT: &str = "it";

/// The prompt, and the prompt of a continuation line.
pub const PROMPT: &str = "urchin> ";
pub const CONTINUATION_PROMPT: &str = "urchin| ";

/// Where the REPL writes: results to `out`, errors and warnings to `err`.
pub trait Sink {
    fn out(&mut self, text: &str);
    fn err(&mut self, text: &str);
    /// A figure (`:plot`, `:img`): drawn as text among the results, unless
    /// the front end shows pictures (a notebook, a literate document).
    fn figure(&mut self, fig: &Figure, color: bool) {
        self.out(&crate::plot::terminal::render(
            fig,
            crate::plot::terminal::Cells::DEFAULT,
            color,
        ));
    }
}

/// Both streams into one transcript, in order.
impl Sink for String {
    fn out(&mut self, text: &str) {
        self.push_str(text);
    }
    fn err(&mut self, text: &str) {
        self.push_str(text);
    }
}

/// What an input wrote, in order: for front ends that show figures as
/// pictures (a notebook, a literate document).
pub enum Piece {
    Text(String),
    Figure(Figure),
}

/// The REPL's output for one input: results and figures in order, errors
/// and warnings apart.
#[derive(Default)]
pub struct Capture {
    pub pieces: Vec<Piece>,
    pub errors: String,
}

impl Sink for Capture {
    fn out(&mut self, text: &str) {
        match self.pieces.last_mut() {
            Some(Piece::Text(t)) => t.push_str(text),
            _ => self.pieces.push(Piece::Text(text.to_string())),
        }
    }
    fn err(&mut self, text: &str) {
        self.errors.push_str(text);
    }
    fn figure(&mut self, fig: &Figure, _color: bool) {
        self.pieces.push(Piece::Figure(fig.clone()));
    }
}

/// What the REPL wants after a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Ready for a new input.
    Ready,
    /// The input is incomplete: read another line (continuation prompt).
    More,
    /// `:quit`.
    Quit,
}

/// What a command asks for after it ran.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    Continue,
    Quit,
}

/// An input failed; what went wrong has been written to the sink.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Failed;

/// A name bound since the prelude, for `:browse`.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Bound {
    Value(String),
    Type(String),
    Module(String),
    ModType(String),
}

/// Input read so far that is not complete yet.
struct Pending {
    text: String,
    /// The line number of its first line.
    first_line: usize,
    /// Inside `:{` ... `:}`: only `:}` ends it.
    block: bool,
    /// Complete, but its last line is a `case`: a `match` typed line by
    /// line, whose next line may be another case. Any other line ends it
    /// (and is an input of its own), and so does an empty one.
    after_case: bool,
}

/// Whether a line is a case of a `match`.
fn is_case(line: &str) -> bool {
    let t = line.trim_start();
    t == "case" || t.starts_with("case ")
}

/// What an input may change, to go back to when it fails.
struct Saved {
    session: Checkpoint,
    order: Vec<Bound>,
    value_defs: HashMap<String, String>,
}

/// How long the phases of an evaluation took.
struct Timing {
    check: Duration,
    compile: Duration,
    run: Duration,
}

impl fmt::Display for Timing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "time: {} (type check {}, compile {}, run {})",
            duration(self.check + self.compile + self.run),
            duration(self.check),
            duration(self.compile),
            duration(self.run)
        )
    }
}

/// `0.042 ms`, `12.3 ms`, `1.52 s`.
fn duration(d: Duration) -> String {
    let ms = d.as_secs_f64() * 1000.0;
    if ms < 1.0 {
        format!("{ms:.3} ms")
    } else if ms < 1000.0 {
        format!("{ms:.1} ms")
    } else {
        format!("{:.2} s", ms / 1000.0)
    }
}

pub struct Repl {
    session: Session,
    color: bool,
    /// The session's Ctrl-C flag (`Host::interrupt_flag`).
    interrupt: Arc<AtomicBool>,
    pending: Option<Pending>,
    /// Lines fed so far.
    line: usize,
    /// The file `:reload` loads.
    loaded: Option<PathBuf>,
    /// Names bound since the prelude, oldest first.
    order: Vec<Bound>,
    /// How each value bound at the prompt was computed, for `:elab`.
    value_defs: HashMap<String, String>,
    failures: usize,
    /// How big values print (`:set print`).
    show: print::Show,
    /// Where to read lines while stopped at a breakpoint: a front end that
    /// can stop attaches one (`Repl::attach_console`).
    console: Option<Rc<RefCell<dyn Console>>>,
    /// Whether this REPL is the one of a breakpoint (its prompt, and the
    /// names of its inputs).
    at_break: bool,
    /// Set when an evaluation was abandoned at a breakpoint.
    aborted: Rc<Cell<bool>>,
}

impl Repl {
    /// A REPL with the prelude loaded; `color` switches ANSI colours in
    /// everything it writes.
    pub fn new(color: bool) -> Repl {
        Repl::with_host(color, Host::default())
    }

    /// A REPL whose session runs with `host` (`--max-memory`, `--threads`,
    /// `--device`).
    pub fn with_host(color: bool, host: Host) -> Repl {
        Repl::with_session(Session::with_host(host), color)
    }

    /// A REPL over a session (the prelude loaded), stopped by its
    /// interrupt flag.
    pub fn with_session(session: Session, color: bool) -> Repl {
        Repl {
            interrupt: session.host().interrupt_flag(),
            session,
            color,
            pending: None,
            line: 0,
            loaded: None,
            order: Vec::new(),
            value_defs: HashMap::new(),
            failures: 0,
            show: print::Show::Summary,
            console: None,
            at_break: false,
            aborted: Rc::new(Cell::new(false)),
        }
    }

    /// Makes evaluation stop at `#[break]`, reading what is typed while
    /// stopped from `console` (and writing there).
    pub fn attach_console(&mut self, console: Rc<RefCell<dyn Console>>) {
        self.session.breakpoints = true;
        self.console = Some(console);
    }

    /// Whether an input is incomplete so far (a continuation line comes).
    pub fn is_pending(&self) -> bool {
        self.pending.is_some()
    }

    /// The flag that stops an evaluation when set (from a SIGINT handler).
    pub fn interrupt_flag(&self) -> Arc<AtomicBool> {
        self.interrupt.clone()
    }

    /// How many inputs have failed so far.
    pub fn failures(&self) -> usize {
        self.failures
    }

    pub fn prompt(&self) -> &'static str {
        match (self.pending.is_some(), self.at_break) {
            (false, false) => PROMPT,
            (true, false) => CONTINUATION_PROMPT,
            (false, true) => breakpoints::BREAK_PROMPT,
            (true, true) => breakpoints::BREAK_CONTINUATION_PROMPT,
        }
    }

    /// Reads input (a line, or several recalled from the history), running
    /// each input once it is complete.
    pub fn feed(&mut self, text: &str, sink: &mut dyn Sink) -> Status {
        let mut status = Status::Ready;
        for line in text.split('\n') {
            status = self.feed_line(line, sink);
            if status == Status::Quit {
                break;
            }
        }
        status
    }

    fn feed_line(&mut self, line: &str, sink: &mut dyn Sink) -> Status {
        self.line += 1;
        let line = line.trim_end_matches('\r');
        match self.pending.take() {
            Some(mut p) if p.block => {
                if line.trim() == ":}" {
                    return self.run(&p.text, p.first_line, sink);
                }
                if !p.text.is_empty() {
                    p.text.push('\n');
                }
                p.text.push_str(line);
                self.pending = Some(p);
                Status::More
            }
            Some(p) if p.after_case && !is_case(line) => {
                let status = self.run(&p.text, p.first_line, sink);
                if status == Status::Quit || line.trim().is_empty() {
                    return status;
                }
                self.line -= 1;
                self.feed_line(line, sink)
            }
            Some(mut p) => {
                p.text.push('\n');
                p.text.push_str(line);
                // An empty line gives up on completing the input, so that
                // whoever is stuck sees what is wrong with it.
                if !line.trim().is_empty() && self.incomplete(&p.text) {
                    p.after_case = false;
                    self.pending = Some(p);
                    return Status::More;
                }
                if is_case(line) {
                    p.after_case = true;
                    self.pending = Some(p);
                    return Status::More;
                }
                self.run(&p.text, p.first_line, sink)
            }
            None => {
                if line.trim() == ":{" {
                    self.pending = Some(Pending {
                        text: String::new(),
                        first_line: self.line + 1,
                        block: true,
                        after_case: false,
                    });
                    return Status::More;
                }
                if self.incomplete(line) {
                    self.pending = Some(Pending {
                        text: line.to_string(),
                        first_line: self.line,
                        block: false,
                        after_case: false,
                    });
                    return Status::More;
                }
                self.run(line, self.line, sink)
            }
        }
    }

    /// Forgets an incomplete input (Ctrl-C at a continuation prompt);
    /// returns whether there was one.
    pub fn cancel(&mut self) -> bool {
        self.pending.take().is_some()
    }

    /// The end of the input: runs what is pending, complete or not (so
    /// that its errors are reported).
    pub fn finish(&mut self, sink: &mut dyn Sink) -> Status {
        match self.pending.take() {
            // A block is only complete with its `:}`: running part of a
            // paste would be a guess.
            Some(p) if p.block => {
                sink.err(&format!(
                    "the `:{{` on line {} has no closing `:}}`; the block was not run\n",
                    p.first_line - 1
                ));
                self.failures += 1;
                Status::Ready
            }
            Some(p) if !p.text.trim().is_empty() => self.run(&p.text, p.first_line, sink),
            _ => Status::Ready,
        }
    }

    /// Loads the file named on the command line; a failure counts as a
    /// failed input.
    pub fn load_first(&mut self, path: PathBuf, sink: &mut dyn Sink) {
        if self.load_file(path, sink).is_err() {
            self.failures += 1;
        }
    }

    /// Whether `text` needs more lines to be a complete input (an open
    /// bracket, a trailing operator, `let` without `in`, ...).
    pub fn incomplete(&self, text: &str) -> bool {
        if !text.trim_start().starts_with(':') {
            return syntax::is_incomplete(text);
        }
        let (name, at) = commands::split(text);
        match commands::find(name) {
            Some(c) if c.arg == commands::Arg::Expr => syntax::is_incomplete(&text[at..]),
            _ => false,
        }
    }

    /// Runs one complete input. On an error the session goes back to what
    /// it was before the input; so it does on a panic (a bug), which is
    /// reported like an error so that the session goes on.
    fn run(&mut self, text: &str, first_line: usize, sink: &mut dyn Sink) -> Status {
        let origin = if self.at_break { "break" } else { "repl" };
        self.run_named(text, &format!("<{origin}:{first_line}>"), sink)
    }

    /// Runs `text` as one complete input, whatever its lines: a notebook
    /// cell's input, a literate document's directive. Diagnostics name it
    /// `origin`.
    pub fn run_input(
        &mut self,
        text: &str,
        origin: &str,
        sink: &mut dyn Sink,
    ) -> Result<Flow, Failed> {
        self.pending = None;
        self.line += text.lines().count().max(1);
        let before = self.failures;
        match self.run_named(text, origin, sink) {
            Status::Quit => Ok(Flow::Quit),
            _ if self.failures > before => Err(Failed),
            _ => Ok(Flow::Continue),
        }
    }

    fn run_named(&mut self, text: &str, origin: &str, sink: &mut dyn Sink) -> Status {
        if text.trim().is_empty() {
            return Status::Ready;
        }
        self.interrupt.store(false, Ordering::SeqCst);
        let saved = self.checkpoint();
        let file = self.session.add_source(origin, text);
        // Ctrl-C stops checking too: the checker has the session's flag.
        let result = catch_unwind(AssertUnwindSafe(|| self.dispatch(text, file, sink)));
        match result {
            Ok(Ok(Flow::Continue)) => Status::Ready,
            Ok(Ok(Flow::Quit)) => Status::Quit,
            Ok(Err(Failed)) => {
                self.rollback(saved);
                self.failures += 1;
                Status::Ready
            }
            Err(_) => {
                self.rollback(saved);
                self.failures += 1;
                sink.err("internal error: urchin panicked on this input (a bug); the session is as it was before it\n");
                Status::Ready
            }
        }
    }

    fn dispatch(&mut self, text: &str, file: FileId, sink: &mut dyn Sink) -> Result<Flow, Failed> {
        if text.trim_start().starts_with(':') {
            return self.command(text, file, sink);
        }
        let input = syntax::parse_repl(text, file).map_err(|ds| self.report_all(&ds, sink))?;
        let mut breaks = Vec::new();
        match &input {
            ReplInput::Expr(e) | ReplInput::Bind(_, e) => breakpoints::find_in(e, &mut breaks),
            ReplInput::Decs(ds) => {
                for d in ds {
                    if let Dec::Val(v) = d {
                        breakpoints::find_in(&v.body, &mut breaks);
                    }
                }
            }
        }
        self.warn_breakpoints(breaks, sink);
        match input {
            ReplInput::Expr(e) => {
                self.evaluate(&e, sink)?;
            }
            ReplInput::Bind(p, e) => self.bind_pattern(&p, &e, sink)?,
            ReplInput::Decs(ds) => self.declare(&ds, sink)?,
        }
        Ok(Flow::Continue)
    }

    fn command(&mut self, text: &str, file: FileId, sink: &mut dyn Sink) -> Result<Flow, Failed> {
        let (name, at) = commands::split(text);
        let Some(cmd) = commands::find(name) else {
            sink.err(&commands::unknown(name));
            return Err(Failed);
        };
        let padded = format!("{}{}", " ".repeat(at), &text[at..]);
        let inv = Invocation {
            arg: text[at..].trim(),
            file,
            padded: &padded,
        };
        (cmd.run)(self, &inv, sink)
    }

    fn checkpoint(&self) -> Saved {
        Saved {
            session: self.session.checkpoint(),
            order: self.order.clone(),
            value_defs: self.value_defs.clone(),
        }
    }

    fn rollback(&mut self, saved: Saved) {
        self.session.rollback(saved.session);
        self.order = saved.order;
        self.value_defs = saved.value_defs;
    }

    fn report(&self, d: &Diagnostic, sink: &mut dyn Sink) -> Failed {
        sink.err(&d.render(&self.session.sources, self.color));
        Failed
    }

    /// Warns of the `#[break]`s of an input (which does not fail) where
    /// they cannot stop: in a front end without a console (not at a
    /// breakpoint's prompt, where breakpoints do not stop, by design).
    fn warn_breakpoints(&self, spans: Vec<urchin_base::source::Span>, sink: &mut dyn Sink) {
        if self.console.is_some() || self.at_break {
            return;
        }
        let ds = breakpoints::warnings(spans);
        if !ds.is_empty() {
            sink.err(&render_all(&ds, &self.session.sources, self.color));
        }
    }

    fn report_all(&self, ds: &[Diagnostic], sink: &mut dyn Sink) -> Failed {
        sink.err(&render_all(ds, &self.session.sources, self.color));
        Failed
    }

    fn runtime_error(&self, e: &RuntimeError, sink: &mut dyn Sink) -> Failed {
        if e.kind == RuntimeErrorKind::Interrupted && self.aborted.replace(false) {
            sink.err("evaluation abandoned at the breakpoint\n");
            return Failed;
        }
        if e.kind == RuntimeErrorKind::Interrupted {
            sink.err(&format!(
                "{}\n",
                paint("interrupted", Style::Warning, self.color)
            ));
            return Failed;
        }
        self.report(&e.to_diagnostic(), sink)
    }

    /// Runs a compiled expression, stopping at its breakpoints if this
    /// REPL can.
    fn run_compiled(
        &self,
        compiled: &crate::driver::Compiled,
        externals: &[urchin_types::env::ValueId],
    ) -> Result<Vec<Value>, RuntimeError> {
        // What the device computed stays there until the host reads it:
        // printing copies it, binding it with `let` does not.
        let opts = EvalOptions {
            keep_on_device: true,
            ..self.eval_options()
        };
        let run = || self.session.run_expr(compiled, externals, &opts);
        match &self.console {
            Some(console) if breakpoints::has_break(&compiled.program) => {
                let mut stopper = breakpoints::Stopper {
                    session: self.session.clone(),
                    color: self.color,
                    show: self.show,
                    console: console.clone(),
                    interrupt: self.interrupt.clone(),
                    aborted: self.aborted.clone(),
                    skipped: HashSet::new(),
                };
                self.session
                    .run_expr_stopping(compiled, externals, &opts, &mut |stop| stopper.stop(stop))
            }
            _ => run(),
        }
    }

    fn eval_options(&self) -> EvalOptions {
        self.session.eval_options()
    }

    fn note(&mut self, b: Bound) {
        self.order.retain(|x| *x != b);
        self.order.push(b);
    }

    /// The argument of an expression command, parsed.
    fn parse_expr(&self, inv: &Invocation, sink: &mut dyn Sink) -> Result<Expr, Failed> {
        syntax::parse_expr(inv.padded, inv.file).map_err(|ds| self.report_all(&ds, sink))
    }

    /// The type of an expression as `:type` shows it (see [`show_scheme`]).
    fn type_of(&self, e: &Expr, sink: &mut dyn Sink) -> Result<String, Failed> {
        if let Some((q, g)) = self.named_global(e) {
            return Ok(self.global_type(&q.name, &g));
        }
        let checked = self
            .session
            .check_expr(e)
            .map_err(|d| self.report(&d, sink))?;
        let scheme = checked.users.as_ref().unwrap_or(&checked.scheme);
        Ok(show_scheme_of(scheme, Sizes::Def(&checked)))
    }

    /// What an expression that is a name (`f`, `M.f`, `f64.+`) names.
    fn named_global(&self, e: &Expr) -> Option<(QualName, urchin_types::env::Global)> {
        let resolved = self.session.resolve_expr(e).ok()?;
        let ExprKind::Var(q) = &resolved.kind else {
            return None;
        };
        let q = q.clone();
        let g = self.session.types.globals.lookup(&q)?;
        Some((q, g))
    }

    /// An expression checked (elaborated) for the reference semantics.
    fn checked(&self, e: &Expr, sink: &mut dyn Sink) -> Result<urchin_types::CheckedDef, Failed> {
        self.session
            .check_expr(e)
            .map_err(|d| self.report(&d, sink))
    }

    fn elaborate(&self, e: &Expr, sink: &mut dyn Sink) -> Result<String, Failed> {
        let checked = self
            .session
            .check_expr(e)
            .map_err(|d| self.report(&d, sink))?;
        Ok(pretty::expr(&checked.target.body))
    }

    /// The definition of a name in scope, elaborated: for `:elab f`.
    fn definition_of(&self, text: &str) -> Option<String> {
        let name = single_name(text)?;
        let global = self.session.lookup_value(&name)?;
        match global.kind {
            GlobalKind::Def(id) => Some(show_dec(&self.session.def(id).target)),
            GlobalKind::Value(_) => self.value_defs.get(&name.to_string()).cloned(),
            GlobalKind::Intrinsic(_) | GlobalKind::Param => None,
        }
    }

    /// Evaluates an expression and prints its value.
    fn evaluate(&mut self, e: &Expr, sink: &mut dyn Sink) -> Result<Timing, Failed> {
        let start = Instant::now();
        let checked = self
            .session
            .check_expr(e)
            .map_err(|d| self.report(&d, sink))?;
        let check = start.elapsed();
        if is_function(&checked.scheme.ty) {
            let text = format!("<function: {}>", show_scheme(&checked.scheme));
            sink.out(&format!("{}\n", paint(&text, Style::Opaque, self.color)));
            self.bind_it_function(e);
            return Ok(Timing {
                check,
                compile: Duration::ZERO,
                run: Duration::ZERO,
            });
        }
        let start = Instant::now();
        let (compiled, externals) = self
            .session
            .compile_expr(&checked)
            .map_err(|d| self.report(&d, sink))?;
        let compile = start.elapsed();
        let start = Instant::now();
        let leaves = self
            .run_compiled(&compiled, &externals)
            .and_then(urchin_eval::on_host)
            .map_err(|e| self.runtime_error(&e, sink))?;
        let run = start.elapsed();
        let text = print::value(&compiled.signature.result, &leaves, self.color, self.show);
        sink.out(&format!("{text}\n"));
        self.session
            .bind_value(IT, compiled.signature.result.clone(), leaves);
        self.value_defs.insert(
            IT.to_string(),
            format!("let {IT} = {}", pretty::expr(&checked.target.body)),
        );
        Ok(Timing {
            check,
            compile,
            run,
        })
    }

    /// `it` for a function typed at the prompt: a definition, as `let it =
    /// e` would make. When that fails (`e` uses the previous `it`, which a
    /// definition cannot refer to by its own name), `it` keeps its value.
    fn bind_it_function(&mut self, e: &Expr) {
        let d = Dec::Val(Box::new(ValDec::constant(IT.into(), e.clone())));
        let program = Program { decs: vec![d] };
        let saved = self.session.checkpoint();
        if self.session.load_ast(&program).is_err() {
            self.session.rollback(saved);
        }
        self.value_defs.remove(IT);
    }

    /// Computes the value of `e`, checked as `checked`, for a binding: its
    /// type, its leaves and the elaborated expression.
    fn compute(
        &mut self,
        e: &Expr,
        checked: &CheckedDef,
        what: &str,
        sink: &mut dyn Sink,
    ) -> Result<(Type, Vec<Value>, String), Failed> {
        let ty = checked
            .scheme
            .ty
            .subst(&checked.scheme.defaults(Defaulting::Run));
        if ty.has_function() {
            let d = Diagnostic::ty(
                format!("{what} holds a function, which cannot be kept as a value"),
                e.span,
            )
            .with_label(format!("this has type `{}`", show_scheme(&checked.scheme)))
            .with_help("define functions with `def`, or with `let` and no pattern");
            return Err(self.report(&d, sink));
        }
        let (compiled, externals) = self
            .session
            .compile_expr(checked)
            .map_err(|d| self.report(&d, sink))?;
        let leaves = self
            .run_compiled(&compiled, &externals)
            .map_err(|e| self.runtime_error(&e, sink))?;
        Ok((
            compiled.signature.result,
            leaves,
            pretty::expr(&checked.target.body),
        ))
    }

    /// Declarations typed at the prompt, in order.
    fn declare(&mut self, decs: &[Dec], sink: &mut dyn Sink) -> Result<(), Failed> {
        for d in decs {
            match d {
                Dec::Val(v) if is_value_let(v) => self.bind_let(v, sink)?,
                _ => {
                    let before = self.session.scope.env.clone();
                    self.define(d, sink)?;
                    for b in modules::new_names(&before, &self.session.scope.env) {
                        self.note(b);
                    }
                }
            }
        }
        Ok(())
    }

    fn define(&mut self, d: &Dec, sink: &mut dyn Sink) -> Result<(), Failed> {
        let program = Program {
            decs: vec![d.clone()],
        };
        self.session
            .load_ast(&program)
            .map_err(|ds| self.report_all(&ds, sink))?;
        if let Dec::Val(v) = d {
            self.value_defs.remove(&*v.name);
        }
        Ok(())
    }

    /// `let x = e`: a function becomes a definition, anything else is
    /// evaluated now and its value kept.
    fn bind_let(&mut self, v: &ValDec, sink: &mut dyn Sink) -> Result<(), Failed> {
        let body = match &v.ret {
            Some(t) => self.session.node_ids().expr(
                ExprKind::Ascript(Box::new(v.body.clone()), Box::new(t.clone())),
                v.body.span,
            ),
            None => v.body.clone(),
        };
        let checked = self
            .session
            .check_expr(&body)
            .map_err(|d| self.report(&d, sink))?;
        if is_function(&checked.scheme.ty) {
            self.define(&Dec::Val(Box::new(v.clone())), sink)?;
        } else {
            let what = format!("`{}`", v.name);
            let (ty, leaves, elab) = self.compute(&body, &checked, &what, sink)?;
            self.session.bind_value(&v.name, ty, leaves);
            self.value_defs
                .insert(v.name.to_string(), format!("let {} = {elab}", v.name));
        }
        self.note(Bound::Value(v.name.to_string()));
        Ok(())
    }

    /// `let (a, b) = e`: evaluates `let (a, b) = e in (a, b)` and binds
    /// each name to its part.
    fn bind_pattern(&mut self, p: &Pat, e: &Expr, sink: &mut dyn Sink) -> Result<(), Failed> {
        let names = p.binders();
        let ids = self.session.node_ids();
        let var = |(n, span): &(Ident, urchin_base::source::Span)| {
            ids.expr(ExprKind::Var(QualName::plain(n.clone())), *span)
        };
        let result = match names.as_slice() {
            [one] => var(one),
            _ => ids.expr(ExprKind::Tuple(names.iter().map(var).collect()), p.span()),
        };
        let whole = ids.expr(
            ExprKind::Let(p.clone(), Box::new(e.clone()), Box::new(result)),
            e.span,
        );
        let checked = self
            .session
            .check_expr(&whole)
            .map_err(|d| self.report(&d, sink))?;
        let (ty, leaves, elab) = self.compute(&whole, &checked, "the pattern", sink)?;
        let parts: Vec<Type> = match (names.len(), &ty.base) {
            (1, _) => vec![ty.clone()],
            (_, Base::Tuple(ts)) if ty.rank.konst == 0 => ts.clone(),
            _ => Vec::new(),
        };
        let mut rest = leaves.as_slice();
        for ((name, _), t) in names.iter().zip(parts) {
            let n = print::leaf_count(&t).min(rest.len());
            self.session.bind_value(name, t, rest[..n].to_vec());
            rest = &rest[n..];
            self.value_defs.insert(name.to_string(), elab.clone());
            self.note(Bound::Value(name.to_string()));
        }
        Ok(())
    }

    /// `:load FILE`, `:reload`.
    fn load_file(&mut self, path: PathBuf, sink: &mut dyn Sink) -> Result<(), Failed> {
        let name = path.display().to_string();
        self.loaded = Some(path.clone());
        let text =
            urchin_base::source::read_source(&path, self.session.host().memory).map_err(|e| {
                sink.err(&format!("cannot read {name}: {e}\n"));
                Failed
            })?;
        self.load_source(&path, &text, sink)
    }

    /// Loads a program given as text in place of the current one, as
    /// `:load` loads a file (a front end without files: the browser's
    /// editor). A failure counts as a failed input.
    pub fn load_text(&mut self, name: &str, text: &str, sink: &mut dyn Sink) -> Result<(), Failed> {
        self.pending = None;
        self.loaded = None;
        self.load_source(Path::new(name), text, sink)
            .inspect_err(|_| self.failures += 1)
    }

    fn load_source(&mut self, path: &Path, text: &str, sink: &mut dyn Sink) -> Result<(), Failed> {
        let name = path.display().to_string();
        match self.session.load_replacing(path, text) {
            Ok(ids) => {
                let mut breaks = Vec::new();
                for id in &ids {
                    breakpoints::find_in(&self.session.def(*id).source.body, &mut breaks);
                }
                self.warn_breakpoints(breaks, sink);
                self.order = modules::new_names(self.session.prelude(), &self.session.scope.env);
                self.value_defs.clear();
                let n = ids.len();
                sink.out(&format!(
                    "loaded {name} ({n} definition{})\n",
                    if n == 1 { "" } else { "s" }
                ));
                Ok(())
            }
            Err(ds) => {
                self.report_all(&ds, sink);
                sink.err(&format!(
                    "{name} was not loaded; the previous definitions are kept\n"
                ));
                Err(Failed)
            }
        }
    }

    /// `:info NAME`: the type of a name, where it was defined, and its
    /// `-- |` doc comment; for a type, its definition; for a module, its
    /// module type.
    fn info(&self, text: &str, sink: &mut dyn Sink) -> Result<(), Failed> {
        let Some(name) = single_name(text) else {
            sink.err(":info takes one name, such as `map`, `f64.sqrt` or a module `M`\n");
            return Err(Failed);
        };
        let mut lines = Vec::new();
        if let Some(g) = self.session.lookup_value(&name) {
            let site = match g.kind {
                GlobalKind::Def(id) => {
                    let d = &self.session.def(id).source;
                    if let Some(doc) = &d.doc {
                        lines.extend(
                            doc.lines()
                                .map(|l| format!("-- | {l}").trim_end().to_string()),
                        );
                    }
                    format!("defined at {}", self.session.sources.location(d.name_span))
                }
                GlobalKind::Value(_) => match self.value_defs.get(&name.to_string()) {
                    Some(how) => format!("bound at the prompt: {how}"),
                    None => "bound at the prompt".to_string(),
                },
                GlobalKind::Intrinsic(_) => "built in".to_string(),
                GlobalKind::Param => "a parameter's".to_string(),
            };
            lines.push(self.shown_line(&name.to_string(), &self.global_type(&name.name, &g)));
            lines.push(format!("  -- {site}"));
        }
        if let Some(a) = self.session.lookup_type(&name) {
            lines.push(self.type_line(&name.to_string(), &a));
        }
        let mut path = name.quals.clone();
        path.push(name.name.clone());
        if let Some(m) = self.session.lookup_module(&path) {
            lines.extend(self.module_lines(&name.to_string(), &m));
        }
        if lines.is_empty() {
            sink.err(&format!(
                "`{name}` is not defined (:browse lists the names in scope)\n"
            ));
            return Err(Failed);
        }
        sink.out(&lines.into_iter().map(|l| l + "\n").collect::<String>());
        Ok(())
    }

    /// `:browse [prelude|all|MODULE]`.
    fn browse(&self, what: &str, sink: &mut dyn Sink) -> Result<(), Failed> {
        let lines = match what {
            "" => {
                let lines = self.browse_user();
                if lines.is_empty() {
                    sink.out("nothing defined yet (:browse prelude lists the prelude)\n");
                    return Ok(());
                }
                lines
            }
            "prelude" => self.browse_prelude(),
            "all" => {
                let mut lines = self.browse_prelude();
                lines.extend(self.browse_user());
                lines
            }
            m => {
                let module = single_name(m).and_then(|q| {
                    let mut path = q.quals.clone();
                    path.push(q.name.clone());
                    self.session.lookup_module(&path)
                });
                match module {
                    Some(module) => self.module_members(m, &module),
                    None => {
                        sink.err(&format!(
                            ":browse takes nothing, `prelude`, `all` or a module (`f32`, `M`, ...); `{m}` is not a module\n"
                        ));
                        return Err(Failed);
                    }
                }
            }
        };
        let text: String = lines.into_iter().map(|l| l + "\n").collect();
        sink.out(&text);
        Ok(())
    }

    fn shown_line(&self, name: &str, ty: &str) -> String {
        format!("{name} : {}", paint(ty, Style::Type, self.color))
    }

    /// The line of a built-in function: its type with the sizes of its
    /// signature.
    fn builtin_line(&self, name: &str, scheme: &Scheme) -> String {
        self.shown_line(name, &builtin_type(name, scheme))
    }

    /// The type of a global `name` as the REPL shows it: a definition's
    /// with the size names of its source, a built-in's with those of its
    /// signature.
    fn global_type(&self, name: &str, g: &urchin_types::env::Global) -> String {
        global_type(&self.session, name, g)
    }

    fn browse_user(&self) -> Vec<String> {
        let scope = &self.session.scope.env;
        self.order
            .iter()
            .flat_map(|b| match b {
                Bound::Value(n) => {
                    let g = self.session.lookup_value(&QualName::plain(n.as_str()));
                    g.map(|g| vec![self.shown_line(n, &self.global_type(n, &g))])
                        .unwrap_or_default()
                }
                Bound::Type(n) => self
                    .session
                    .lookup_type(&QualName::plain(n.as_str()))
                    .map(|a| vec![self.type_line(n, &a)])
                    .unwrap_or_default(),
                Bound::Module(n) => scope
                    .mods
                    .get(n.as_str())
                    .map(|m| self.module_lines(n, m))
                    .unwrap_or_default(),
                Bound::ModType(n) => scope
                    .sigs
                    .get(n.as_str())
                    .map(|t| vec![format!("module type {n} = {}", modules::show_modty(t, 0))])
                    .unwrap_or_default(),
            })
            .collect()
    }

    /// The built-in functions, then the prelude's definitions (its modules
    /// have their own listing).
    fn browse_prelude(&self) -> Vec<String> {
        let mut lines: Vec<String> = intrinsics::global_names()
            .iter()
            .filter_map(|n| {
                let (_, s) = intrinsics::global(n)?;
                Some(self.builtin_line(n, &s))
            })
            .collect();
        let prelude = self.session.prelude();
        for (n, e) in &prelude.vals {
            if let Some(g) = self.session.types.globals.value(*e) {
                lines.push(self.shown_line(n, &self.global_type(n, g)));
            }
        }
        let modules: Vec<&str> = prelude.mods.keys().map(|m| &**m).collect();
        let sigs: Vec<&str> = prelude.sigs.keys().map(|m| &**m).collect();
        lines.push(format!(
            "-- modules: {} (:browse f32 lists one); module types: {}",
            modules.join(", "),
            sigs.join(", ")
        ));
        lines
    }
}

/// The type of a global as the REPL shows it, with the size names its
/// definition or signature declares.
pub fn global_type(session: &Session, name: &str, g: &urchin_types::env::Global) -> String {
    match g.kind {
        GlobalKind::Def(id) => show_scheme_of(&g.scheme, Sizes::Def(session.def(id))),
        GlobalKind::Intrinsic(_) => builtin_type(name, &g.scheme),
        GlobalKind::Value(_) => match &g.sizes {
            Some(sig) => show_scheme_of(&g.scheme, Sizes::Value(sig)),
            None => show_scheme(&g.scheme),
        },
        GlobalKind::Param => show_scheme(&g.scheme),
    }
}

/// A `let x = e` at the prompt that binds a value (no parameters).
fn is_value_let(v: &ValDec) -> bool {
    v.keyword == DefKeyword::Let && v.params.is_empty() && v.type_params.is_empty()
}

/// A built-in's type, with the sizes of its signature if it has one.
fn builtin_type(name: &str, scheme: &Scheme) -> String {
    match intrinsics::signature(name) {
        Some(sig) => show_scheme_of(scheme, Sizes::Builtin(&sig)),
        None => show_scheme(scheme),
    }
}

fn is_function(t: &Type) -> bool {
    matches!(t.base, Base::Arrow(..)) && t.rank.konst == 0 && t.rank.vars.is_empty()
}

/// A type as the REPL shows it. A value's type has its defaultable
/// variables (`Num`, `Float`, ...) at their defaults, since that is the
/// type it is evaluated at (`[1, 2] + 1 : []i32`); a function's type stays
/// polymorphic and says what its constrained variables may be
/// (`a -> a, where a is a numeric type`).
fn show_scheme(s: &Scheme) -> String {
    show_scheme_of(s, Sizes::None)
}

/// Where the size names of a type come from.
enum Sizes<'a> {
    None,
    /// A definition's checked sizes or its source's (`[n]f64 -> [n]f64`).
    Def(&'a urchin_types::CheckedDef),
    /// A built-in's signature (`(n: i64) -> [n]i64`).
    Builtin(&'a str),
    /// A value bound at the prompt: its arrays' sizes (`[3]i32`).
    Value(&'a urchin_types::sizes::SizedSig),
}

/// [`show_scheme`] with the size names a definition's source declares or a
/// built-in's signature gives.
fn show_scheme_of(s: &Scheme, sizes: Sizes) -> String {
    if !is_function(&s.ty) {
        // With its sizes where they are known, as Futhark's REPL shows
        // them.
        let sig = match sizes {
            Sizes::Def(d) => d.sizes.as_ref(),
            Sizes::Value(sig) => Some(sig),
            Sizes::None | Sizes::Builtin(_) => None,
        };
        return (sig.and_then(|sig| s.show_value_sized(sig))).unwrap_or_else(|| defaulted(s));
    }
    let mut namer = Namer::default();
    let text = match sizes {
        Sizes::Def(d) => s.show_sized_with(&mut namer, &d.source, d.sizes.as_ref()),
        Sizes::Builtin(sig) => s.show_signature_with(&mut namer, sig),
        Sizes::Value(_) | Sizes::None => s.show_with(&s.ty, &mut namer),
    };
    let constraints: Vec<String> = s
        .tyvars
        .iter()
        .enumerate()
        .filter(|(_, (c, _))| *c != Class::Any)
        .map(|(i, (c, _))| format!("{} is {}", namer.tyvar(TyVar(i as u32)), c.describe()))
        .collect();
    if constraints.is_empty() {
        text
    } else {
        format!("{text}, where {}", constraints.join(", "))
    }
}

/// A scheme with its defaultable variables at their defaults and the
/// others left as they are.
fn defaulted(s: &Scheme) -> String {
    s.show(&s.ty.subst(&s.defaults(Defaulting::Show)))
}

/// `text` if it is exactly one (possibly qualified) name: `x`, `M.N.x`,
/// `f64.+`.
fn single_name(text: &str) -> Option<QualName> {
    let (tokens, diags) = syntax::lex(text, FileId(0));
    if !diags.is_empty() {
        return None;
    }
    if let [(Token::Op(urchin_syntax::ast::BinOpKind::Symbol(q)), _)] = tokens.as_slice() {
        return Some(q.clone());
    }
    let mut words = Vec::new();
    for (i, (t, _)) in tokens.iter().enumerate() {
        match (i % 2, t) {
            (0, Token::Ident(n)) => words.push(n.clone()),
            (1, Token::ProjDot) => {}
            _ => return None,
        }
    }
    let name = words.pop()?;
    (tokens.len() % 2 == 1).then_some(QualName {
        quals: words,
        name,
        entity: None,
    })
}
