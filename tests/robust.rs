//! Inputs that used to crash urchin or run away (issue 14): each must end
//! in a diagnostic or the right value, and a REPL session must go on. One
//! test per class: panic, abort (memory), stack depth, time, wrong value.
//!
//! A test binary of its own, not part of `tests/it`: a child's peak
//! resident memory as `wait4` reports it starts from the memory of the
//! process that spawned it (Linux keeps the high-water mark across
//! `fork` and `exec`), so the budgets below can only be read in a small
//! test process.

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

#[test]
fn long_call_chains_do_not_overflow_the_stack() {
    let mut text = String::from("def f0 (x: i32) = x + 1\n");
    for i in 1..3000 {
        text.push_str(&format!("def f{i} (x: i32) = f{} x\n", i - 1));
    }
    text.push_str("entry main = f2999 0\n");
    let (_d, p) = program(&text);
    assert_eq!(clean(&urchin(&["run", &p], ""), ""), "1i32\n");
}

/// Operator chains and `|>` pipelines are long, not deep, like `let`
/// chains: they parse, check, lower, run and print back (in time linear
/// in their length; these only must finish).
#[test]
fn operator_chains_and_pipelines_are_long_not_deep() {
    let chain = vec!["1"; 100_000].join(" + ");
    let (_d, p) = program(&format!("entry main : i64 = {chain}\n"));
    assert_eq!(clean(&urchin(&["run", &p], ""), ""), "100000i64\n");
    let out = clean(&urchin(&["elab", &p], ""), "");
    let ones = out.split_whitespace().filter(|w| *w == "1").count();
    assert_eq!(ones, 100_000, "{}", &out[..100]);
    // Past 10^5 links a chain is refused (and the refused tree dropped
    // in bounded stack).
    let chain = vec!["1"; 400_000].join(" + ");
    let (_d, p) = program(&format!("entry main : i64 = {chain}\n"));
    clean(&urchin(&["check", &p], ""), "expression chains too long");
    // A chain on a variable of unknown type leaves every application to
    // the rank solver, and links a type variable per link.
    let chain = vec!["y"; 10_000].join(" + ");
    let (_d, p) = program(&format!(
        "def f y = {chain}\nentry main (x: i64) = f x\nentry grad (x: f64) = vjp f x 1\n"
    ));
    assert_eq!(clean(&urchin(&["run", &p, "2"], ""), ""), "20000i64\n");
    assert_eq!(
        clean(&urchin(&["run", "-e", "grad", &p, "2.0"], ""), ""),
        "10000.0f64\n"
    );
    let stages = " |> (\\y -> y + 1)".repeat(10_000);
    let (_d, p) = program(&format!("entry main (x: i64) = x{stages}\n"));
    assert_eq!(clean(&urchin(&["run", &p, "5"], ""), ""), "10005i64\n");
    // A pipeline of maps: the simplifier fuses it in bounded segments.
    let stages = " |> map (+1)".repeat(10_000);
    let (_d, p) = program(&format!("entry main (x: []i64) = x{stages}\n"));
    assert_eq!(
        clean(&urchin(&["run", &p, "[1, 2]"], ""), ""),
        "[10001i64, 10002i64]\n"
    );
}

#[test]
fn a_long_let_chain_is_long_not_deep() {
    // As code generators write: 10^4 sequential `let`s check, run,
    // differentiate and step (the reference semantics refuses the term's
    // depth with a diagnostic, not a crash).
    let mut text = String::from("def f (x: f64) =\n  let x0 = x * 1.0\n");
    for i in 1..10_000 {
        text.push_str(&format!("  let x{i} = x{} + 1.0\n", i - 1));
    }
    text.push_str("  in x9999\nentry main (x: f64) = f x\nentry grad (x: f64) = vjp f x 1.0\n");
    let (_d, p) = program(&text);
    assert_eq!(clean(&urchin(&["run", &p], "1.0"), ""), "10000.0f64\n");
    assert_eq!(
        clean(&urchin(&["run", "-e", "grad", &p], "1.0"), ""),
        "1.0f64\n"
    );
    let out = urchin(&["repl", &p], "f 2.0\n:elab f 2.0\n");
    assert!(clean(&out, "").contains("\n10001.0\nf 2.0\n"));
}

