//! Inputs that used to crash urchin or run away (issue 14): each must end
//! in a diagnostic or the right value, and a REPL session must go on. One
//! test per class: panic, abort (memory), stack depth, time, wrong value.

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Runs the `urchin` binary with `args` and `input` on standard input.
fn urchin(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_urchin"))
        .args(args)
        .env("NO_COLOR", "1")
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
    child.wait_with_output().expect("urchin finishes")
}

/// A program in a file of its own under Cargo's temporary directory for
/// integration tests; the guard is the path.
fn program(text: &str) -> ((), String) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("robust-{}-{n}.fut", std::process::id()));
    std::fs::write(&path, text).expect("write the program");
    ((), path.to_string_lossy().into_owned())
}

/// The run ended normally (exit code 0 or 1: no panic, abort or signal)
/// and its standard error contains `expect`.
fn clean(o: &Output, expect: &str) -> String {
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "status {:?}\n{err}",
        o.status
    );
    assert!(!err.contains("panicked"), "{err}");
    assert!(err.contains(expect), "expected `{expect}` in\n{err}");
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn allocations_past_the_limit_are_errors_and_the_repl_goes_on() {
    let o = urchin(
        &[],
        "replicate 100000000000 0\niota 10000000000 |> length\n\
         tabulate_2d 0 4294967296 (\\i j -> i + j)\n1 + 1\n",
    );
    let out = clean(&o, "over the memory limit");
    assert!(out.ends_with("2\n"), "{out}");
    // The limit is the process's: what it holds counts.
    let o = urchin(
        &["--max-memory", "1M"],
        "length (replicate 1000000 0i64)\n1\n",
    );
    let out = clean(&o, "needs 7.6 MiB, over the memory limit of 1.0 MiB");
    assert_eq!(out, "1\n");
}

#[test]
fn sizes_that_overflow_are_errors_not_panics() {
    let shapes = "entry main (n: i64) = map (\\x -> replicate 4294967296 (replicate 4294967296 x)) (iota n)\n";
    let (_d, p) = program(shapes);
    clean(&urchin(&["run", &p, "1"], ""), "out of memory");
    let out = clean(&urchin(&["run", &p, "0"], ""), "");
    assert!(out.starts_with("empty("), "{out}");
    let (_d, p) = program("entry main (x: [][][]i32) = length x\n");
    clean(
        &urchin(&["run", &p], "empty([0][4294967296][4294967296]i32)"),
        "too large to address",
    );
    let out = clean(&urchin(&["run", &p], "empty([0][2][3]i32)"), "");
    assert_eq!(out, "0i64\n");
    let (_d, p) = program(
        "-- ==\n-- random input { [4294967296][4294967296]i32 }\n-- output { 0i64 }\n\
         -- random input { [18446744073709551615]bool }\n-- output { 0i64 }\n\
         entry main [n][m] (x: [n][m]i32) = n\n",
    );
    let out = clean(&urchin(&["test", &p], ""), "");
    assert!(out.contains("too large to generate"), "{out}");
    assert!(out.contains("0 passed, 2 failed"), "{out}");
    // The small-step engine goes through the same checks.
    let (_d, p) = program("entry main (n: i64) = iota n\n");
    let o = urchin(&["step", &p, "9223372036854775807"], "");
    let out = clean(&o, "");
    assert!(out.contains("too large"), "{out}");
}

#[test]
fn deep_values_on_standard_input_are_refused() {
    let (_d, p) = program("entry main (x: []i32) = length x\n");
    let deep = "[".repeat(100_000);
    clean(&urchin(&["run", &p], &deep), "nested more than 256 deep");
}

#[test]
fn a_case_past_its_time_fails_by_name_and_the_run_goes_on() {
    let (_d, p) = program(
        "-- ==\n-- entry: spin\n-- input { 1i64 }\n-- output { 1i64 }\n\
         entry spin (n: i64) = loop x = n while x > 0 do x * 1\n\
         -- ==\n-- entry: fine\n-- input { 1i64 }\n-- output { 2i64 }\n\
         entry fine (n: i64) = n + 1\n",
    );
    let o = urchin(&["test", "--timeout", "0.5", &p], "");
    let out = clean(&o, "");
    assert!(
        out.contains("entry `spin` case 0: timed out after 0.5 s"),
        "{out}"
    );
    assert!(out.contains("1 passed, 1 failed"), "{out}");
}

#[test]
fn a_symbolic_link_loop_is_followed_once() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("robust-links-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("sub")).expect("make the directories");
    std::fs::write(
        dir.join("sub/a.fut"),
        "-- ==\n-- input { 1i32 }\n-- output { 1i32 }\nentry main (x: i32) = x\n",
    )
    .expect("write the program");
    #[cfg(unix)]
    std::os::unix::fs::symlink("..", dir.join("sub/up")).expect("make the link");
    let out = clean(&urchin(&["test", &dir.to_string_lossy()], ""), "");
    assert!(out.ends_with("1 passed, 0 failed, 0 skipped\n"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}
