//! REPL transcripts: lines fed to the REPL engine, with the output
//! interleaved as a terminal would show it, snapshotted with insta
//! (`snapshots/repl_transcripts__*.snap`).

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};
use urchin::repl::{Repl, Status};

/// Feeds `script` line by line, echoing each line after the prompt it was
/// typed at, then ends the input.
fn transcript_in(repl: &mut Repl, script: &str) -> String {
    let mut out = String::new();
    for line in script.lines() {
        out.push_str(repl.prompt());
        out.push_str(line);
        out.push('\n');
        if repl.feed(line, &mut out) == Status::Quit {
            out.push_str("[quit]\n");
            return out;
        }
    }
    repl.finish(&mut out);
    out.push_str(&format!("[failures: {}]\n", repl.failures()));
    out
}

fn transcript(script: &str) -> String {
    transcript_in(&mut Repl::new(false), script)
}

fn snapshot(name: &str, text: &str) {
    insta::with_settings!({snapshot_path => "../../snapshots", prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!(format!("repl_transcripts__{name}"), text);
    });
}

fn check(name: &str, script: &str) {
    snapshot(name, &transcript(script));
}

/// A fresh directory for the files a test loads.
fn scratch(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("repl")
        .join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create a scratch directory");
    dir
}

/// A transcript with the scratch directory written as `<dir>`.
fn check_in(name: &str, dir: &Path, script: &str) {
    let script = script.replace("<dir>", &dir.display().to_string());
    let out = transcript(&script).replace(&dir.display().to_string(), "<dir>");
    snapshot(name, &out);
}

#[test]
fn automap_expression_type_and_elaboration() {
    check(
        "automap_expression",
        "[1, 2, 3] + 1\n:type [1, 2, 3] + 1\n:elab [1, 2, 3] + 1\n\
         :elab [[1, 2], [3, 4]] * [10, 20]\ni32.sum [[1, 2], [3, 4]]\n\
         :elab i32.sum [[1, 2], [3, 4]]\nf32.sqrt [4.0, 9.0]\n:elab f32.sqrt [4.0, 9.0]",
    );
}

#[test]
fn values_print_in_value_syntax() {
    check(
        "values",
        "42\n3.5\n2.5f32\n7u8\ntrue\n[true, false]\n(1, [2.0, 3.0])\n\
         {x = 1.0, y = 2}\nzip [1, 2] [3.0f32, 4.0]\n[(1, (true, 2.0))]\n\
         [[1, 2], [3, 4]]\niota 0\n[] : [](i32, f64)\nreplicate 2 (replicate 0 1i64)\n\
         ()\nrep 1\n(+)\nmap\nf32.sqrt\n\\x -> x + 1i64",
    );
}

#[test]
fn sizes_read_off_products() {
    // `unflatten` takes its sizes from a product `n * m`; without one it
    // says how to give it. A negative integer exponent is an error.
    check(
        "sizes_products",
        "unflatten ([1, 2, 3, 4, 5, 6] :> [2 * 3]i32)\nunflatten (iota (3 * 2))\n\
         unflatten [1, 2, 3, 4]\nunflatten_3d (iota 8 :> [2 * 2 * 2]i64)\n\
         def dims [n] [m] (_: [n * m]i32) = (n, m)\ndims ([1, 2, 3, 4, 5, 6] :> [3 * 2]i32)\n\
         dims [1, 2]\n2 ** -1\n2.0 ** -1.0",
    );
}

#[test]
fn sizes_read_off_sums() {
    // `split` takes its sizes from a sum `n + m`: a coercion, `++`, and
    // through a derivative; without one it says where they come from.
    check(
        "sizes_sums",
        "split ([1, 2, 3] :> [1 + 2]i32)\nsplit (iota 2 ++ iota 1)\n\
         split (jvp (map (* 2.0)) ([1.0] ++ [2.0, 3.0]) [1.0, 1.0, 1.0])\n\
         jvp unflatten (iota (2 * 2) |> map f64.i64) (replicate 4 1.0)\nsplit [1, 2, 3]",
    );
}

#[test]
fn definitions_and_calls() {
    check(
        "definitions",
        "def double x = x * 2\ndouble 21\ndouble [1, 2, 3]\n:type double\n\
         def add (x: i64) (y: i64) = x + y\nadd 1 2\nadd 1 [10, 20]\n\
         entry main (xs: []f64) = f64.sum xs\nmain [1, 2, 3.5]\n\
         def pi2 = f64.pi * 2\npi2",
    );
}

#[test]
fn redefinition_shadows() {
    check(
        "shadowing",
        "def f (x: i32) = x + 1\ndef g (x: i32) = f x * 10\ng 1\n\
         def f (x: i32) = x + 100\nf 1\ng 1\nlet x = 1\nlet x = x + 1\nx\n\
         def x = true\nx\n:browse",
    );
}