#[test]
fn types_patterns_and_attributes_nested_past_the_limit_are_errors() {
    let deep = 10_000;
    let cases = [
        format!("def main (x: {}i32) = 1i32\n", "[]".repeat(deep)),
        format!("def main (f: {}i32) = 1i32\n", "i32 -> ".repeat(deep)),
        format!(
            "type t = {}i32{}\ndef main = 1i32\n",
            "{a: ".repeat(deep),
            "}".repeat(deep)
        ),
        format!(
            "def main = #[a{}{}] 1i32\n",
            "(a".repeat(deep),
            ")".repeat(deep)
        ),
        format!(
            "def f {}x{} = x\ndef main = 1i32\n",
            "(".repeat(deep),
            ", 1)".repeat(deep)
        ),
        // Each parameter is a level of the function's type.
        format!(
            "def f {} = 1i32\ndef main = 1i32\n",
            (0..deep)
                .map(|i| format!("(x{i}: i32)"))
                .collect::<Vec<_>>()
                .join(" ")
        ),
    ];
    for text in cases {
        let (_d, p) = program(&text);
        clean(&urchin(&["check", &p], ""), "is nested too deeply");
    }
}

/// Deep but legal types, patterns and lambdas: before substitutions were
/// applied once per generalisation (and rank classes computed once), each
/// of these took from a minute to hours (n⁴ and worse), and the lambdas
/// 11 s before the rank solver settled "no map, no rep anywhere" without
/// the ILP; now the whole set checks in about a second.
#[test]
fn deep_types_check_in_polynomial_time() {
    fn nest(d: usize, leaf: &str, wrap: impl Fn(String) -> String) -> String {
        (0..d).fold(leaf.to_string(), |acc, _| wrap(acc))
    }
    let tuple = nest(400, "1i32", |t| format!("({t}, 1i32)"));
    let record = nest(400, "1i32", |t| format!("{{a = {t}, b = 1i32}}"));
    // (Each name bound once: a pattern may not bind one twice.)
    let pattern = (0..200).fold("x".to_string(), |p, i| format!("({p}, y{i})"));
    let arrows = "i32 -> ".repeat(800);
    let params: Vec<String> = (0..900).map(|i| format!("(x{i}: i32)")).collect();
    // Nested lambdas on values of unknown rank (every application open
    // for the rank solver).
    let applied = nest(400, "y", |e| format!("(\\y -> {e}) (y + 1)"));
    let curried = (1..=400).fold("x0".to_string(), |e, i| format!("\\x{i} -> {e} + x{i}"));
    let text = format!(
        "def a = {tuple}\ndef b = {record}\ndef c {pattern} = x\n\
         def e (f: {arrows}i32) = 1i32\ndef g {} = x0\n\
         def h y = {applied}\ndef k x0 = {curried}\nentry main = h 7i32 - 400\n",
        params.join(" ")
    );
    let (_d, p) = program(&text);
    assert_eq!(clean(&urchin(&["run", &p], ""), ""), "7i32\n");
}

/// Exponential code from a few lines stops at a budget with a diagnostic
/// naming the construct, instead of running out of memory.
#[test]
fn inlining_and_nested_ad_past_the_budget_are_errors() {
    let mut text = String::from("def g0 (x: f64) = x\n");
    for i in 1..=24 {
        text.push_str(&format!(
            "def g{i} (x: f64) = g{} x + g{} x\n",
            i - 1,
            i - 1
        ));
    }
    text.push_str("entry main (x: f64) = g24 x\n");
    let (_d, p) = program(&text);
    clean(
        &urchin(&["run", &p, "1.0"], ""),
        "program too large: inlining `g",
    );
    let mut text = String::from(
        "def f (x: f64) = loop y = x for i < 3 do y * x\ndef d1 (x: f64) = vjp f x 1\n",
    );
    for i in 2..=8 {
        text.push_str(&format!("def d{i} (x: f64) = vjp d{} x 1\n", i - 1));
    }
    text.push_str("entry main (x: f64) = d8 x\n");
    let (_d, p) = program(&text);
    clean(
        &urchin(&["run", &p, "1.5"], ""),
        "program too large: differentiating this makes the program too large",
    );
    // Strip-mining costs 2^k runs of the body at least.
    for k in [30, 10_000] {
        let (_d, p) = program(&format!(
            "entry main (x: f64) = vjp (\\x -> #[stripmine({k})] loop y = x for i < 4 do y * x) x 1.0\n"
        ));
        clean(
            &urchin(&["run", &p, "1.5"], ""),
            &format!("program too large: strip-mining into {k} levels"),
        );
    }
}

