//! The `urchin` binary with piped standard input: no prompt, banner or
//! colour, results on standard output, errors on standard error, and exit
//! code 1 when any input failed.

use std::io::Write;
use std::process::{Command, Stdio};

struct Run {
    out: String,
    err: String,
    code: Option<i32>,
}

fn urchin(args: &[&str], input: &str) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_urchin"))
        .args(args)
        // Colour must stay off when piped, even where forced.
        .env("CLICOLOR_FORCE", "1")
        .env_remove("NO_COLOR")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start urchin");
    child
        .stdin
        .take()
        .expect("a stdin pipe")
        .write_all(input.as_bytes())
        .expect("write the input");
    let output = child.wait_with_output().expect("urchin finishes");
    Run {
        out: String::from_utf8(output.stdout).expect("UTF-8 output"),
        err: String::from_utf8(output.stderr).expect("UTF-8 errors"),
        code: output.status.code(),
    }
}

#[test]
fn a_piped_session() {
    let r = urchin(
        &[],
        ":type [1, 2, 3] + 1\n[1, 2, 3] + 1\n:elab [1, 2, 3] + 1\n\
         def twice (x: i32) =\n  x * 2\ntwice 21\n",
    );
    assert_eq!(
        r.out,
        "[1, 2, 3] + 1 : []i32\n[2, 3, 4]\nmap2 (+) [1, 2, 3] (rep 1)\n42\n"
    );
    assert_eq!(r.err, "");
    assert_eq!(r.code, Some(0));
}

#[test]
fn a_failed_line_makes_the_exit_code_1_and_the_rest_still_runs() {
    let r = urchin(&[], "let xs = [1, 2]\nxs[5]\nxs\n");
    assert_eq!(r.out, "[1, 2]\n");
    assert!(
        r.err.contains("run-time error: Index [5] out of bounds"),
        "{}",
        r.err
    );
    assert!(r.err.contains("<repl:2>"), "{}", r.err);
    assert!(
        !r.err.contains('\u{1b}') && !r.out.contains('\u{1b}'),
        "no colour"
    );
    assert_eq!(r.code, Some(1));
}

#[test]
fn repl_subcommand_loads_a_file() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("repl_cli");
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let file = dir.join("sq.fut");
    std::fs::write(&file, "def sq (x: f64) = x * x\n").expect("write");
    let path = file.display().to_string();
    let r = urchin(&["repl", &path], "sq [1, 2, 3]\n");
    assert_eq!(
        r.out,
        format!("loaded {path} (1 definition)\n[1.0, 4.0, 9.0]\n")
    );
    assert_eq!(r.code, Some(0));
}

#[test]
fn quit_ends_the_session() {
    let r = urchin(&[], "1\n:quit\n2\n");
    assert_eq!(r.out, "1\n");
    assert_eq!(r.code, Some(0));
}

#[test]
fn an_unfinished_last_input_is_an_error() {
    let r = urchin(&[], "1 +\n");
    assert_eq!(r.out, "");
    assert!(
        r.err.contains("parse error: unexpected end of input"),
        "{}",
        r.err
    );
    assert_eq!(r.code, Some(1));
}

#[test]
fn empty_input_succeeds() {
    let r = urchin(&[], "");
    assert_eq!((r.out.as_str(), r.err.as_str(), r.code), ("", "", Some(0)));
}

#[test]
fn urchin_run_prints_big_values_in_full() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("repl_cli_run_full");
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let file = dir.join("big.fut");
    std::fs::write(&file, "entry main (n: i64) = iota n\n").expect("write the program");
    let r = urchin(&["run", file.to_str().expect("UTF-8 path"), "2000"], "");
    assert_eq!(r.code, Some(0), "{}", r.err);
    assert!(!r.out.contains("..."), "{}", r.out);
    assert_eq!(r.out.matches("i64").count(), 2000);
}