#[test]
fn let_binds_a_value_once() {
    check(
        "let_value",
        "let xs = iota 5\nxs\nlet ys = xs * 2\nys\n:type ys\n:elab ys\n\
         let n : i64 = 3\nn + 1\nlet m = [1, 2] : []u8\nm\n:browse",
    );
}

#[test]
fn let_patterns_bind_every_name() {
    check(
        "let_patterns",
        "let (a, b) = (1, [2.0, 3.0])\na\nb\n:type b\n\
         let {x, y = why} = {x = 1i8, y = false}\nx\nwhy\n\
         let (p: f32, _) = (1, 2)\np\nlet (u, (v, w)) = (1, (2, 3))\nu + v + w\n\
         let (f, k) = (f32.sqrt, 1)\nk\n:browse",
    );
}

#[test]
fn let_of_a_function_defines_it() {
    check(
        "let_function",
        "let double x = x * 2i64\ndouble 4\nlet inc = \\(x: i32) -> x + 1\ninc 1\n\
         :type inc\n:elab inc\nlet compose = (\\(x: i32) -> x) >-> inc\ncompose 5",
    );
}

#[test]
fn type_declarations() {
    check(
        "type_declarations",
        "type point = {x: f64, y: f64}\ndef origin : point = {x = 0, y = 0}\norigin\n\
         def norm (p: point) = f64.sqrt (p.x * p.x + p.y * p.y)\nnorm {x = 3, y = 4}\n\
         type~ vec 't = []t\ndef total (v: vec i32) = i32.sum v\ntotal [1, 2, 3]\n:browse",
    );
}

#[test]
fn incomplete_lines_continue() {
    check(
        "continuation",
        "def f (x: i32) =\n  x + 1\nf 1\n[1,\n 2,\n 3]\n1 +\n  2\n\
         if true\n  then 1\n  else 2\nlet y =\n  5 in\n  y * 2\nmap (\\x ->\n  x * 2) [1, 2]\n\
         (1, 2\n)\n:type [1,\n 2]",
    );
}

#[test]
fn an_empty_line_ends_a_continuation() {
    check("continuation_blank", "[1, 2,\n\n1 +\n\n3");
}

#[test]
fn blocks_for_pasting() {
    check(
        "block",
        ":{\ndef sq (x: f64) = x * x\n\ndef cube (x: f64) =\n  x * sq x\n:}\ncube 3\n\
         :{\n[1, 2, 3]\n  |> map (* 2)\n:}\n:{\n:}",
    );
}

#[test]
fn a_block_with_an_error_defines_nothing() {
    check(
        "block_error",
        ":{\ndef a = 1\nlet b = 2\ndef c = a + true\n:}\na\nb\n:browse",
    );
}

#[test]
fn parse_errors() {
    check(
        "parse_errors",
        "1 +* 2\ndef = 3\n(1, 2))\n[1, 2] ++ ]\n\"a string\"\nmatch x",
    );
}

#[test]
fn type_errors() {
    check(
        "type_errors",
        "1 + true\nundefined_name\nif true then 1 else false\n(1, 2).3\n\
         def f (x: i32) : bool = x",
    );
}

/// Issue 17, point 5: a value where a function needs an array's length
/// is a type error at the value, not a run-time error; a rep mapped with
/// an array, or given to a parameter whose length is not needed, is fine.
#[test]
fn lengths_of_non_arrays() {
    check(
        "lengths_of_non_arrays",
        "length 3\nf64.sum 3\n3 |> length\n[1, 2] ++ 3\n\
         def total (xs: []i32) = i32.sum xs\ntotal 5\n\
         def first (xs: []i32) = xs[0]\nfirst 7\n\
         def add (xs: []i32) (ys: []i32) = map2 (+) xs ys\nadd [1, 2] 5\n[1, 2, 3] + 1",
    );
}

#[test]
fn ambiguity_errors() {
    check(
        "ambiguity",
        "let xss = [[1f32, 2], [3, 4]]\ni64.product (length xss)\n\
         i64.product (map length xss)",
    );
}

#[test]
fn run_time_error_out_of_bounds() {
    check(
        "runtime_out_of_bounds",
        "let xs = [1, 2, 3]\nxs[3]\nxs[-1]\nxs[1:5]\nmap (\\i -> xs[i]) [0, 7]\nxs[2]",
    );
}

#[test]
fn run_time_error_division_by_zero() {
    check(
        "runtime_division_by_zero",
        "1 / 0\n7 % 0i64\nmap (100 /) [1, 0, 2]\n1.0 / 0.0\n10 / 3",
    );
}

#[test]
fn run_time_error_shape_mismatch() {
    check(
        "runtime_shape_mismatch",
        // (Sizes known when the line is checked differ then: a type error.
        // Those of slices are checked when it runs.)
        "[1, 2, 3] + [1, 2]\n[1, 2, 3] + [0, 1, 2][1:]\n[[1, 2], [3]]\nzip [1, 2] [0, 3][1:]\nunflatten ([1, 2, 3] :> [2 * 2]i32)",
    );
}

