//! Running the REPL: interactively under rustyline (prompt, history,
//! completion, highlighting, Ctrl-C), or over piped standard input (no
//! prompt, banner or colour; the exit code says whether every input
//! succeeded).

use super::complete::{self, Completion};
use super::highlight::highlight;
use super::style::{Style, paint};
use super::{Console, Line, Repl, Sink, Status};
use crate::host::Host;
use rustyline::completion::{Completer, FilenameCompleter, Pair};
use rustyline::config::{ColorMode, CompletionType, Config};
use rustyline::error::ReadlineError;
use rustyline::highlight::{CmdKind, Highlighter};
use rustyline::hint::{Hinter, HistoryHinter};
use rustyline::history::FileHistory;
use rustyline::validate::Validator;
use rustyline::{Context, Editor, Helper};
use std::borrow::Cow;
use std::cell::RefCell;
use std::io::{BufRead, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::rc::Rc;

/// Starts the REPL, loading `file` first if given; its session runs with
/// `host`.
pub fn run(file: Option<PathBuf>, host: Host) -> ExitCode {
    if std::io::stdin().is_terminal() {
        interactive(file, host)
    } else {
        piped(file, host)
    }
}

/// Writes results to standard output and errors to standard error.
struct Std;

impl Sink for Std {
    fn out(&mut self, text: &str) {
        let mut o = std::io::stdout().lock();
        // A closed standard output (`urchin | head`) is not worth a panic.
        let _ = o.write_all(text.as_bytes()).and_then(|_| o.flush());
    }
    fn err(&mut self, text: &str) {
        let mut e = std::io::stderr().lock();
        let _ = e.write_all(text.as_bytes()).and_then(|_| e.flush());
    }
}

fn warn(text: &str, color: bool) {
    Std.err(&format!(
        "{} {text}\n",
        paint("warning:", Style::Warning, color)
    ));
}

/// Standard input read line by line: a line that is not valid UTF-8 has
/// its bad bytes replaced, with a warning.
struct Piped {
    stdin: std::io::StdinLock<'static>,
    number: usize,
    read_failed: bool,
}

impl Sink for Piped {
    fn out(&mut self, text: &str) {
        Std.out(text);
    }
    fn err(&mut self, text: &str) {
        Std.err(text);
    }
}

impl Console for Piped {
    fn read_line(&mut self, _prompt: &str) -> Line {
        let mut bytes = Vec::new();
        // A line is program text: past the cap it is not read further.
        let cap = urchin_base::mem::MAX_SOURCE as u64;
        match (&mut self.stdin).take(cap).read_until(b'\n', &mut bytes) {
            Ok(0) => Line::Eof,
            Ok(n) if n as u64 == cap && !bytes.ends_with(b"\n") => {
                Std.err(&format!(
                    "line {} of standard input is longer than {}: the rest of the input was not read\n",
                    self.number + 1,
                    urchin_base::mem::human(urchin_base::mem::MAX_SOURCE)
                ));
                self.read_failed = true;
                Line::Eof
            }
            Ok(_) => {
                self.number += 1;
                if bytes.ends_with(b"\n") {
                    bytes.pop();
                }
                // One bad byte (a Latin-1 comment, say) should not end the
                // session: it is replaced, with a warning.
                let line = String::from_utf8_lossy(&bytes);
                if let Cow::Owned(_) = line {
                    warn(
                        &format!(
                            "line {} is not valid UTF-8; its invalid bytes were replaced by U+FFFD",
                            self.number
                        ),
                        false,
                    );
                }
                Line::Text(line.into_owned())
            }
            Err(e) => {
                Std.err(&format!("cannot read standard input: {e}\n"));
                self.read_failed = true;
                Line::Eof
            }
        }
    }
}

fn piped(file: Option<PathBuf>, host: Host) -> ExitCode {
    let mut repl = Repl::with_host(false, host);
    if let Some(f) = file {
        // A file with errors is reported (and counts as a failure), but the
        // input still runs, as it would at a prompt.
        repl.load_first(f, &mut Std);
    }
    let console = Rc::new(RefCell::new(Piped {
        stdin: std::io::stdin().lock(),
        number: 0,
        read_failed: false,
    }));
    repl.attach_console(console.clone());
    loop {
        let line = console.borrow_mut().read_line("");
        let Line::Text(line) = line else { break };
        if repl.feed(&line, &mut Std) == Status::Quit {
            break;
        }
    }
    repl.finish(&mut Std);
    if repl.failures() > 0 || console.borrow().read_failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// The terminal under rustyline, with the history saved as it is typed.
struct Terminal {
    editor: Editor<ReplHelper, FileHistory>,
    history: Option<PathBuf>,
    /// Whether saving the history works (a failure is reported once).
    history_ok: bool,
    color: bool,
}

impl Terminal {
    fn remember(&mut self, entry: String) {
        if entry.trim().is_empty() {
            return;
        }
        let _ = self.editor.add_history_entry(entry);
        // Saved as typed, so that a killed terminal (SIGHUP) loses
        // nothing; a failure is reported once.
        if let Some(h) = self.history.as_deref().filter(|_| self.history_ok) {
            self.history_ok = save_history(&mut self.editor, h, self.color);
        }
    }
}

impl Sink for Terminal {
    fn out(&mut self, text: &str) {
        Std.out(text);
    }
    fn err(&mut self, text: &str) {
        Std.err(text);
    }
}

/// Lines typed at a breakpoint's prompt.
impl Console for Terminal {
    fn read_line(&mut self, prompt: &str) -> Line {
        match self.editor.readline(prompt) {
            Ok(line) => {
                self.remember(line.clone());
                Line::Text(line)
            }
            Err(ReadlineError::Interrupted) => Line::Interrupted,
            Err(ReadlineError::Eof) => Line::Eof,
            Err(e) => {
                warn(&format!("cannot read input: {e}"), self.color);
                Line::Eof
            }
        }
    }
}

fn interactive(file: Option<PathBuf>, host: Host) -> ExitCode {
    let color = std::env::var_os("NO_COLOR").is_none() && std::io::stdout().is_terminal();
    let mut repl = Repl::with_host(color, host);
    Std.out(&format!(
        "{} {} — type {} for help\n",
        paint("urchin", Style::Keyword, color),
        env!("CARGO_PKG_VERSION"),
        paint(":help", Style::Command, color)
    ));
    if let Some(f) = file {
        repl.load_first(f, &mut Std);
    }
    // In raw mode (while a line is edited) Ctrl-C reaches rustyline as a
    // key; otherwise, while an input runs, it is a SIGINT, which sets the
    // flag the evaluator polls.
    if let Err(e) = signal_hook::flag::register(signal_hook::consts::SIGINT, repl.interrupt_flag())
    {
        warn(&format!("Ctrl-C cannot interrupt evaluations: {e}"), color);
    }
    let config = Config::builder()
        .auto_add_history(false)
        .completion_type(CompletionType::List)
        .color_mode(if color {
            ColorMode::Enabled
        } else {
            ColorMode::Disabled
        })
        .max_history_size(1000)
        .map(|b| b.build())
        .unwrap_or_default();
    let mut editor: Editor<ReplHelper, FileHistory> = match Editor::with_config(config) {
        Ok(e) => e,
        Err(e) => {
            warn(
                &format!("no line editing ({e}); reading plain lines"),
                color,
            );
            return piped_after_banner(repl);
        }
    };
    editor.set_helper(Some(ReplHelper {
        names: repl.names(),
        color,
        files: FilenameCompleter::new(),
        hints: HistoryHinter::new(),
    }));
    let history = history_path();
    if let Some(h) = history.as_deref().filter(|h| h.exists()) {
        if let Err(e) = editor.load_history(h) {
            warn(
                &format!("cannot read the history {}: {e}", h.display()),
                color,
            );
        }
    }
    let terminal = Rc::new(RefCell::new(Terminal {
        editor,
        history,
        history_ok: true,
        color,
    }));
    repl.attach_console(terminal.clone());
    let mut lines: Vec<String> = Vec::new();
    loop {
        let read = terminal.borrow_mut().editor.readline(repl.prompt());
        match read {
            Ok(line) => {
                lines.push(line.clone());
                let status = repl.feed(&line, &mut Std);
                if status == Status::More {
                    continue;
                }
                terminal.borrow_mut().remember(lines.join("\n"));
                lines.clear();
                if status == Status::Quit {
                    break;
                }
                let names = repl.names();
                if let Some(h) = terminal.borrow_mut().editor.helper_mut() {
                    h.names = names;
                }
            }
            Err(ReadlineError::Interrupted) => {
                repl.cancel();
                lines.clear();
            }
            // Ctrl-D on a continuation line drops the unfinished input
            // (saying so) rather than leaving with it.
            Err(ReadlineError::Eof) if repl.cancel() => {
                lines.clear();
                warn("unfinished input discarded (Ctrl-D again leaves)", color);
            }
            Err(ReadlineError::Eof) => break,
            Err(e) => {
                warn(&format!("cannot read input: {e}"), color);
                break;
            }
        }
    }
    ExitCode::SUCCESS
}

/// Reads plain lines when the terminal cannot be driven by rustyline.
fn piped_after_banner(mut repl: Repl) -> ExitCode {
    for line in std::io::stdin().lock().lines() {
        let Ok(l) = line else { break };
        if repl.feed(&l, &mut Std) == Status::Quit {
            break;
        }
    }
    repl.finish(&mut Std);
    ExitCode::SUCCESS
}

/// Appends the entries added since the last save; returns whether it
/// could.
fn save_history(editor: &mut Editor<ReplHelper, FileHistory>, path: &Path, color: bool) -> bool {
    if let Some(dir) = path.parent() {
        if let Err(e) = std::fs::create_dir_all(dir) {
            warn(
                &format!("cannot create {}: {e}; history not saved", dir.display()),
                color,
            );
            return false;
        }
    }
    if let Err(e) = editor.append_history(path) {
        warn(
            &format!("cannot save the history to {}: {e}", path.display()),
            color,
        );
        return false;
    }
    true
}

/// `$XDG_DATA_HOME/urchin/history`, by default
/// `~/.local/share/urchin/history` (the XDG base directory rules, which
/// say to ignore a relative `XDG_DATA_HOME`).
pub fn history_path() -> Option<PathBuf> {
    let data = match std::env::var_os("XDG_DATA_HOME") {
        Some(d) if Path::new(&d).is_absolute() => PathBuf::from(d),
        _ => home::home_dir()?.join(".local").join("share"),
    };
    Some(data.join("urchin").join("history"))
}

/// Completion, hints and highlighting for rustyline.
struct ReplHelper {
    /// The names in scope, refreshed after every input.
    names: Vec<String>,
    color: bool,
    files: FilenameCompleter,
    hints: HistoryHinter,
}

impl Helper for ReplHelper {}

impl Validator for ReplHelper {}

impl Completer for ReplHelper {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        ctx: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        match complete::complete(line, pos, &self.names) {
            Completion::Path => self.files.complete(line, pos, ctx),
            Completion::Words { start, candidates } => Ok((
                start,
                candidates
                    .into_iter()
                    .map(|c| Pair {
                        display: c.clone(),
                        replacement: c,
                    })
                    .collect(),
            )),
        }
    }
}

impl Hinter for ReplHelper {
    type Hint = String;

    fn hint(&self, line: &str, pos: usize, ctx: &Context<'_>) -> Option<String> {
        self.hints.hint(line, pos, ctx)
    }
}

impl Highlighter for ReplHelper {
    fn highlight<'l>(&self, line: &'l str, _pos: usize) -> Cow<'l, str> {
        if self.color {
            Cow::Owned(highlight(line, true))
        } else {
            Cow::Borrowed(line)
        }
    }

    fn highlight_prompt<'b, 's: 'b, 'p: 'b>(
        &'s self,
        prompt: &'p str,
        _default: bool,
    ) -> Cow<'b, str> {
        if self.color {
            Cow::Owned(paint(prompt, Style::Type, true))
        } else {
            Cow::Borrowed(prompt)
        }
    }

    fn highlight_hint<'h>(&self, hint: &'h str) -> Cow<'h, str> {
        if self.color {
            Cow::Owned(paint(hint, Style::Comment, true))
        } else {
            Cow::Borrowed(hint)
        }
    }

    fn highlight_char(&self, _line: &str, _pos: usize, _kind: CmdKind) -> bool {
        self.color
    }
}
