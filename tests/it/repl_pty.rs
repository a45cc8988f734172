//! The REPL on a real pseudo-terminal: banner and prompt, tab completion,
//! Ctrl-C interrupting a long evaluation (the REPL lives on), Ctrl-C
//! clearing the line, Ctrl-D leaving, and the history file.

#![cfg(unix)]

use expectrl::session::OsSession;
use expectrl::{ControlCode, Eof, Expect, Regex, Session};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// A fresh directory to stand for `$XDG_DATA_HOME`.
fn data_dir(test: &str) -> PathBuf {
    let data = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("repl_pty")
        .join(test);
    let _ = std::fs::remove_dir_all(&data);
    std::fs::create_dir_all(&data).expect("a scratch directory");
    data
}

fn spawn(data: &Path, color: bool) -> OsSession {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_urchin"));
    cmd.env("TERM", "xterm")
        .env("XDG_DATA_HOME", data)
        .env_remove("CLICOLOR")
        .env_remove("CLICOLOR_FORCE");
    if color {
        cmd.env_remove("NO_COLOR");
    } else {
        cmd.env("NO_COLOR", "1");
    }
    let mut p = Session::spawn(cmd).expect("start urchin on a pseudo-terminal");
    p.set_expect_timeout(Some(Duration::from_secs(30)));
    p
}

/// Expects `text` as a line of output of its own (not, say, a digit of
/// an escape sequence), then the next prompt: keys sent before the prompt
/// is up could be read in the wrong terminal mode.
fn value(p: &mut OsSession, text: &str) {
    p.expect(Regex(format!("\r\n{}\r\n", regex::escape(text))))
        .unwrap_or_else(|e| panic!("expected the line {text:?}: {e}"));
    p.expect("urchin> ").expect("the prompt");
    // The prompt can be written before the line editor has put the
    // terminal in raw mode, and keys sent at once are then read as plain
    // text: the likely cause of a Tab completion that never came in one
    // run on a loaded machine.
    std::thread::sleep(Duration::from_millis(200));
}

#[test]
fn prompt_completion_interrupt_and_history() {
    let data = data_dir("session");
    let mut p = spawn(&data, false);
    p.expect(format!(
        "urchin {} — type :help for help",
        env!("CARGO_PKG_VERSION")
    ))
    .expect("the banner");
    p.expect("urchin> ").expect("the prompt");

    p.send_line("[1, 2, 3] + 1").expect("send");
    value(&mut p, "[2, 3, 4]");

    // A definition over two lines, with the continuation prompt.
    p.send_line("def twice (x: i32) =").expect("send");
    p.expect("urchin| ").expect("the continuation prompt");
    p.send_line("  x * 2").expect("send");
    p.expect("urchin> ").expect("the prompt");

    // Tab completes a member of a numeric module, a definition made at the
    // prompt, and a command.
    p.send("f32.sqr\t").expect("send");
    p.expect("f32.sqrt").expect("a completion");
    p.send_line(" 16").expect("send");
    value(&mut p, "4.0f32");
    p.send("twi\t").expect("send");
    p.expect("twice").expect("a completion");
    p.send_line(" 21").expect("send");
    value(&mut p, "42");
    p.send(":ty\t").expect("send");
    p.expect(":type").expect("a command completion");
    p.send_line(" twice").expect("send");
    value(&mut p, "twice : i32 -> i32");

    // Ctrl-C stops an endless loop and the REPL carries on.
    p.send_line("loop i = 0i64 while i >= 0 do i + 1")
        .expect("send");
    std::thread::sleep(Duration::from_millis(500));
    p.send(ControlCode::EndOfText).expect("Ctrl-C");
    p.expect("interrupted").expect("the interrupt message");
    p.expect("urchin> ").expect("back at the prompt");
    p.send_line("twice 5").expect("send");
    value(&mut p, "10");

    // Ctrl-C at the prompt clears the line.
    p.send("this is not valid").expect("send");
    p.send(ControlCode::EndOfText).expect("Ctrl-C");
    p.expect("urchin> ").expect("a fresh prompt");
    p.send_line("7 * 6").expect("send");
    value(&mut p, "42");

    // Ctrl-D on a continuation line discards the unfinished input, says
    // so, and the REPL stays; the next Ctrl-D at the prompt leaves.
    p.send_line("def unfinished (x: i32) =").expect("send");
    p.expect("urchin| ").expect("the continuation prompt");
    p.send(ControlCode::EndOfTransmission).expect("Ctrl-D");
    p.expect("unfinished input discarded")
        .expect("the discard message");
    p.expect("urchin> ").expect("back at the prompt");
    p.send_line(":type twice").expect("send");
    value(&mut p, "twice : i32 -> i32");
    p.send_line(":type unfinished").expect("send");
    p.expect("unfinished").expect("an error naming it");
    p.expect("urchin> ").expect("back at the prompt");

    // Ctrl-D leaves; the history is saved.
    p.send(ControlCode::EndOfTransmission).expect("Ctrl-D");
    p.expect(Eof).expect("the REPL exits");
    let history =
        std::fs::read_to_string(data.join("urchin").join("history")).expect("the history file");
    assert!(history.contains("[1, 2, 3] + 1"), "{history}");
    assert!(history.contains("7 * 6"), "{history}");
    assert!(!history.contains("this is not valid"), "{history}");
}

#[test]
fn values_are_coloured() {
    let data = data_dir("colour");
    let mut p = spawn(&data, true);
    p.expect("urchin> ").expect("the prompt");
    p.send_line("42").expect("send");
    p.expect(Regex("\r\n\u{1b}\\[[0-9;]*m42\u{1b}\\[0m\r\n"))
        .expect("a coloured value");
    p.send_line(":quit").expect("send");
    p.expect(Eof).expect("the REPL exits");
}

#[test]
fn an_unreadable_history_is_only_a_warning() {
    let data = data_dir("unreadable_history");
    // A directory where the history file should be: reading and writing
    // it fail.
    std::fs::create_dir_all(data.join("urchin").join("history")).expect("a directory");
    let mut p = spawn(&data, false);
    p.expect("warning: cannot read the history")
        .expect("a warning");
    p.expect("urchin> ").expect("the prompt");
    p.send_line("1 + 1").expect("send");
    value(&mut p, "2");
    p.send_line(":q").expect("send");
    p.expect(Eof).expect("the REPL exits");
    let status = format!("{:?}", p.get_process().wait().expect("the exit status"));
    assert!(
        status.starts_with("Exited(") && status.ends_with(", 0)"),
        "{status}"
    );
}