#[test]
fn sizes_in_types_and_size_errors() {
    check(
        "sizes",
        "def dot [n] (a: [n]f64) (b: [n]f64) = f64.sum (a * b)
:type dot
dot [1,2] [1,2,3]
def f [n] (xs: [n]f64) = xs
:type f
:type iota
:type filter
:type flatten
def g (xs: []i32) (ys: []i32) = map2 (+) xs ys
:type g
def h (n: i64) = replicate n 0i32
:type h
def k [n] (xs: [n]i32) : [n + 1]i32 = xs ++ [0]
:type k
def bad [n] (xs: [n]i32) : [n]i32 = xs ++ xs
def grow (xs: []i32) = loop ys = xs for _i < 3 do ys ++ ys
:type grow
def positives (xs: []i32) = length (filter (> 0) xs)
:type positives
def ragged (ns: []i64) = map (\\n -> iota n) ns
1..2..<3 : [3]i64
def ten (xs: []i32) (ys: []i32) : [10]i32 = xs ++ ys
type~ sum = #foo ([]i32) | #bar ([]i32)
def sums (xs: []i32) (ys: []i32) = [#foo xs, #bar ys] : []sum",
    );
}

/// A run-time error lists the calls it happened inside, innermost first:
/// inlined definitions, a local function, a recursion (folded into one
/// line per call site), and a deep one (the middle left out).
#[test]
fn run_time_error_call_stack() {
    check(
        "runtime_call_stack",
        "def get (xs: []i32) (i: i64) = xs[i]\n\
         def pair (xs: []i32) (i: i64) = (get xs i, get xs (i + 1))\n\
         pair [1, 2] 1\n\
         let twice k = pair [1, 2, 3] k in twice 2\n\
         def count (n: i64) : i64 = if n == 0 then [0][1] else count (n - 1)\n\
         count 20\n\
         def zig (n: i64) : i64 = if n == 0 then 1 / 0 else if n % 2 == 0 then zig (n - 1) else zig (n - 1)\n\
         zig 30",
    );
}

#[test]
fn definitions_survive_every_kind_of_error() {
    check(
        "state_kept",
        "def f (x: i32) = x * 3\nlet xs = [1, 2]\n1 +* 2\nf true\n\
         i64.product (length [[1, 2]])\nxs[9]\nf 1 / 0\n[1] + [1, 2]\n\
         def f (x: i32) = x + true\nlet xs = xs[5]\nlet (a, b) = (1, 2 / 0)\n\
         f 2\nxs\n:browse",
    );
}

#[test]
fn type_command() {
    check(
        "command_type",
        ":type 1\n:type 1.5\n:type [1, 2, 3] + 1\n:t map\n:t head\n:type (+)\n\
         :type \\x -> x + 1\n:type (1, {a = true})\n:type f32.sum\n\
         let xs = iota 3\n:t xs\n:type\n:type 1 +* 2\n:type 1 + true",
    );
}

/// A value bound at the prompt has its arrays' sizes, as in Futhark's
/// REPL: `:type` shows them, the size check compares them (`dot xs ys`
/// is refused before it runs), and a `rep` takes its length from them.
#[test]
fn values_at_the_prompt_have_sizes() {
    check(
        "value_sizes",
        "let xs = [1f32, 2f32]\nlet ys = [1f32, 2f32, 3f32]\n:type xs\n:type xs ++ ys\n\
         :type filter (> 1) ys\nlet (a, b) = (ys, [[1, 2, 3]])\n:type b\n\
         def dot [n] (u: [n]f32) (v: [n]f32) = f32.sum (u * v)\ndot xs ys\ndot ys ys\n\
         xs * transpose (rep ys)",
    );
}

#[test]
fn elab_command() {
    check(
        "command_elab",
        "def f (xss: [][]f32) = xss + 1\n:elab f\n:e f\n\
         :elab map2 (+) [1, 2] [3, 4]\n:elab f32.sqrt [[1, 4], [9, 16]]\n\
         let ys = [1, 2] * 2\n:elab ys\n:elab head\n:elab map\n:elab\n:elab nope",
    );
}

#[test]
fn browse_command() {
    check(
        "command_browse",
        ":browse\ndef one = 1\ntype t = i32\nlet xs = [one]\ndef id (x: t) = x\n\
         :browse\n:b\n:browse u8\n:browse nonsense",
    );
}

#[test]
fn browse_prelude() {
    check("command_browse_prelude", ":browse prelude");
}

#[test]
fn browse_all_ends_with_the_user_definitions() {
    let out = transcript("def mine (x: i32) = x\n:browse all");
    let last = out.lines().rev().nth(1).unwrap_or("");
    assert_eq!(last, "mine : i32 -> i32", "{out}");
    assert!(out.contains("\nmap : (a -> b) -> [n]a -> [n]b\n"), "{out}");
    assert!(out.contains("\nhead : [n]a -> a\n"), "{out}");
}

#[test]
fn time_command() {
    let out = transcript(":time 1 + 1\n:ti f64.sum (map f64.i64 (iota 1000))\n:time\n:time 1 / 0");
    let timing = regex::Regex::new(
        r"time: [0-9.]+ m?s \(type check [0-9.]+ m?s, compile [0-9.]+ m?s, run [0-9.]+ m?s\)",
    )
    .expect("a valid regex");
    assert_eq!(timing.find_iter(&out).count(), 2, "{out}");
    snapshot("command_time", &timing.replace_all(&out, "time: <elided>"));
}

#[test]
fn help_command() {
    check("command_help", ":help\n:help load\n:h :t\n:help nonsense");
}

#[test]
fn quit_command_stops_the_input() {
    check("command_quit", "1\n:quit\n2");
    check("command_quit_prefix", ":q now\n:q\n3");
}

#[test]
fn command_errors() {
    check(
        "command_errors",
        ":foo\n:\n:reload\n:load\n:reload now\n:time 1 +* 2\n:browse f128",
    );
}

#[test]
fn comments_and_blank_lines_are_quiet() {
    check(
        "comments",
        "-- a comment\n\n   \n1 -- trailing comment\n-- |doc\ndef x = 2\nx",
    );
}

#[test]
fn load_a_file() {
    let dir = scratch("load_a_file");
    std::fs::write(
        dir.join("geometry.fut"),
        "-- | Squares.\ndef sq (x: f64) = x * x\n\ntype vec = [3]f64\n\n\
         def norm (v: vec) = f64.sqrt (f64.sum (sq v))\n",
    )
    .expect("write");
    check_in(
        "load_file",
        &dir,
        ":load <dir>/geometry.fut\nnorm [3, 4, 0]\nsq [1, 2]\n:browse\n:elab norm\n:l <dir>/geometry.fut",
    );
}

#[test]
fn load_errors_keep_the_previous_state() {
    let dir = scratch("load_errors");
    std::fs::write(dir.join("good.fut"), "def sq (x: f64) = x * x\n").expect("write");
    std::fs::write(
        dir.join("bad_type.fut"),
        "def sq (x: f64) = x * x\ndef broken = sq true\n",
    )
    .expect("write");
    std::fs::write(
        dir.join("bad_parse.fut"),
        "def sq (x: f64) = x *\n\ndef y = (1\n",
    )
    .expect("write");
    check_in(
        "load_errors",
        &dir,
        ":load <dir>/good.fut\nlet mine = 7\n:load <dir>/bad_type.fut\nsq 3\nmine\n\
         :load <dir>/bad_parse.fut\n:load <dir>/missing.fut\nsq 4\nmine\n:browse",
    );
}

#[test]
fn reload_picks_up_edits_and_survives_errors() {
    let dir = scratch("reload");
    let file = dir.join("prog.fut");
    let mut repl = Repl::new(false);
    let mut out = String::new();
    let path = file.display().to_string();
    let run = |repl: &mut Repl, script: &str, out: &mut String| {
        out.push_str(&transcript_in(repl, &script.replace("<file>", &path)));
    };
    std::fs::write(&file, "def f (x: i32) = x + 1\ndef old = 0\n").expect("write");
    run(&mut repl, ":load <file>\nf 1\nold\nlet here = 5", &mut out);
    std::fs::write(&file, "def f (x: i32) = x + true\n").expect("write");
    run(&mut repl, ":reload\nf 1\nold\nhere", &mut out);
    std::fs::write(&file, "def f (x: i32) = x + 10\n").expect("write");
    run(&mut repl, ":r\nf 1\nold\nhere", &mut out);
    snapshot("reload", &out.replace(&dir.display().to_string(), "<dir>"));
}

#[test]
fn load_replaces_the_loaded_file() {
    let dir = scratch("load_replaces");
    std::fs::write(dir.join("a.fut"), "def only_in_a = 1\ndef both = 1\n").expect("write");
    std::fs::write(dir.join("b.fut"), "def both = 2\n").expect("write");
    check_in(
        "load_replaces",
        &dir,
        ":load <dir>/a.fut\nonly_in_a + both\n:load <dir>/b.fut\nboth\nonly_in_a\n:browse",
    );
}

#[test]
fn status_and_prompts() {
    let mut repl = Repl::new(false);
    let mut out = String::new();
    assert_eq!(repl.prompt(), urchin::repl::PROMPT);
    assert_eq!(repl.feed("def f (x: i32) =", &mut out), Status::More);
    assert_eq!(repl.prompt(), urchin::repl::CONTINUATION_PROMPT);
    repl.cancel();
    assert_eq!(repl.prompt(), urchin::repl::PROMPT);
    assert_eq!(repl.feed(":{", &mut out), Status::More);
    assert_eq!(repl.feed("1 +", &mut out), Status::More);
    assert_eq!(repl.feed("", &mut out), Status::More);
    assert_eq!(repl.feed("2", &mut out), Status::More);
    assert_eq!(repl.feed(":}", &mut out), Status::Ready);
    assert_eq!(out, "3\n");
    assert_eq!(
        repl.feed("def g (x: i32) =\n  x * 2\ng 4", &mut out),
        Status::Ready
    );
    assert_eq!(out, "3\n8\n");
    assert_eq!(repl.feed(":quit", &mut out), Status::Quit);
    assert_eq!(repl.failures(), 0);
}

#[test]
fn an_unfinished_input_at_the_end_is_reported() {
    let mut repl = Repl::new(false);
    let mut out = String::new();
    assert_eq!(repl.feed("(1 +", &mut out), Status::More);
    repl.finish(&mut out);
    assert!(out.contains("parse error"), "{out}");
    assert_eq!(repl.failures(), 1);
}

#[test]
fn names_for_completion() {
    let mut repl = Repl::new(false);
    let mut out = String::new();
    repl.feed("def my_function (x: i32) = x", &mut out);
    repl.feed("let my_value = 1", &mut out);
    let names = repl.names();
    for n in [
        "my_function",
        "my_value",
        "map",
        "map2",
        "head",
        "f32.sqrt",
        "f32.sum",
        "i64.i32",
        "loop",
    ] {
        assert!(names.iter().any(|m| m == n), "{n} missing");
    }
}

/// Evaluates `input` while another thread sets the interrupt flag after
/// a moment; the evaluation must stop soon after.
fn interrupts(input: &str) {
    let mut repl = Repl::new(false);
    let flag = repl.interrupt_flag();
    let setter = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        flag.store(true, Ordering::SeqCst);
        Instant::now()
    });
    let mut out = String::new();
    assert_eq!(repl.feed(input, &mut out), Status::Ready);
    let stopped = Instant::now();
    let set = setter.join().expect("the setter thread");
    assert_eq!(out, "interrupted\n");
    assert!(
        stopped.duration_since(set) < Duration::from_millis(500),
        "took {:?} to stop",
        stopped.duration_since(set)
    );
    // The REPL goes on, with a fresh flag.
    out.clear();
    repl.feed("1 + 1", &mut out);
    assert_eq!(out, "2\n");
}