/// `let x = (x, x)` doubles a type: past a budget it is an error, not an
/// exponential run.
#[test]
fn types_that_double_past_the_budget_are_errors() {
    let lets = "  let x = (x, x)\n".repeat(30);
    let (_d, p) = program(&format!("entry main (x: i32) =\n{lets}  in 1i32\n"));
    clean(
        &urchin(&["check", &p], ""),
        "program too large: this value's type is too large",
    );
}

/// What used to give a wrong value, an internal error or a panic: each is
/// now the right value or a diagnostic, and the REPL goes on.
#[test]
fn values_that_were_wrong_are_right_or_errors() {
    let o = urchin(
        &[],
        "10000000000i32\n300u8\ndef f (x: i32) (y: i32) = x - y\n(`f`) 5 2\n(`f` 1) 5\n(5 `f`) 1\n\
         vjp (\\(x: []f64) -> x) [1.0, 2.0] [1.0, 5.0, 7.0]\n\
         vjp (\\x -> loop y = x for i < -5i64 do y * x) 2.0 1.0\n",
    );
    let out = clean(&o, "the literal 10000000000 does not fit in i32");
    assert_eq!(out, "3\n4\n4\n1.0\n");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("the literal 300 does not fit in u8"), "{err}");
    assert!(
        err.contains("cannot match shape [2] (the cotangent)"),
        "{err}"
    );
    let (_d, p) = program(
        "def p (x: []f64) = f64.product x\ndef g (x: []f64) = vjp p x 1.0\n\
         entry vv (x: []f64) = vjp (\\x -> (g x)[0]) x 1.0\n\
         entry jv (x: []f64) = jvp g x [1.0, 0.0, 0.0]\nentry g1 (x: []f64) = g x\n",
    );
    for e in ["vv", "jv"] {
        let out = clean(&urchin(&["run", "-e", e, &p], "[0.0, 2.0, 3.0]"), "");
        assert_eq!(out, "[0.0f64, 3.0f64, 2.0f64]\n", "{e}");
    }
    let out = clean(
        &urchin(&["run", "-e", "g1", &p], "[1e-200, 1e-200, 1e200]"),
        "",
    );
    assert_eq!(out, "[1.0f64, 1.0f64, 0.0f64]\n");
    let (_d, p) = program("type vec = [3]f64\nentry main (v: vec) = v\n");
    clean(
        &urchin(&["run", &p], "[1.0, 2.0]"),
        "Value of shape [2] cannot match shape [3]",
    );
    let (_d, p) = program("entry main (f: i32 -> i32) = f 1\n");
    clean(
        &urchin(&["check", &p], ""),
        "type error: the entry point `main` takes a function: entry points may not be higher-order",
    );
}

/// A `jvp` runs its primal once, as plain evaluation does: a failure
/// there that no tangent reads is still an error, not a value (the
/// small-step engine's dual numbers see it too).
#[test]
fn a_failure_in_primal_code_under_jvp_is_an_error() {
    let o = urchin(
        &[],
        "def f (n: i64) (p: f64) = let _ = map2 (+) (iota 2) (iota (n + 1))[1:] in p * 2\n\
         f 3 1.0\njvp (f 3) 1.0 1.0\njvp (f 2) 1.0 1.0\n",
    );
    let out = clean(&o, "map over arrays of lengths 2 and 3");
    assert_eq!(out, "2.0\n");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.matches("lengths 2 and 3").count(), 2, "{err}");
}

/// An `else if` chain a generator writes is refused past the depth
/// limit, and the diagnostic shows a window of the (long) line, not all
/// of it.
#[test]
fn a_diagnostic_on_a_long_line_shows_a_window() {
    let chain: String = (0..10_000)
        .map(|i| format!("if x == {i} then {i} else "))
        .collect();
    let (_d, p) = program(&format!("entry main (x: i64) : i64 = {chain}-1\n"));
    let o = urchin(&["check", &p], "");
    clean(&o, "is nested too deeply");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.len() < 2_000, "{} bytes of diagnostic", err.len());
    assert!(err.contains('…'), "{err}");
}

