//! The `:commands`. Adding one is one entry in [`COMMANDS`]: its name,
//! what it takes, a line for `:help`, and the function that runs it.

use super::print::Show;
use super::style::{Style, paint};
use super::{Failed, Flow, Repl, Sink};
use std::path::PathBuf;
use urchin_base::source::FileId;

/// What a command's argument is. It decides whether an incomplete
/// argument continues on the next line (expressions), how the argument is
/// completed (names, file paths) and whether it is highlighted as code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arg {
    None,
    Expr,
    File,
    /// One of these words (or anything: the handler decides).
    Words(&'static [&'static str]),
    /// A command name.
    Command,
}

/// A command as typed: its argument, and where it is in the input.
pub struct Invocation<'a> {
    /// The argument, trimmed.
    pub arg: &'a str,
    /// The whole input, in the session's source map.
    pub file: FileId,
    /// The whole input with the command name blanked out, so that the
    /// argument parses with spans that point into the line as typed.
    pub padded: &'a str,
}

impl<'a> Invocation<'a> {
    /// The input with the part of the argument before `rest` (a suffix of
    /// the argument, after a flag or a count) blanked out, keeping offsets
    /// so that spans still point into the line as typed.
    pub fn blank_before(&self, rest: &str) -> String {
        let at = self.padded.len() - self.padded.trim_start().len();
        let n = self.arg.len() - rest.len();
        format!(
            "{}{}{}",
            &self.padded[..at],
            " ".repeat(n),
            &self.padded[at + n..]
        )
    }

    /// The invocation with `arg` (a suffix of the argument) as argument and
    /// `padded` (from [`Invocation::blank_before`]) as input.
    pub fn with_arg<'b>(&self, arg: &'b str, padded: &'b str) -> Invocation<'b> {
        Invocation {
            arg,
            file: self.file,
            padded,
        }
    }
}

pub type Handler = fn(&mut Repl, &Invocation, &mut dyn Sink) -> Result<Flow, Failed>;

pub struct Command {
    pub name: &'static str,
    /// The argument as `:help` shows it.
    pub args: &'static str,
    pub arg: Arg,
    pub help: &'static str,
    pub run: Handler,
}