#[test]
fn a_long_loop_can_be_interrupted() {
    interrupts("loop i = 0i64 while i >= 0 do i + 1");
}

#[test]
fn a_big_map_can_be_interrupted() {
    interrupts(
        "i64.sum (map (\\n -> loop s = 0i64 for i < n do s + i) (replicate 100000 100000000i64))",
    );
}

#[test]
fn step_commands() {
    check(
        "step_commands",
        ":step f64.sqrt [1.0, 4.0, 9.0]\n\
         :step -n 2 1 + 2 * 3 - 4\n\
         :step 1 + 2 * 3\n\
         :steps i32.sum (map i32.i64 (iota 10))\n\
         :step\n\
         :steps 1 +\n",
    );
}

/// Issue 17, point 7: `jvp` steps through dual numbers; reverse mode
/// stops with advice.
#[test]
fn step_into_jvp() {
    check(
        "step_jvp",
        ":step jvp (\\x -> x * x) 3.0 1.0\n\
         :step jvp (\\x -> jvp (\\y -> x * y * y) x 1.0) 2.0 1.0\n\
         :steps jvp (\\xs -> f64.sum (xs * xs)) [1.0, 2.0] [1.0, 0.0]\n\
         :step vjp (\\x -> x * x) 3.0 1.0\n",
    );
}