// ----- Issue 43: inputs that ran away, each within a stated budget -----

/// What a run of `urchin` may take: its peak resident memory and its CPU
/// time (user and system, all threads), as the kernel counts them for the
/// process (`wait4`). The budgets are far below what the inputs took
/// before the fixes (gigabytes, tens of seconds) and far above what they
/// take now, so that they hold on a loaded machine.
struct Budget {
    mib: u64,
    cpu_secs: f64,
}

/// A run, and what it took.
struct Measured {
    out: Output,
    peak_mib: u64,
    cpu_secs: f64,
}

/// Where a run's standard input comes from.
enum Input<'a> {
    Text(&'a str),
    File(&'a str),
}

/// Runs the `urchin` binary and measures it. A run past a minute of wall
/// time is killed (an input that hangs fails its test instead of the
/// suite hanging).
#[expect(
    clippy::zombie_processes,
    reason = "the child is reaped by `wait4`, which gives its resource usage too"
)]
fn measured(args: &[&str], input: Input) -> Measured {
    use std::io::Read;
    use std::os::unix::process::ExitStatusExt;
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_urchin"));
    cmd.args(args)
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    match input {
        Input::Text(_) => cmd.stdin(Stdio::piped()),
        Input::File(path) => cmd.stdin(std::fs::File::open(path).expect("open the input")),
    };
    let mut child = cmd.spawn().expect("start urchin");
    let pid = child.id() as libc::pid_t;
    let writer = child.stdin.take().map(|mut stdin| {
        let text = match input {
            Input::Text(t) => t.to_string(),
            Input::File(_) => String::new(),
        };
        // A child that stops reading early closes the pipe: not an error.
        std::thread::spawn(move || drop(stdin.write_all(text.as_bytes())))
    });
    let reader = |mut s: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            let _ = s.read_to_end(&mut v);
            v
        })
    };
    let out = reader(Box::new(child.stdout.take().expect("a stdout pipe")));
    let err = reader(Box::new(child.stderr.take().expect("a stderr pipe")));
    let start = std::time::Instant::now();
    let mut status = 0;
    // SAFETY: `rusage` is plain data, filled in by `wait4`.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: waits for our own child, writing into the locals above.
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        if r == pid {
            break;
        }
        assert!(r == 0, "wait4 failed");
        if start.elapsed() > std::time::Duration::from_secs(60) {
            // SAFETY: signals our own child.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    if let Some(w) = writer {
        let _ = w.join();
    }
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    Measured {
        out: Output {
            status: std::process::ExitStatus::from_raw(status),
            stdout: out.join().expect("read stdout"),
            stderr: err.join().expect("read stderr"),
        },
        peak_mib: usage.ru_maxrss as u64 / 1024,
        cpu_secs: secs(usage.ru_utime) + secs(usage.ru_stime),
    }
}

/// The run stayed within `budget`, ended cleanly (as [`clean`]) and its
/// standard error contains `expect`; its standard output.
fn within(m: &Measured, budget: Budget, expect: &str) -> String {
    let err = String::from_utf8_lossy(&m.out.stderr);
    assert!(
        m.peak_mib <= budget.mib,
        "peak memory {} MiB, over the budget of {} MiB\n{err}",
        m.peak_mib,
        budget.mib
    );
    assert!(
        m.cpu_secs <= budget.cpu_secs,
        "{:.1} s of CPU, over the budget of {} s\n{err}",
        m.cpu_secs,
        budget.cpu_secs
    );
    clean(&m.out, expect)
}

/// Item 1: a map whose rows are built chunk by chunk asks for its whole
/// result before the second chunk (it reserved 80 GB unchecked and
/// aborted, or reached 3 GiB before an error).
#[test]
fn a_huge_map_result_is_refused_before_it_is_allocated() {
    let (_d, p) = program("entry main (n: i64) = map (\\i -> replicate n i) (iota n) |> length\n");
    for n in ["100000", "20000"] {
        let m = measured(&["run", "--max-memory", "256M", &p, n], Input::Text(""));
        within(
            &m,
            Budget {
                mib: 400,
                cpu_secs: 20.0,
            },
            "out of memory",
        );
    }
    let m = measured(
        &["--max-memory", "256M"],
        Input::Text(
            "def g (n: i64) = map (\\i -> replicate n i) (iota n) |> length\ng 100000\n1 + 1\n",
        ),
    );
    let out = within(
        &m,
        Budget {
            mib: 400,
            cpu_secs: 20.0,
        },
        "out of memory",
    );
    assert_eq!(out, "2\n");
}