/// Every command. A prefix selects the first command in this order that
/// starts with it (as in GHCi: `:t` is `:type`, `:ti` is `:time`), so the
/// most used commands come first.
pub const COMMANDS: &[Command] = &[
    Command {
        name: "type",
        args: "EXPR",
        arg: Arg::Expr,
        help: "show the type of an expression",
        run: type_of,
    },
    Command {
        name: "elab",
        args: "EXPR",
        arg: Arg::Expr,
        help: "show the maps and reps AUTOMAP inserts",
        run: elab,
    },
    Command {
        name: "info",
        args: "NAME",
        arg: Arg::Expr,
        help: "show a name's type, where it is defined and its doc comment",
        run: info,
    },
    Command {
        name: "load",
        args: "FILE",
        arg: Arg::File,
        help: "load a file in place of the current one",
        run: load,
    },
    Command {
        name: "reload",
        args: "",
        arg: Arg::None,
        help: "load the last loaded file again",
        run: reload,
    },
    Command {
        name: "browse",
        args: "[prelude|all|MODULE]",
        arg: Arg::Words(&[
            "prelude", "all", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f32", "f64",
        ]),
        help: "list the definitions in scope with their types",
        run: browse,
    },
    Command {
        name: "time",
        args: "EXPR",
        arg: Arg::Expr,
        help: "evaluate an expression and show how long it took",
        run: time,
    },
    Command {
        name: "grad",
        args: "[--stats] [--explain] F X...",
        arg: Arg::Expr,
        help: "the gradient of F at X; --stats: time and memory, --explain: the program",
        run: super::ad::grad,
    },
    Command {
        name: "vjp",
        args: "F",
        arg: Arg::Expr,
        help: "show the reverse-mode derivative program of F, sweeps labelled",
        run: super::ad::vjp,
    },
    Command {
        name: "jvp",
        args: "F",
        arg: Arg::Expr,
        help: "show the forward-mode derivative program of F",
        run: super::ad::jvp,
    },
    Command {
        name: "step",
        args: "[-n N] EXPR",
        arg: Arg::Expr,
        help: "show the reduction sequence of the reference semantics (at most N steps)",
        run: step,
    },
    Command {
        name: "steps",
        args: "EXPR",
        arg: Arg::Expr,
        help: "count the reduction steps of the reference semantics",
        run: steps,
    },
    Command {
        name: "plot",
        args: "[OPTIONS] EXPR [LO HI]",
        arg: Arg::Expr,
        help: "draw a float function over [LO, HI], an array, points or an image; OPTIONS (before or after): --grad or --vjp (and the derivative), --out FILE",
        run: super::plot::plot,
    },
    Command {
        name: "plot2d",
        args: "[--out FILE] EXPR",
        arg: Arg::Expr,
        help: "draw a pair of arrays (xs, ys), or a record of such pairs, as futhark literate does",
        run: super::plot::plot2d,
    },
    Command {
        name: "img",
        args: "[--out FILE] EXPR",
        arg: Arg::Expr,
        help: "draw a 2-D array as an image, as futhark literate does",
        run: super::plot::img,
    },
    Command {
        name: "device",
        args: "[SETTING]",
        arg: Arg::Words(&["auto", "none", "threshold"]),
        help: "show OpenCL devices and what was offloaded; SETTING: auto, none, a device NAME, threshold N|auto|measure",
        run: device,
    },
    Command {
        name: "edit",
        args: "[FILE]",
        arg: Arg::File,
        help: "edit FILE (or the loaded file) in $VISUAL or $EDITOR, then load it",
        run: edit,
    },
    Command {
        name: "cd",
        args: "DIR",
        arg: Arg::File,
        help: "change the working directory",
        run: cd,
    },
    Command {
        name: "!",
        args: "COMMAND",
        arg: Arg::None,
        help: "run a shell command",
        run: shell,
    },
    Command {
        name: "set",
        args: "[print full|summary]",
        arg: Arg::Words(&["print", "full", "summary"]),
        help: "show the settings, or change one (print: how big values print)",
        run: set,
    },
    Command {
        name: "help",
        args: "[COMMAND]",
        arg: Arg::Command,
        help: "list the commands, or describe one",
        run: help,
    },
    Command {
        name: "quit",
        args: "",
        arg: Arg::None,
        help: "leave the REPL (also Ctrl-D)",
        run: quit,
    },
];

/// The command `name` (without the colon) selects: an exact name, else
/// the first command that starts with it.
pub fn find(name: &str) -> Option<&'static Command> {
    if name.is_empty() {
        return None;
    }
    COMMANDS
        .iter()
        .find(|c| c.name == name)
        .or_else(|| COMMANDS.iter().find(|c| c.name.starts_with(name)))
}

/// Splits `:name rest` into the name and the byte offset of the rest.
pub fn split(input: &str) -> (&str, usize) {
    let body = input.trim_start();
    let colon = input.len() - body.len();
    let body = body.strip_prefix(':').unwrap_or(body);
    // `:!ls` needs no space.
    if body.starts_with('!') {
        return ("!", colon + 2);
    }
    let end = body.find(|c: char| c.is_whitespace()).unwrap_or(body.len());
    (&body[..end], colon + 1 + end)
}

/// What the REPL says of an unknown command: the nearest one, if any.
pub(super) fn unknown(name: &str) -> String {
    match urchin_base::diag::closest(name, COMMANDS.iter().map(|c| c.name)) {
        Some(near) => {
            format!("unknown command :{name}; did you mean :{near}? (:help lists the commands)\n")
        }
        None => format!("unknown command :{name}; :help lists the commands\n"),
    }
}

pub(super) fn usage(c: &str, sink: &mut dyn Sink) -> Failed {
    let cmd = find(c).expect("usage is asked for existing commands");
    sink.err(&format!("usage: :{} {}\n", cmd.name, cmd.args));
    Failed
}

fn no_argument(inv: &Invocation, name: &str, sink: &mut dyn Sink) -> Result<(), Failed> {
    if inv.arg.is_empty() {
        return Ok(());
    }
    sink.err(&format!(":{name} takes no argument\n"));
    Err(Failed)
}

