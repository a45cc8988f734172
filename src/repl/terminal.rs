//! Running the REPL: interactively under rustyline (prompt, history,
//! completion, highlighting, Ctrl-C), or over piped standard input (no
//! prompt, banner or colour; the exit code says whether every input
//! succeeded).

use super::complete::{self, Completion};
use super::highlight::highlight;
use super::style::{Style, paint};
use super::{Repl, Sink, Status};
use rustyline::completion::{Completer, FilenameCompleter, Pair};
use rustyline::config::{ColorMode, CompletionType, Config};
use rustyline::error::ReadlineError;
use rustyline::highlight::{CmdKind, Highlighter};
use rustyline::hint::{Hinter, HistoryHinter};
use rustyline::history::FileHistory;
use rustyline::validate::Validator;
use rustyline::{Context, Editor, Helper};
use std::borrow::Cow;
use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Starts the REPL, loading `file` first if given.
pub fn run(file: Option<PathBuf>) -> ExitCode {
    if std::io::stdin().is_terminal() {
        interactive(file)
    } else {
        piped(file)
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

fn piped(file: Option<PathBuf>) -> ExitCode {
    let mut repl = Repl::new(false);
    if let Some(f) = file {
        // A file with errors is reported (and counts as a failure), but the
        // input still runs, as it would at a prompt.
        repl.load_first(f, &mut Std);
    }
    let mut read_failed = false;
    let mut stdin = std::io::stdin().lock();
    let mut bytes = Vec::new();
    let mut number = 0;
    loop {
        bytes.clear();
        match stdin.read_until(b'\n', &mut bytes) {
            Ok(0) => break,
            Ok(_) => {
                number += 1;
                if bytes.ends_with(b"\n") {
                    bytes.pop();
                }
                // One bad byte (a Latin-1 comment, say) should not end the
                // session: it is replaced, with a warning.
                let line = String::from_utf8_lossy(&bytes);
                if let std::borrow::Cow::Owned(_) = line {
                    warn(
                        &format!(
                            "line {number} is not valid UTF-8; its invalid bytes were replaced by U+FFFD"
                        ),
                        false,
                    );
                }
                if repl.feed(&line, &mut Std) == Status::Quit {
                    break;
                }
            }
            Err(e) => {
                Std.err(&format!("cannot read standard input: {e}\n"));
                read_failed = true;
                break;
            }
        }
    }
    repl.finish(&mut Std);
    if repl.failures() > 0 || read_failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn interactive(file: Option<PathBuf>) -> ExitCode {
    let color = std::env::var_os("NO_COLOR").is_none() && std::io::stdout().is_terminal();
    let mut repl = Repl::new(color);
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
    let mut lines: Vec<String> = Vec::new();
    let mut history_ok = true;
    loop {
        match editor.readline(repl.prompt()) {
            Ok(line) => {
                lines.push(line.clone());
                let status = repl.feed(&line, &mut Std);
                if status == Status::More {
                    continue;
                }
                let entry = lines.join("\n");
                lines.clear();
                if !entry.trim().is_empty() {
                    let _ = editor.add_history_entry(entry);
                    // Saved as typed, so that a killed terminal (SIGHUP)
                    // loses nothing; a failure is reported once.
                    if let Some(h) = history.as_deref().filter(|_| history_ok) {
                        history_ok = save_history(&mut editor, h, color);
                    }
                }
                if status == Status::Quit {
                    break;
                }
                if let Some(h) = editor.helper_mut() {
                    h.names = repl.names();
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
