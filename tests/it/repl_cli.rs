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
    urchin_bytes(args, input.as_bytes())
}

fn urchin_bytes(args: &[&str], input: &[u8]) -> Run {
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
    // A command that exits before reading its input closes the pipe.
    let _ = child.stdin.take().expect("a stdin pipe").write_all(input);
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
        "[1, 2, 3] + 1 : [3]i32\n[2, 3, 4]\nmap2 (+) [1, 2, 3] (rep 1)\n42\n"
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
        r.err.contains("parse error: Unexpected end of input"),
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

/// A program written to a scratch file; its path.
fn program(test: &str, text: &str) -> String {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(test);
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let file = dir.join("p.fut");
    std::fs::write(&file, text).expect("write the program");
    file.display().to_string()
}

#[test]
fn urchin_run_prints_big_values_in_full() {
    let file = program("repl_cli_run_full", "entry main (n: i64) = iota n\n");
    let r = urchin(&["run", &file, "2000"], "");
    assert_eq!(r.code, Some(0), "{}", r.err);
    assert!(!r.out.contains("..."), "{}", r.out);
    assert_eq!(r.out.matches("i64").count(), 2000);
}

#[test]
fn an_unknown_entry_point_lists_the_entry_points() {
    let file = program(
        "cli_unknown_entry",
        "entry main (x: i32) = x + 1\nentry other (x: i32) = x\ndef helper (x: i32) = x\n",
    );
    for args in [vec!["run", "1"], vec!["step", "1"], vec!["core"]] {
        let cmd = args[0];
        let mut argv = vec![cmd, &file, "-e", "nope"];
        argv.extend(&args[1..]);
        let r = urchin(&argv, "");
        assert_eq!(r.code, Some(1), "{cmd}");
        assert_eq!(
            r.err,
            format!(
                "Error: {file} has no entry point named `nope`\n  help: its entry points are `main`, `other`; choose one with `-e NAME`\n"
            ),
            "{cmd}"
        );
    }
    let r = urchin(&["bench", &file, "-e", "nope"], "");
    assert_eq!(r.code, Some(1));
    assert!(
        r.err
            .contains("Error: no test block names the entry point `nope`"),
        "{}",
        r.err
    );
}

#[test]
fn negative_numbers_need_no_double_dash() {
    let file = program(
        "cli_negative",
        "entry main (x: i32) (y: f64) = (x + 1, y * 2)\n",
    );
    let r = urchin(&["run", &file, "-3", "-2.5"], "");
    assert_eq!(
        (r.out.as_str(), r.code),
        ("-2i32\n-5.0f64\n", Some(0)),
        "{}",
        r.err
    );
    let r = urchin(&["run", &file, "-3", "-e", "main", "-2.5"], "");
    assert_eq!(
        (r.out.as_str(), r.code),
        ("-2i32\n-5.0f64\n", Some(0)),
        "{}",
        r.err
    );
}

#[test]
fn stuck_terms_exit_non_zero() {
    let file = program("cli_stuck", "entry main (i: i64) = [1, 2][i]\n");
    let r = urchin(&["step", &file, "5"], "");
    assert!(
        r.out.contains("(stuck: Index [5] out of bounds"),
        "{}",
        r.out
    );
    assert_eq!(r.code, Some(1));
    let r = urchin(&["step", &file, "1"], "");
    assert_eq!(r.code, Some(0), "{}", r.err);
    let r = urchin(&[], ":step [1, 2][5]\n");
    assert!(r.out.contains("stuck"), "{}", r.out);
    assert_eq!(r.code, Some(1));
}

#[test]
fn a_missing_file_for_the_repl_is_an_error() {
    let r = urchin(&["repl", "/nonexistent/missing.fut"], "1\n");
    assert_eq!(r.out, "");
    assert!(
        r.err
            .starts_with("Error: cannot read /nonexistent/missing.fut"),
        "{}",
        r.err
    );
    assert_eq!(r.code, Some(1));
    let file = program("cli_repl_bad_file", "def x =\n");
    let r = urchin(&["repl", &file], "1\n");
    assert_eq!(r.out, "1\n");
    assert_eq!(r.code, Some(1));
}

#[test]
fn an_unclosed_block_is_reported() {
    let r = urchin(&[], "1\n:{\ndef f = 1\n");
    assert_eq!(r.out, "1\n");
    assert_eq!(
        r.err,
        "the `:{` on line 2 has no closing `:}`; the block was not run\n"
    );
    assert_eq!(r.code, Some(1));
}

#[test]
fn invalid_utf8_does_not_end_the_input() {
    let r = urchin_bytes(&[], b"1 + 1 -- caf\xe9\n2\n");
    assert_eq!(r.out, "2\n2\n");
    assert!(r.err.contains("line 1 is not valid UTF-8"), "{}", r.err);
    assert_eq!(r.code, Some(0));
}

#[test]
fn cli_errors_are_diagnostics_said_once() {
    let r = urchin(&["run", "/nonexistent/missing.fut"], "");
    assert_eq!(
        r.err,
        "Error: cannot read /nonexistent/missing.fut: No such file or directory (os error 2)\n"
    );
    assert_eq!(r.code, Some(1));
    let r = urchin(&["test", "--engine", "slow", "."], "");
    assert!(
        r.err.starts_with("Error: unknown engine `slow`\n"),
        "{}",
        r.err
    );
}

#[test]
fn edit_runs_the_editor_then_loads() {
    let file = program("cli_edit", "def sq (x: f64) = x * x\n");
    let mut child = Command::new(env!("CARGO_BIN_EXE_urchin"))
        .args(["repl", &file])
        .env("VISUAL", "sed -i s/sq/square/")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start urchin");
    let _ = child
        .stdin
        .take()
        .expect("a stdin pipe")
        .write_all(b":edit\nsquare 3\n");
    let out = child.wait_with_output().expect("urchin finishes");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.ends_with("(1 definition)\n9.0\n"), "{text}");
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn cd_changes_where_files_are_found() {
    let file = program("cli_cd", "def answer = 42i32\n");
    let dir = std::path::Path::new(&file).parent().expect("a directory");
    let r = urchin(
        &[],
        &format!(
            ":cd {}\n:load p.fut\nanswer\n:cd /nonexistent\n",
            dir.display()
        ),
    );
    assert!(r.out.ends_with("42\n"), "{}", r.out);
    assert!(
        r.err.starts_with("cannot change to /nonexistent"),
        "{}",
        r.err
    );
    assert_eq!(r.code, Some(1));
}