/// Item 2: what urchin reads is bounded: program text by 64 MiB, data by
/// the memory limit; an endless or exploding input is an error, not
/// gigabytes buffered.
#[test]
fn reading_input_stays_within_the_limits() {
    let (_d, p) = program("entry main (x: []f64) = length x\n");
    let m = measured(
        &["run", "--max-memory", "100M", &p],
        Input::File("/dev/zero"),
    );
    within(
        &m,
        Budget {
            mib: 300,
            cpu_secs: 20.0,
        },
        "standard input did not fit in memory",
    );
    let m = measured(&["check", "/dev/zero"], Input::Text(""));
    within(
        &m,
        Budget {
            mib: 300,
            cpu_secs: 20.0,
        },
        "larger than 64.0 MiB",
    );
    let m = measured(&[], Input::Text(":load /dev/zero\n1 + 1\n"));
    let out = within(
        &m,
        Budget {
            mib: 300,
            cpu_secs: 20.0,
        },
        "larger than 64.0 MiB",
    );
    assert_eq!(out, "2\n");
    // A gzip bomb: 13 MB of zeros unpacks to 13 GB; 256 MiB of them is
    // 256 KiB packed, and past `--max-memory 100M` already.
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("robust-gz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("make the directory");
    let mut gz = flate2::write::GzEncoder::new(
        std::fs::File::create(dir.join("x.gz")).expect("create the data file"),
        flate2::Compression::fast(),
    );
    let zeros = vec![b'0'; 1 << 20];
    for _ in 0..256 {
        gz.write_all(&zeros).expect("write the data file");
    }
    gz.finish().expect("finish the data file");
    let t = dir.join("t.fut");
    std::fs::write(
        &t,
        "-- ==\n-- input @ x.gz\n-- output { 0i64 }\nentry main (x: []i64) = length x\n",
    )
    .expect("write the program");
    let m = measured(
        &["test", "--max-memory", "100M", &t.to_string_lossy()],
        Input::Text(""),
    );
    let out = within(
        &m,
        Budget {
            mib: 300,
            cpu_secs: 30.0,
        },
        "",
    );
    assert!(out.contains("did not fit in memory"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Item 3: the reference semantics unfolds a `map` into a term per
/// element, far larger than the element; it is held to the memory limit
/// too (it grew to 5 GB and aborted).
#[test]
fn the_small_step_engine_keeps_to_the_memory_limit() {
    let (_d, p) = program(
        "-- ==\n-- input { 2000000i64 }\n-- output { 0i64 }\n\
         entry main (n: i64) = i64.sum (map (*2) (iota n))\n",
    );
    let m = measured(
        &["test", "--engine", "small-step", "--max-memory", "256M", &p],
        Input::Text(""),
    );
    let out = within(
        &m,
        Budget {
            mib: 400,
            cpu_secs: 60.0,
        },
        "",
    );
    assert!(out.contains("out of memory"), "{out}");
}

/// Item 4: an ambiguity with many minimal readings is reported with the
/// first few and how many more, after a bounded enumeration (it took 18 s
/// of CPU). Each `i64.sum (length y)` of a `[][][]i64` can map `length`
/// or replicate its result, under either count of AUTOMAP's ILP, so
/// three of them have eight minimal readings.
#[test]
fn an_ambiguity_is_reported_within_a_budget() {
    let (_d, p) = program(
        "def main (y: [][][]i64) = (i64.sum (length y), i64.sum (length y), i64.sum (length y))\n",
    );
    let m = measured(&["check", &p], Input::Text(""));
    within(
        &m,
        Budget {
            mib: 300,
            cpu_secs: 5.0,
        },
        "ambiguous: `main` can be elaborated",
    );
    let err = String::from_utf8_lossy(&m.out.stderr);
    assert!(err.contains("more"), "{err}");
}

/// Item 5: `it` bound to a function refers to the `it` before it (the
/// new definition referred to itself, and `it 3` overflowed the stack);
/// after a value, a function of it is bound too.
#[test]
fn it_refers_to_the_it_before() {
    let m = measured(
        &[],
        Input::Text(
            "\\(x: i32) -> x + 1\n\\(y: i32) -> it y * 2\nit 3\n5\n\\(y: i32) -> it + y\nit 3\n",
        ),
    );
    let out = within(
        &m,
        Budget {
            mib: 300,
            cpu_secs: 10.0,
        },
        "",
    );
    let values: Vec<&str> = out.lines().filter(|l| !l.starts_with('<')).collect();
    assert_eq!(values, ["8", "5", "8"], "{out}");
}

/// Item 6: a shell command's output is shown as it comes and stops at a
/// cap (`:! yes` was buffered whole until the REPL aborted).
#[test]
fn a_shell_command_that_never_ends_is_stopped() {
    let m = measured(&[], Input::Text(":! yes\n1 + 1\n"));
    let out = within(
        &m,
        Budget {
            mib: 300,
            cpu_secs: 30.0,
        },
        "the command was stopped after printing 16.0 MiB",
    );
    // The cap is in bytes: the last line shown may be cut.
    assert!(
        out.starts_with("y\ny\n") && out.ends_with("2\n"),
        "{}",
        &out[out.len() - 20..]
    );
    assert!(out.len() < (17 << 20), "{} bytes shown", out.len());
}

/// Item 7: a thread count past a few per core is clamped, with a warning
/// (4294967295 was taken, and 10,000 turned 0.26 s into 41 s).
#[test]
fn thread_counts_are_clamped() {
    let (_d, p) = program("entry main (n: i64) = i64.sum (map (\\i -> i * i) (iota n))\n");
    for n in ["4294967295", "10000"] {
        let m = measured(&["run", "--threads", n, &p, "3000000"], Input::Text(""));
        let out = within(
            &m,
            Budget {
                mib: 500,
                cpu_secs: 20.0,
            },
            "more than 4 per core",
        );
        assert_eq!(out, "8999995500000500000i64\n");
    }
}

/// Item 8: a FIFO (or anything else not a regular file) named `x.fut` in
/// a directory is skipped with a note (reading it blocked forever).
#[test]
fn test_skips_what_is_not_a_regular_file() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("robust-fifo-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("make the directory");
    let fifo = std::ffi::CString::new(dir.join("x.fut").to_string_lossy().as_bytes())
        .expect("a path without NUL");
    // SAFETY: makes a FIFO at a path we own.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    std::fs::write(
        dir.join("y.fut"),
        "-- ==\n-- input { 1i32 }\n-- output { 1i32 }\nentry main (x: i32) = x\n",
    )
    .expect("write the program");
    let m = measured(&["test", &dir.to_string_lossy()], Input::Text(""));
    let out = within(
        &m,
        Budget {
            mib: 300,
            cpu_secs: 10.0,
        },
        "",
    );
    assert!(out.contains("x.fut: skipped: not a regular file"), "{out}");
    assert!(out.ends_with("1 passed, 0 failed, 1 skipped\n"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Item 9: output into a pipe closed early (`urchin check big.fut |
/// head`) ends the run quietly, by SIGPIPE as other tools do (`println!`
/// panicked on the broken pipe).
#[test]
fn a_closed_output_pipe_is_no_panic() {
    use std::io::Read;
    use std::os::unix::process::ExitStatusExt;
    let text: String = (0..5000)
        .map(|i| format!("def f{i} (x: i32) = x + {i}\n"))
        .collect();
    let (_d, p) = program(&text);
    for cmd in ["check", "elab"] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_urchin"))
            .args([cmd, &p])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start urchin");
        let mut head = [0u8; 100];
        let mut stdout = child.stdout.take().expect("a stdout pipe");
        stdout.read_exact(&mut head).expect("the first lines");
        drop(stdout);
        let o = child.wait_with_output().expect("urchin finishes");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!err.contains("panicked"), "{cmd}: {err}");
        assert!(
            o.status.success() || o.status.signal() == Some(libc::SIGPIPE),
            "{cmd}: {:?}\n{err}",
            o.status
        );
    }
}