#[test]
fn grad_values() {
    check(
        "grad_values",
        "def f (x: f64) = x * x * 3.0\n\
         :grad f 2.0\n\
         :grad f64.sum [1.0, 2.0]\n\
         def h (x: f64) (y: f64) = x * f64.sin y\n\
         :grad h 2.0 0.0\n\
         :grad (\\(xs: []f64) -> f64.sum (xs * xs)) [1.0, -2.0, 3.0]\n\
         let xs = [0.5, 1.5]\n\
         :grad (\\(v: []f64) -> f64.sum (v * v * xs)) xs\n\
         :grad (\\x -> x * x) 3\n\
         :grad (\\(x: f32) -> f32.exp x) 0f32\n\
         :grad (\\(a, b) -> a / b) (1.0, 4.0)\n\
         :grad (\\x -> f64.sum (x * x)) [1.0, -2.0, 3.0]\n",
    );
}

/// A function ambiguous on its own (`x` an array or a number) is read at
/// its arguments' types, for the gradient and for the program shown.
#[test]
fn grad_of_a_function_ambiguous_until_applied() {
    let out = transcript(":grad --explain (\\x -> f64.sum (x * x)) [1.0, 2.0]\n");
    assert!(out.contains("\n[2.0, 4.0]\n"), "{out}");
    assert!(out.contains("[failures: 0]"), "{out}");
    assert!(!out.contains("ambiguous"), "{out}");
    assert!(out.contains("x: []f64"), "{out}");
}