fn type_of(r: &mut Repl, inv: &Invocation, sink: &mut dyn Sink) -> Result<Flow, Failed> {
    if inv.arg.is_empty() {
        return Err(usage("type", sink));
    }
    let e = r.parse_expr(inv, sink)?;
    let ty = r.type_of(&e, sink)?;
    let text = format!(
        "{} : {}\n",
        one_line(inv.arg),
        paint(&ty, Style::Type, r.color)
    );
    sink.out(&text);
    Ok(Flow::Continue)
}

fn elab(r: &mut Repl, inv: &Invocation, sink: &mut dyn Sink) -> Result<Flow, Failed> {
    if inv.arg.is_empty() {
        return Err(usage("elab", sink));
    }
    if let Some(text) = r.definition_of(inv.arg) {
        sink.out(&format!("{text}\n"));
        return Ok(Flow::Continue);
    }
    let e = r.parse_expr(inv, sink)?;
    let text = r.elaborate(&e, sink)?;
    sink.out(&format!("{text}\n"));
    Ok(Flow::Continue)
}

fn load(r: &mut Repl, inv: &Invocation, sink: &mut dyn Sink) -> Result<Flow, Failed> {
    if inv.arg.is_empty() {
        return Err(usage("load", sink));
    }
    r.load_file(path_arg(inv.arg), sink)?;
    Ok(Flow::Continue)
}

/// A file name as typed: in double quotes or with `\ ` for spaces (as
/// completion writes them), and `~/` for the home directory.
pub(super) fn path_arg(arg: &str) -> PathBuf {
    let unquoted = match arg.strip_prefix('"').and_then(|a| a.strip_suffix('"')) {
        Some(inner) => inner.to_string(),
        None => arg.replace("\\ ", " "),
    };
    match (unquoted.strip_prefix("~/"), home_dir()) {
        (Some(rest), Some(home)) => home.join(rest),
        _ => PathBuf::from(unquoted),
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn home_dir() -> Option<PathBuf> {
    home::home_dir()
}

/// The browser has none.
#[cfg(target_arch = "wasm32")]
fn home_dir() -> Option<PathBuf> {
    None
}

fn reload(r: &mut Repl, inv: &Invocation, sink: &mut dyn Sink) -> Result<Flow, Failed> {
    no_argument(inv, "reload", sink)?;
    let Some(path) = r.loaded.clone() else {
        sink.err("no file has been loaded; use :load FILE\n");
        return Err(Failed);
    };
    r.load_file(path, sink)?;
    Ok(Flow::Continue)
}

fn browse(r: &mut Repl, inv: &Invocation, sink: &mut dyn Sink) -> Result<Flow, Failed> {
    r.browse(inv.arg, sink)?;
    Ok(Flow::Continue)
}

fn time(r: &mut Repl, inv: &Invocation, sink: &mut dyn Sink) -> Result<Flow, Failed> {
    if inv.arg.is_empty() {
        return Err(usage("time", sink));
    }
    let e = r.parse_expr(inv, sink)?;
    let timing = r.evaluate(&e, sink)?;
    sink.out(&format!("{timing}\n"));
    Ok(Flow::Continue)
}

#[cfg(feature = "opencl")]
fn device(r: &mut Repl, inv: &Invocation, sink: &mut dyn Sink) -> Result<Flow, Failed> {
    let devices = r.session.host().devices.clone();
    let words: Vec<&str> = inv.arg.split_whitespace().collect();
    match words[..] {
        [] => {}
        ["threshold", "measure"] => {
            let measured = match devices.current() {
                Some(g) => g.measure_threshold(),
                None => {
                    Err("no device is in use; choose one with :device auto or :device NAME".into())
                }
            };
            if let Err(e) = measured {
                sink.err(&format!("{e}\n"));
                return Err(Failed);
            }
        }
        ["threshold", t] => {
            let t = match t {
                "auto" => None,
                n => match n.parse::<f64>() {
                    Ok(x) if x >= 0.0 => Some(x),
                    _ => {
                        sink.err("the threshold is a number of element operations (0: offload everything) or `auto`\n");
                        return Err(Failed);
                    }
                },
            };
            match devices.current() {
                Some(g) => g.set_threshold(t),
                None => {
                    sink.err("no device is in use; choose one with :device auto or :device NAME\n");
                    return Err(Failed);
                }
            }
        }
        [name] => devices.configure(urchin_gpu::Choice::parse(name)),
        _ => return Err(usage("device", sink)),
    }
    sink.out(&urchin_gpu::report(&devices));
    Ok(Flow::Continue)
}

/// Without OpenCL (the browser's build) the evaluator runs everything.
#[cfg(not(feature = "opencl"))]
fn device(_: &mut Repl, _: &Invocation, sink: &mut dyn Sink) -> Result<Flow, Failed> {
    sink.err("this build of urchin has no OpenCL offload: the evaluator runs everything\n");
    Err(Failed)
}

fn info(r: &mut Repl, inv: &Invocation, sink: &mut dyn Sink) -> Result<Flow, Failed> {
    if inv.arg.is_empty() {
        return Err(usage("info", sink));
    }
    r.info(inv.arg, sink)?;
    Ok(Flow::Continue)
}

/// `:edit [FILE]`: runs the editor on the file (the loaded one by
/// default), then loads it, as GHCi does.
fn edit(r: &mut Repl, inv: &Invocation, sink: &mut dyn Sink) -> Result<Flow, Failed> {
    let path = if inv.arg.is_empty() {
        match r.loaded.clone() {
            Some(p) => p,
            None => {
                sink.err("no file has been loaded; use :edit FILE\n");
                return Err(Failed);
            }
        }
    } else {
        path_arg(inv.arg)
    };
    let editor = ["VISUAL", "EDITOR"]
        .iter()
        .find_map(|v| std::env::var(v).ok().filter(|e| !e.trim().is_empty()))
        .unwrap_or_else(|| "vi".to_string());
    // Through the shell, so that `EDITOR="code --wait"` works.
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$1\""))
        .arg("sh")
        .arg(&path)
        .status();
    match status {
        Ok(s) if s.success() => {}
        Ok(s) => {
            sink.err(&format!(
                "the editor `{editor}` failed ({s}); nothing was loaded\n"
            ));
            return Err(Failed);
        }
        Err(e) => {
            sink.err(&format!("cannot run the editor `{editor}`: {e}\n"));
            return Err(Failed);
        }
    }
    r.load_file(path, sink)?;
    Ok(Flow::Continue)
}