#[test]
fn grad_errors() {
    check(
        "grad_errors",
        "def f (x: f64) = x * x\n\
         :grad f\n\
         :grad (\\(x: f64) -> [x, x]) 3.0\n\
         :grad (\\(n: i32) -> n * n) 3\n\
         :grad (\\x (n: i32) -> x * f64.i32 n) 3.0 2\n\
         :grad --bogus f 1.0\n\
         :grad\n\
         :grad g 1.0\n\
         :vjp 3.0\n\
         :vjp\n\
         :grad f 2.0\n",
    );
}

#[test]
fn grad_stats_report_time_and_memory() {
    let out = transcript(
        "def sumsq (xs: []f64) = f64.sum (map (\\x -> x * x) xs)\n\
         :grad --stats sumsq (map f64.i64 (iota 100))\n",
    );
    let lines: Vec<&str> = out.lines().collect();
    let function = lines.iter().find(|l| l.starts_with("function: run "));
    let gradient = lines.iter().find(|l| l.starts_with("gradient: run "));
    assert!(
        function.is_some_and(|l| l.contains("peak live arrays")),
        "{out}"
    );
    assert!(
        gradient
            .is_some_and(|l| l.contains("× the function") && l.contains("loop checkpoints 0 B")),
        "{out}"
    );
}

#[test]
fn grad_stats_count_loop_checkpoints() {
    let out = transcript(
        "def pow (x: f64) = loop acc = 1.0 for i < 1000 do acc * x\n\
         :grad --stats pow 1.0\n",
    );
    // 1000 iterations keep one f64 each.
    assert!(out.contains("loop checkpoints 7.8 KiB"), "{out}");
}

/// The thesis's program P (Figure 3.1): a straight-line body, one forward
/// and one return sweep.
#[test]
fn vjp_figure_3_1() {
    check(
        "vjp_figure_3_1",
        "def P (x0: f64) (x1: f64) =\n  \
           let v0 = f64.sin x0\n  \
           let v1 = x1 * v0\n  \
           let v2 = v0 * v1\n  \
           let y0 = v1 + v2\n  \
           let y1 = f64.cos v2\n  \
           in [y0, y1]\n\
         :vjp P\n\
         :jvp P\n",
    );
}

/// The perfect nest of Figure 3.8: after simplification no scope
/// re-executes anything (no forward sweep inside the maps or the `if`).
#[test]
fn vjp_figure_3_8_perfect_nest() {
    check(
        "vjp_figure_3_8",
        "def nest (cs: []bool) (ass: [][]f64) =\n  \
           map2 (\\c as -> if c then as else map (\\a -> a * a) as) cs ass\n\
         :vjp (\\ass -> nest [true, false] ass)\n",
    );
}

#[test]
fn vjp_loop_and_if() {
    check(
        "vjp_loop_and_if",
        "def pow5 (x: f64) = loop acc = 1.0 for i < 5 do acc * x\n\
         :vjp pow5\n\
         :grad pow5 2.0\n\
         def smooth (x: f64) = if x > 0.0 then x * x else f64.sin x\n\
         :vjp smooth\n\
         :grad --explain smooth (-1.0)\n",
    );
}

/// Sum types at the prompt: values print as Futhark writes them, `match`
/// takes them apart, and a `match` that misses a case is a type error
/// naming the value it misses.
#[test]
fn sum_types() {
    check(
        "sum_types",
        "type shape = #circle f64 | #rect f64 f64 | #point\n\
         [#circle 1.5, #point, #rect 2 3] : []shape\n\
         :type #some 1\n\
         def area (s: shape) = match s case #circle r -> 3 * r * r case #rect w h -> w * h case #point -> 0\n\
         map area [#circle 1, #rect 2 3]\n\
         def bad (s: shape) = match s case #circle r -> r case #point -> 0\n\
         (#some (#none : #none | #some i32), #rect 1 2 == (#rect 1 2 : shape))\n",
    );
}

#[test]
fn it_is_the_last_value() {
    check(
        "it",
        "2 + 3\nit\nit * 2\n:type it\n:elab it\n[1, 2] + it\n\
         \\x -> x + 1\nit 4\n1 / 0\nit\n\
         let xss = [[1f32, 2], [3, 4]]\ni64.product (length xss)",
    );
}

#[test]
fn big_values_are_summarised() {
    check(
        "summary",
        "iota 1000000\nit[999999]\niota 1001\n\
         tabulate_2d 100 100 (\\i j -> i * 100 + j)\n\
         (iota 2000, 1.5, {a = map (\\i -> (i, i % 2 == 0)) (iota 3000)})\n\
         :set\n:set print full\nmap (* 2) (iota 1100) |> length\niota 20\n\
         :set print summary\n:set print all",
    );
}

#[test]
fn plots_of_a_function_and_its_derivatives() {
    check(
        "plot_function",
        "def f (x: f64) = x * x - 1\n:plot f -2 2\n:plot --grad f -2 2\n\
         :plot --vjp f32.sin 0 6\n:plot --grad --vjp (\\x -> f64.exp (-x * x)) -3 3",
    );
}

#[test]
fn info_command() {
    let dir = scratch("info");
    std::fs::write(
        dir.join("geometry.fut"),
        "-- | The square of a number.\n-- Works on any `f64`.\ndef sq (x: f64) = x * x\n\ntype vec = [3]f64\n",
    )
    .expect("write geometry.fut");
    check_in(
        "info",
        &dir,
        ":load <dir>/geometry.fut\n:info sq\n:i vec\nlet y = 1 + 2\n:info y\n\
         :info map\n:info f64.sqrt\n:info nope\n:info 1 + 2\n:info",
    );
}

#[test]
fn plots_of_arrays_points_and_images() {
    check(
        "plot_values",
        ":plot [1.0, 3, 2, 5, 4]\n:plot2d ([1.0, 2, 3, 4], [2.0, 1, 3, 2.5])\n\
         :plot2d {up = ([0.0, 1, 2], [0.0, 1, 2]), down = ([0.0, 1, 2], [2.0, 1, 0])}\n\
         :img [[0.0, 0.5, 1], [1, 0.5, 0]]\n:img [[0xff0000u32, 0x00ff00], [0x0000ff, 0xffffff]]",
    );
}

/// Options may follow the expression too (issue 38's
/// `:plot (\x -> x * x) -1.0 1.0 --grad`).
#[test]
fn plot_options_after_the_expression() {
    check(
        "plot_trailing_options",
        ":plot (\\x -> x * x) -1.0 1.0 --grad\n:plot f64.sin 0 1 --frob\n:plot f64.sin --out\n\
         :plot2d ([1.0, 2], [3.0, 4]) --grad",
    );
}

#[test]
fn plot_errors() {
    check(
        "plot_errors",
        ":plot\n:plot (\\(x: i64) -> x) 0 1\n:plot2d [1.0, 2]\n:img [1.0, 2]\n\
         :plot f64.sin 3 1\n:plot --out a.gif f64.sin\n:plot --frob f64.sin",
    );
}

#[test]
fn shell_commands() {
    check(
        "shell",
        ":! echo hello\n:!echo no space\n:! echo to stderr >&2\n:! exit 3\n:!",
    );
}

#[test]
fn integer_literals_must_fit_their_type() {
    check(
        "literal_range",
        "10000000000\n10000000000i64\nlet x: i64 = 10000000000 in x\n300u8\n\
         -128i8\n-129i8\n-1u8\nmatch 5u8 case 300 -> 1 case _ -> 2\n\
         def f x = x + 300\nf 1i32\nf 1u8",
    );
}

#[test]
fn derivatives_keep_source_names() {
    check(
        "derivative_names",
        ":vjp (\\y -> y * y)\n:jvp (\\x -> x * x)\n:vjp (\\a b -> a * b)\n\
         def sq (x: f64) = x * x\n:vjp (\\a -> sq a + a)\n\
         def h (x: f64) (y: f64) = x / y\n:vjp h\n:jvp h\n:grad --explain h 3.0 2.0\n\
         :jvp (\\x -> jvp (\\y -> y ** 3.0) x 1.0)\n:jvp (\\x -> x ** 1.0)\n\
         def seed (x: f64) = x + 1\n:vjp (\\x -> seed x * x)",
    );
}

/// A parameter written as a tuple pattern shows as its leaves' names.
#[test]
fn derivative_names_from_tuple_patterns() {
    check(
        "derivative_tuple_names",
        "def f (x: f64, (y: f64, z: f64)) = x * y + z\n:vjp f\n:jvp f\n\
         :vjp (\\(a, b) -> a / b)",
    );
}

#[test]
fn messages_name_types_as_written() {
    check(
        "type_names",
        "1 2\nmap (+1) 3\n:grad (\\x -> 5.0) 1.0\nlength 3\nf64.sqrt 2.0 3.0\n\
         (\\x -> x + 1) true\nlet xs = [1, 2] in xs 0",
    );
}

#[test]
fn types_show_size_names() {
    check(
        "sizes_shown",
        "def scale [n] (a: f64) (xs: [n]f64) : [n]f64 = a * xs\n\
         def dot [n] (xs: [n]f64) (ys: [n]f64) = f64.sum (xs * ys)\n\
         def outer [n][m] (xs: [n]f64) (ys: [m]f64) : [n][m]f64 = map (\\x -> x * ys) xs\n\
         type vec = [3]f64\ndef norm (v: vec) = f64.sqrt (dot v v)\n\
         :type scale\n:t dot\n:info outer\n:browse\n:type scale 2.0",
    );
}