/// `:cd DIR`: later relative file names are relative to `DIR`.
fn cd(_: &mut Repl, inv: &Invocation, sink: &mut dyn Sink) -> Result<Flow, Failed> {
    let dir = if inv.arg.is_empty() {
        match home_dir() {
            Some(h) => h,
            None => return Err(usage("cd", sink)),
        }
    } else {
        path_arg(inv.arg)
    };
    if let Err(e) = std::env::set_current_dir(&dir) {
        sink.err(&format!("cannot change to {}: {e}\n", dir.display()));
        return Err(Failed);
    }
    Ok(Flow::Continue)
}

/// The most output of one `:!` command that is shown: past it the
/// command is stopped (`:! yes` never ends, and a notebook keeps what a
/// cell prints).
pub const MAX_SHELL_OUTPUT: usize = 16 << 20;

/// `:! COMMAND`: runs a shell command, showing what it prints as it prints
/// it. Ctrl-C (or a notebook's interrupt) stops it, and so does output
/// past `MAX_SHELL_OUTPUT`; the command runs in a process group of its
/// own, so that stopping it stops what it started too.
fn shell(r: &mut Repl, inv: &Invocation, sink: &mut dyn Sink) -> Result<Flow, Failed> {
    use std::io::Read;
    use std::process::{Command, Stdio};
    use std::sync::atomic::Ordering;
    use std::sync::mpsc;
    use std::time::Duration;
    if inv.arg.is_empty() {
        return Err(usage("!", sink));
    }
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(inv.arg)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            sink.err(&format!("cannot run `sh`: {e}\n"));
            return Err(Failed);
        }
    };
    // Each stream is read on a thread of its own and sent here in pieces.
    let (tx, rx) = mpsc::channel::<(bool, Vec<u8>)>();
    let streams: [(bool, Option<Box<dyn Read + Send>>); 2] = [
        (false, child.stdout.take().map(|s| Box::new(s) as _)),
        (true, child.stderr.take().map(|s| Box::new(s) as _)),
    ];
    for (is_err, stream) in streams {
        let Some(mut stream) = stream else { continue };
        let tx = tx.clone();
        std::thread::spawn(move || {
            let mut buf = vec![0u8; 1 << 16];
            while let Ok(n @ 1..) = stream.read(&mut buf) {
                if tx.send((is_err, buf[..n].to_vec())).is_err() {
                    break;
                }
            }
        });
    }
    drop(tx);
    let interrupt = r.interrupt_flag();
    let mut pending = [Vec::new(), Vec::new()];
    let mut shown = 0usize;
    let mut stopped = None;
    loop {
        match rx.recv_timeout(Duration::from_millis(20)) {
            Ok((is_err, bytes)) => {
                shown += bytes.len();
                let text = utf8_prefix(&mut pending[is_err as usize], bytes);
                if is_err {
                    sink.err(&text);
                } else {
                    sink.out(&text);
                }
                if shown > MAX_SHELL_OUTPUT {
                    stopped = Some(format!(
                        "the command was stopped after printing {}",
                        urchin_base::mem::human(MAX_SHELL_OUTPUT)
                    ));
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
        if interrupt.load(Ordering::SeqCst) {
            stopped = Some("the command was interrupted".into());
        }
        if stopped.is_some() {
            stop_group(&mut child);
            break;
        }
    }
    let status = child.wait();
    for (is_err, rest) in pending.iter().enumerate() {
        if !rest.is_empty() {
            let text = String::from_utf8_lossy(rest);
            if is_err == 1 {
                sink.err(&text);
            } else {
                sink.out(&text);
            }
        }
    }
    if let Some(why) = stopped {
        sink.err(&format!("{why}\n"));
        return Err(Failed);
    }
    match status {
        Ok(s) if s.success() => Ok(Flow::Continue),
        Ok(s) => {
            sink.err(&format!("the command failed ({s})\n"));
            Err(Failed)
        }
        Err(e) => {
            sink.err(&format!("cannot wait for `sh`: {e}\n"));
            Err(Failed)
        }
    }
}

/// The text of `bytes` after what `pending` held, up to its last whole
/// UTF-8 character; the rest stays in `pending` for the next piece (a
/// piece may end inside a character). Invalid bytes become U+FFFD.
fn utf8_prefix(pending: &mut Vec<u8>, bytes: Vec<u8>) -> String {
    pending.extend(bytes);
    let keep = match std::str::from_utf8(pending) {
        Ok(_) => 0,
        Err(e) if e.error_len().is_none() => pending.len() - e.valid_up_to(),
        Err(_) => 0,
    };
    let rest = pending.split_off(pending.len() - keep);
    let text = String::from_utf8_lossy(pending).into_owned();
    *pending = rest;
    text
}

/// Stops a `:!` command and everything in its process group.
fn stop_group(child: &mut std::process::Child) {
    #[cfg(unix)]
    if let Ok(pid) = libc::pid_t::try_from(child.id()) {
        // SAFETY: sends a signal to the group the child leads (made with
        // `process_group(0)`); no memory is involved.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
    let _ = child.kill();
}

/// `:set [SETTING VALUE]`.
fn set(r: &mut Repl, inv: &Invocation, sink: &mut dyn Sink) -> Result<Flow, Failed> {
    let words: Vec<&str> = inv.arg.split_whitespace().collect();
    match words[..] {
        [] => {}
        ["print", "full"] => r.show = Show::Full,
        ["print", "summary"] => r.show = Show::Summary,
        _ => return Err(usage("set", sink)),
    }
    let print = match r.show {
        Show::Full => "full",
        Show::Summary => "summary",
    };
    sink.out(&format!("print {print}\n"));
    Ok(Flow::Continue)
}

/// The widest `:help` writes, in columns: past it a command's line goes
/// on below, under its description.
const HELP_WIDTH: usize = 100;

fn help(r: &mut Repl, inv: &Invocation, sink: &mut dyn Sink) -> Result<Flow, Failed> {
    let c = r.color;
    let heads: Vec<String> = COMMANDS
        .iter()
        .map(|cmd| format!(":{} {}", cmd.name, cmd.args).trim_end().to_string())
        .collect();
    // Heads up to a width share a column; a longer one has its
    // description on the next line.
    let width = heads
        .iter()
        .map(String::len)
        .filter(|&n| n <= 32)
        .max()
        .unwrap_or(0)
        + 4;
    let line = |i: usize| {
        let head = paint(&heads[i], Style::Command, c);
        let words = wrap(COMMANDS[i].help, HELP_WIDTH - width - 2);
        let pad = " ".repeat(width + 2);
        let mut out = if heads[i].len() + 2 > width {
            format!("  {head}\n{pad}")
        } else {
            format!("  {head}{}", " ".repeat(width - heads[i].len()))
        };
        out.push_str(&words.join(&format!("\n{pad}")));
        out.push('\n');
        out
    };
    if !inv.arg.is_empty() {
        let name = inv.arg.trim_start_matches(':');
        let Some(i) = find(name).and_then(|cmd| COMMANDS.iter().position(|c| c.name == cmd.name))
        else {
            sink.err(&unknown(name));
            return Err(Failed);
        };
        sink.out(&line(i));
        if let Some(more) = described(COMMANDS[i].name) {
            sink.out(&format!("\n{more}"));
        }
        return Ok(Flow::Continue);
    }
    let mut text = String::from(
        "Enter an expression to evaluate it, or a definition (def, let, type) to add it.\n\
         A line that is visibly incomplete continues on the next; :{ and :} enclose\n\
         several lines. Commands may be shortened to a prefix (:t is :type).\n",
    );
    for i in 0..COMMANDS.len() {
        text.push_str(&line(i));
    }
    sink.out(&text);
    Ok(Flow::Continue)
}

/// `text` in lines of at most `width` columns, broken between words.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = vec![String::new()];
    for word in text.split_whitespace() {
        let last = lines.last_mut().expect("never empty");
        if !last.is_empty() && last.chars().count() + 1 + word.chars().count() > width {
            lines.push(word.to_string());
        } else {
            if !last.is_empty() {
                last.push(' ');
            }
            last.push_str(word);
        }
    }
    lines
}

/// What docs/REPL.md says of a command, for `:help COMMAND`: the prose of
/// its section (its examples and the Markdown links' targets left out),
/// indented.
fn described(name: &str) -> Option<String> {
    const DOC: &str = include_str!("../../docs/REPL.md");
    let heading = |l: &str| {
        l.starts_with("### ")
            && l.match_indices(&format!("`:{name}"))
                .any(|(at, m)| l[at + m.len()..].starts_with([' ', '`']))
    };
    let mut lines = DOC.lines().skip_while(|l| !heading(l)).skip(1);
    // The prose up to the first example; a paragraph that introduces it
    // (ending in `:`) goes with it.
    let mut text = String::new();
    for l in lines
        .by_ref()
        .take_while(|l| !l.starts_with('#') && !l.starts_with("```"))
    {
        if !l.starts_with("<!--") {
            text.push_str(l);
            text.push('\n');
        }
    }
    let mut text = text.trim().to_string();
    if text.ends_with(':') {
        // The paragraph, or in a section of one, the sentence.
        let cut = text
            .rfind("\n\n")
            .or_else(|| text.rfind(". ").map(|at| at + 1));
        text.truncate(cut.unwrap_or(0));
    }
    let prose = unlink(text.trim());
    let out: Vec<String> = prose
        .split("\n\n")
        .map(|para| {
            wrap(para, HELP_WIDTH - 2)
                .iter()
                .map(|l| format!("  {l}\n"))
                .collect::<String>()
        })
        .collect();
    (!prose.is_empty()).then(|| out.join("\n"))
}

/// Markdown links `[text](target)` as their text.
fn unlink(md: &str) -> String {
    let mut out = String::new();
    let mut rest = md;
    while let Some(open) = rest.find('[') {
        let after = &rest[open + 1..];
        match after.find("](").and_then(|close| {
            let target = &after[close + 2..];
            target.find(')').map(|end| (close, close + 2 + end + 1))
        }) {
            Some((close, end)) if !after[..close].contains(['[', ']']) => {
                out.push_str(&rest[..open]);
                out.push_str(&after[..close]);
                rest = &after[end..];
            }
            _ => {
                out.push_str(&rest[..open + 1]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

fn quit(_: &mut Repl, inv: &Invocation, sink: &mut dyn Sink) -> Result<Flow, Failed> {
    no_argument(inv, "quit", sink)?;
    Ok(Flow::Quit)
}

/// An argument as echoed back: one line, spaces collapsed.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `:step [N] e`: the reduction sequence of the reference semantics.
fn step(r: &mut Repl, inv: &Invocation, sink: &mut dyn Sink) -> Result<Flow, Failed> {
    // Only a flag sets the count of steps to show: `:step 1 + 2` steps
    // `1 + 2`.
    let (limit, rest) = match inv.arg.split_once(char::is_whitespace) {
        Some(("-n" | "--limit", after)) => {
            let after = after.trim_start();
            let (n, rest) = after.split_once(char::is_whitespace).unwrap_or((after, ""));
            match n.parse::<u64>() {
                Ok(n) => (Some(n), rest.trim_start()),
                Err(_) => {
                    sink.err(&format!(
                        "-n takes a number of steps, not `{n}`: :step -n 10 EXPR\n"
                    ));
                    return Err(Failed);
                }
            }
        }
        _ => (None, inv.arg),
    };
    if rest.is_empty() {
        return Err(usage("step", sink));
    }
    let padded = inv.blank_before(rest);
    let inv = inv.with_arg(rest, &padded);
    let e = r.parse_expr(&inv, sink)?;
    let checked = r.checked(&e, sink)?;
    let mut opts = urchin_reference::TraceOptions {
        color: r.color,
        interrupt: Some(r.interrupt_flag()),
        ..Default::default()
    };
    if let Some(n) = limit {
        opts.limit = n;
    }
    // Streamed: a long reduction shows its first steps at once.
    let reached =
        urchin_reference::step_trace_to(&r.session, &checked, &opts, &mut |s| sink.out(s));
    if reached {
        Ok(Flow::Continue)
    } else {
        Err(Failed)
    }
}

/// `:steps e`: how many reduction steps an expression takes.
fn steps(r: &mut Repl, inv: &Invocation, sink: &mut dyn Sink) -> Result<Flow, Failed> {
    if inv.arg.is_empty() {
        return Err(usage("steps", sink));
    }
    let e = r.parse_expr(inv, sink)?;
    let checked = r.checked(&e, sink)?;
    let opts = urchin_reference::Options {
        interrupt: Some(r.interrupt_flag()),
        ..Default::default()
    };
    match urchin_reference::step_count(&r.session, &checked, &opts) {
        Ok(n) => {
            sink.out(&format!("{n}\n"));
            Ok(Flow::Continue)
        }
        Err(why) => {
            sink.err(&format!("{why}\n"));
            Err(Failed)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_pick_the_first_command_in_table_order() {
        assert_eq!(find("t").map(|c| c.name), Some("type"));
        assert_eq!(find("ti").map(|c| c.name), Some("time"));
        assert_eq!(find("l").map(|c| c.name), Some("load"));
        assert_eq!(find("r").map(|c| c.name), Some("reload"));
        assert_eq!(find("quit").map(|c| c.name), Some("quit"));
        assert!(find("x").is_none());
        assert!(find("").is_none());
    }

    #[test]
    fn help_has_each_commands_section_and_fits_in_its_width() {
        let grad = described("grad").expect("a section for :grad");
        assert!(grad.contains("The gradient of `F`"), "{grad}");
        assert!(!grad.contains("urchin>"), "{grad}");
        assert!(described("steps").is_some_and(|s| s.contains("counts")));
        assert!(described("cd").is_some());
        assert_eq!(
            unlink("see [REPL.md](REPL.md) and [x]"),
            "see REPL.md and [x]"
        );
        for l in wrap(COMMANDS[0].help, 20) {
            assert!(l.chars().count() <= 20, "{l}");
        }
    }

    #[test]
    fn names_are_unique() {
        for (i, c) in COMMANDS.iter().enumerate() {
            assert!(COMMANDS[..i].iter().all(|d| d.name != c.name), "{}", c.name);
        }
    }

    #[test]
    fn file_arguments() {
        assert_eq!(path_arg("a b.fut"), PathBuf::from("a b.fut"));
        assert_eq!(path_arg("\"a b.fut\""), PathBuf::from("a b.fut"));
        assert_eq!(path_arg("a\\ b.fut"), PathBuf::from("a b.fut"));
        if let Some(home) = home_dir() {
            assert_eq!(path_arg("~/x.fut"), home.join("x.fut"));
        }
    }

    #[test]
    fn split_finds_the_argument() {
        assert_eq!(split(":type x + 1"), ("type", 5));
        assert_eq!(split("  :q"), ("q", 4));
        assert_eq!(split(":"), ("", 1));
    }
}