/// A front end that cannot stop (a notebook, a literate document: the
/// engine without a console) warns that it ignores `#[break]`.
#[test]
fn breakpoints_are_ignored_with_a_warning_without_a_console() {
    check(
        "breakpoints",
        "def f (x: i32) = #[break] x + 1\nf 2\n#[break] f 3\n#[trace] f 4",
    );
}

/// A script read through a console, as piped standard input is: the lines
/// typed at a breakpoint's prompt come from the same script.
struct Script {
    lines: std::collections::VecDeque<String>,
    text: String,
}

impl urchin::repl::Sink for Script {
    fn out(&mut self, text: &str) {
        self.text.push_str(text);
    }
    fn err(&mut self, text: &str) {
        self.text.push_str(text);
    }
}

impl urchin::repl::Console for Script {
    fn read_line(&mut self, prompt: &str) -> urchin::repl::Line {
        match self.lines.pop_front() {
            Some(l) => {
                self.text.push_str(&format!("{prompt}{l}\n"));
                urchin::repl::Line::Text(l)
            }
            None => urchin::repl::Line::Eof,
        }
    }
}

fn console_transcript(script: &str) -> String {
    use std::cell::RefCell;
    use std::rc::Rc;
    use urchin::repl::{Console, Line, breakpoints::Shared};
    let console = Rc::new(RefCell::new(Script {
        lines: script.lines().map(str::to_string).collect(),
        text: String::new(),
    }));
    let mut repl = Repl::new(false);
    repl.attach_console(console.clone());
    let mut sink = Shared(console.clone());
    loop {
        let line = console.borrow_mut().read_line(repl.prompt());
        let Line::Text(line) = line else { break };
        if repl.feed(&line, &mut sink) == Status::Quit {
            break;
        }
    }
    repl.finish(&mut sink);
    let failures = repl.failures();
    let mut text = console.borrow().text.clone();
    text.push_str(&format!("[failures: {failures}]\n"));
    text
}

/// `#[break]` stops: where, the call stack and the variables are shown,
/// expressions see them, `:frame` moves to a caller, `:continue` goes on.
#[test]
fn breakpoints_stop_and_continue() {
    snapshot(
        "breakpoints_stop",
        &console_transcript(
            "def f (x: i32) = let y = x * 2 in #[break] y + 1\n\
             def g (a: i32) = f (a + 1) * 10\n\
             g 2\n\
             x + y\n\
             :backtrace\n\
             :frame 1\n\
             a * 100\n\
             :frame 7\n\
             :quit\n\
             :continue\n\
             it + 1",
        ),
    );
}

/// Inside a `map` the breakpoint stops for each element; `:unbreak` stops
/// there no more, `:abort` abandons the input (which fails, leaving `it`
/// as it was), and Ctrl-D (the end of the input) goes on.
#[test]
fn breakpoints_in_maps_unbreak_and_abort() {
    snapshot(
        "breakpoints_map",
        &console_transcript(
            "map (\\i -> #[break] i * i) [1, 2, 3]\n\
             i\n\
             :c\n\
             :unbreak\n\
             def h (xs: []f64) = #[break] f64.sum xs\n\
             h [1, 2]\n\
             :help\n\
             :abort\n\
             it\n\
             h [3]",
        ),
    );
}

/// `:vjp` and `:jvp` print programs the parser reads back, accumulators
/// (`withacc`, `upd`), loops with checkpoints and sweeps included.
#[test]
fn derivative_programs_parse_back() {
    let functions = [
        "(\\(xs: []f64) (is: []i64) -> f64.sum (map (\\i -> xs[i] * xs[i]) is))",
        "(\\(xs: []f64) -> hist (+) 0 3 [0, 1, 1] xs)",
        "(\\(xs: []f64) -> scatter (copy xs) [0, 2] [xs[1], xs[0]])",
        "(\\(x: f64) -> loop y = x for _i < 3 do y * f64.sin y)",
        "(\\(xs: []f64) -> (reduce (*) 1 xs, scan (+) 0 xs))",
        "(\\(x: f64) -> if x > 0 then x * x else -x)",
        "(\\(x: f64) -> jvp (\\y -> y ** 3.0) x 1.0)",
        "(\\(xs: [][]f64) -> map (\\r -> f64.sum (map (\\v -> v * r[0]) r)) xs)",
    ];
    for f in functions {
        for cmd in [":vjp", ":jvp"] {
            let mut repl = Repl::new(false);
            let mut out = String::new();
            repl.feed(&format!("{cmd} {f}"), &mut out);
            assert_eq!(repl.failures(), 0, "{cmd} {f} failed:\n{out}");
            if let Err(ds) = urchin_syntax::parse_program(&out, Default::default()) {
                panic!("{cmd} {f} prints a program that does not parse:\n{out}\n{ds:?}");
            }
        }
    }
}
