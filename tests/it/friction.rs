//! Everyday friction found by trying urchin as a new user would (issue
//! 43, items 10–30; items 1–9, which ran away, are in `robust.rs`): each
//! test is one item's input, and what urchin now says or computes.

use std::process::{Command, Output, Stdio};
use urchin::repl::Repl;

/// The REPL's output (results and errors, in order) for these lines.
fn repl(lines: &str) -> String {
    let mut r = Repl::new(false);
    let mut out = String::new();
    r.feed(lines, &mut out);
    r.finish(&mut out);
    out
}

/// Runs the `urchin` binary.
fn urchin(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_urchin"))
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .expect("urchin runs")
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// A scratch file under Cargo's temporary directory for integration
/// tests.
fn file(name: &str, contents: &[u8]) -> String {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("friction-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("make the directory");
    let p = dir.join(name);
    std::fs::write(&p, contents).expect("write the file");
    p.to_string_lossy().into_owned()
}

/// Item 10: a `scan` over no rows has rows of its neutral element's
/// shape (it gave `empty([0][0]f64)`), with both engines.
#[test]
fn a_scan_of_no_rows_keeps_the_row_shape() {
    let p = file(
        "scan.fut",
        b"entry main (xss: [][3]f64) = scan (map2 (+)) (replicate 3 0) xss\n",
    );
    let (out, err) = text(&urchin(&["run", &p, "empty([0][3]f64)"]));
    assert_eq!(out, "empty([0][3]f64)\n", "{err}");
    let (out, err) = text(&urchin(&["step", "--count", &p, "empty([0][3]f64)"]));
    assert!(out.ends_with("empty([0][3]f64)\n"), "{out}{err}");
}

/// Item 11: reverse mode of a loop whose array changes size says it is
/// reverse mode's limit and what to do instead (it pointed at the user's
/// `++` with an index out of bounds); forward mode works.
#[test]
fn a_loop_that_changes_size_under_vjp_says_to_use_jvp() {
    let out = repl(
        "vjp (\\xs -> f64.sum (loop ys = xs for _i < 2 do ys ++ ys)) [1.0, 2.0] 1.0\n\
         jvp (\\xs -> f64.sum (loop ys = xs for _i < 2 do ys ++ ys)) [1.0, 2.0] [1.0, 0.0]\n",
    );
    assert!(out.contains("cannot match shape [2]"), "{out}");
    assert!(out.contains("differentiate this loop with `jvp`"), "{out}");
    assert!(out.ends_with("4.0\n"), "{out}");
}

/// Item 12: reverse mode of `reduce_by_index` with an operator that is not
/// element-wise on rows and reads a differentiated variable (docs/AD.md's
/// `hmm`) agrees with forward mode (it was refused).
#[test]
fn a_matrix_histogram_differentiates_in_reverse() {
    let out = repl(
        "def mm (a: [2][2]f64) (b: [2][2]f64) : [2][2]f64 = map (\\r -> map (\\c -> f64.sum (map2 (*) r c)) (transpose b)) a\n\
         def hmm (c: f64) (ms: [][2][2]f64) = f64.sum (flatten (flatten (reduce_by_index (replicate 2 [[1, -c], [0, 1]]) (\\a b -> mm (mm a [[1, c], [0, 1]]) b) [[1, -c], [0, 1]] [0, 1, 0] ms)))\n\
         def ms = [[[1.0, 2.0], [3.0, 4.0]], [[0.5, 0.0], [1.0, 1.0]], [[0.0, 1.0], [-1.0, 0.5]]]\n\
         jvp (\\c -> hmm c ms) 0.5 1.0\n\
         vjp (\\c -> hmm c ms) 0.5 1.0\n\
         (vjp (\\(c, ms) -> hmm c ms) (0.5, ms) 1.0).0\n",
    );
    let values: Vec<f64> = out
        .lines()
        .map(|l| l.parse().unwrap_or_else(|_| panic!("{out}")))
        .collect();
    assert_eq!(values.len(), 3, "{out}");
    for v in &values {
        assert!((v - values[0]).abs() < 1e-12, "{out}");
    }
    assert!((values[0] + 2.0).abs() < 1e-12, "{out}");
}

/// Item 13: only a flag sets `:step`'s count; `:step 1 + 2 * 3` steps the
/// expression (it read `1` as the count).
#[test]
fn step_takes_its_count_from_a_flag() {
    let out = repl(":step 1 + 2 * 3\n:step -n 1 1 + 2 * 3\n");
    assert!(out.contains("  2  ⟨1 + 6⟩  (δ +)\n     7\n"), "{out}");
    assert!(out.contains("  1  1 + ⟨2 * 3⟩  (δ *)\n"), "{out}");
}

/// Item 14: too many arguments to `map` suggest `map2`; an application's
/// message counts every argument given.
#[test]
fn arity_errors_count_and_suggest() {
    let out = repl("map (+) [1, 2] [3, 4]\nunflatten 2 2 [1, 2, 3, 4]\n");
    assert!(
        out.contains("\"map\" takes a function and an array"),
        "{out}"
    );
    assert!(out.contains("write `map2`"), "{out}");
    assert!(
        out.contains("\"unflatten\" is applied to 3 arguments"),
        "{out}"
    );
}

/// Item 15: misspelt names, members and commands get a suggestion.
#[test]
fn misspellings_get_a_suggestion() {
    let out = repl("mpa\nf64.sqr 2.0\n:tyep 1\nlet total = 1\ntotl + 1\n");
    for want in [
        "did you mean `map`?",
        "did you mean `f64.sqrt`?",
        "did you mean :type?",
        "did you mean `total`?",
    ] {
        assert!(out.contains(want), "`{want}` in\n{out}");
    }
}

/// `f64.sqrt -1` is a subtraction, as in Futhark: the error says how to
/// pass a negative number instead.
#[test]
fn a_function_minus_a_number_suggests_parentheses() {
    let out = repl("f64.sqrt -1\n1.0 - true\n");
    assert!(
        out.contains("put the number in parentheses: `f (-1)`"),
        "{out}"
    );
    assert_eq!(
        out.matches("put the number in parentheses").count(),
        1,
        "{out}"
    );
}

/// Item 16: a `match` typed line by line goes on while its cases do (it
/// ended at its first `case`), and the next input is read on its own.
#[test]
fn a_match_typed_line_by_line_takes_all_its_cases() {
    let out = repl(
        "match 3i32\ncase 1 -> 10\ncase 2 -> 20\ncase _ -> 30\n1 + 1\nmatch 2i32\ncase 2 -> 5\ncase _ -> 6\n",
    );
    assert_eq!(out, "30\n2\n5\n");
}

/// Item 17: messages show types as written (`i64`, not `[]^r1i64`), a
/// mismatch of element types does not talk of implicit maps, and
/// `:plot` takes a function that ignores its argument.
#[test]
fn messages_do_not_show_the_checkers_notation() {
    let out = repl("def f (xs: []i32) (x: i32) = x < length xs\n");
    assert!(out.contains("this has type `i64`"), "{out}");
    assert!(!out.contains("^r"), "{out}");
    let out = repl("1 + true\n");
    assert!(out.contains("`bool` is not a numeric type"), "{out}");
    assert!(!out.contains("map"), "{out}");
    let out = repl(":plot (\\x -> f64.nan) 0 1\n");
    assert!(!out.contains("Error"), "{out}");
    assert!(!out.contains("()"), "{out}");
}

/// Item 18: a failing test case says what and where, once (it said
/// "run-time error: Error: run-time error: division by zero").
#[test]
fn test_failures_say_where() {
    let p = file(
        "div.fut",
        b"-- ==\n-- input { 0 }\n-- output { 1 }\nentry main (x: i32) = 1 / x\n",
    );
    let (out, _) = text(&urchin(&["test", &p]));
    assert!(
        out.contains("case 0: run-time error: division by zero at "),
        "{out}"
    );
    assert!(out.contains("div.fut:4:23"), "{out}");
    assert!(!out.contains("Error:"), "{out}");
}

/// Item 19: a byte-order mark is no error, and an invisible character in
/// an error is named by its code, not printed.
#[test]
fn invisible_characters_are_named_not_printed() {
    let p = file("bom.fut", b"\xef\xbb\xbfentry main (x: i32) = x + 1\n");
    let (out, err) = text(&urchin(&["run", &p, "1"]));
    assert_eq!(out, "2i32\n", "{err}");
    let p = file("ctrl.fut", b"entry main (x: i32) = x \x01 1\n");
    let (_, err) = text(&urchin(&["check", &p]));
    assert!(err.contains("unexpected character U+0001"), "{err}");
    assert!(!err.contains('\x01'), "{err:?}");
}

/// Item 20: negative values of every kind need no `--` on the command
/// line.
#[test]
fn negative_values_on_the_command_line() {
    let p = file(
        "neg.fut",
        b"entry main (a: i64) (b: f32) (c: f64) (d: i32) = (a, b, c, d)\n",
    );
    let o = urchin(&["run", &p, "-1i64", "-2.5f32", "-f64.inf", "-3"]);
    let (out, err) = text(&o);
    assert_eq!(out, "-1i64\n-2.5f32\n-f64.inf\n-3i32\n", "{err}");
    let o = urchin(&[
        "run", &p, "-1i64", "-2.5f32", "-e", "main", "-f64.inf", "-3",
    ]);
    assert_eq!(text(&o).0, "-1i64\n-2.5f32\n-f64.inf\n-3i32\n");
}

/// Item 21: the reference semantics' message for a size expression quotes
/// the program's (it always said `[n * 2]`).
#[test]
fn unsupported_sizes_are_quoted_as_written() {
    let p = file(
        "size.fut",
        b"-- ==\n-- input { 2i64 [1i64, 2i64] }\n-- output { [1i64, 2i64, 1i64] }\n\
          entry main (n: i64) (xs: [n]i64) : [n+1]i64 = xs ++ [1]\n",
    );
    let (out, _) = text(&urchin(&["test", "-v", "--engine", "small-step", &p]));
    assert!(out.contains("(`[n + 1]`)"), "{out}");
}

/// Item 22: a plot over a range beyond `f32` draws and labels its ends
/// (it labelled an end "inf", or drew nothing labelled -1..1).
#[test]
fn plots_over_huge_ranges_draw() {
    let out = repl(":plot (\\x -> x) 0 1e300\n");
    assert!(out.contains("1e300"), "{out}");
    assert!(!out.contains("inf"), "{out}");
    let out = repl(":plot (\\x -> x) -1e308 1e308\n");
    assert!(out.contains("1e308") && out.contains("-1e308"), "{out}");
    assert!(
        out.chars().any(|c| ('\u{2801}'..='\u{28ff}').contains(&c)),
        "{out}"
    );
}

/// A function plotted over an interval keeps that interval on its x axis
/// where it is NaN (the axis was -1..1, or where it is finite), and a
/// plot with no finite point says so.
#[test]
fn plots_keep_their_interval_where_not_finite() {
    let out = repl(":plot (\\x -> f64.nan) 0 1\n");
    assert!(out.contains("note: no point is finite"), "{out}");
    let axis = |out: &str| {
        let line = out
            .lines()
            .find(|l| l.contains(" x "))
            .unwrap_or("")
            .to_string();
        line.split_whitespace()
            .map(String::from)
            .collect::<Vec<_>>()
    };
    assert_eq!(axis(&out), ["0", "x", "1"], "{out}");
    let out = repl(":plot (\\x -> if x < 0.5 then f64.nan else x) 0 1\n");
    assert!(!out.contains("note:"), "{out}");
    assert_eq!(axis(&out), ["0", "x", "1"], "{out}");
}

/// A value AUTOMAP would replicate into an array whose length nothing
/// gives (`mjp`'s adjoints as one number) is a type error; it was an
/// internal error in the simplifier (found by the `check` fuzzer).
#[test]
fn sizeless_replication_is_a_type_error() {
    let out = repl(
        "mjp (\\(a, b) -> a * b) (2.0, 3.0) 1\nmjp (\\(a, b) -> a * b) (2.0, 3.0) [1.0, 2.0]\n",
    );
    assert!(out.contains("length nothing determines"), "{out}");
    assert!(!out.contains("internal error"), "{out}");
    assert!(out.contains("[(3.0, 2.0), (6.0, 4.0)]"), "{out}");
}

/// Item 23: an image written with `--out` fills the figure size as far as
/// a whole enlargement allows (a 2×2 array was 2×2 pixels).
#[test]
fn images_are_enlarged_in_files() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("friction-img-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("make the directory");
    let (svg, png) = (dir.join("x.svg"), dir.join("x.png"));
    repl(&format!(
        ":img --out {} [[0.0, 1.0], [1.0, 0.0]]\n:img --out {} [[0.0, 1.0], [1.0, 0.0]]\n",
        svg.display(),
        png.display()
    ));
    let s = std::fs::read_to_string(&svg).expect("the SVG");
    assert!(s.contains("width=\"480\" height=\"480\""), "{s}");
    let decoder = png::Decoder::new(std::io::Cursor::new(std::fs::read(&png).expect("the PNG")));
    let info = decoder.read_info().expect("a PNG");
    assert_eq!((info.info().width, info.info().height), (480, 480));
}

/// Item 24: `:cd` in a literate document moves neither the document nor
/// its images.
#[test]
fn cd_in_a_literate_document_moves_nothing() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("friction-lit-{}", std::process::id()));
    let elsewhere = dir.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).expect("make the directories");
    let lesson = dir.join("lesson.fut");
    std::fs::write(
        &lesson,
        format!(
            "-- Text.\n\n-- > :cd {}\n\n-- > :img [[0.0, 1.0], [1.0, 0.0]]\n",
            elsewhere.display()
        ),
    )
    .expect("write the lesson");
    let o = Command::new(env!("CARGO_BIN_EXE_urchin"))
        .args(["literate", "lesson.fut"])
        .current_dir(&dir)
        .output()
        .expect("urchin runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(dir.join("lesson.md").is_file());
    assert!(dir.join("lesson-img/1.png").is_file());
    assert!(!elsewhere.join("lesson.md").exists());
}

/// Item 26: `:help` fits in 100 columns, and `:help grad` says more than
/// its line in the list.
#[test]
fn help_fits_and_describes() {
    let all = repl(":help\n");
    for l in all.lines() {
        assert!(l.chars().count() <= 100, "{l}");
    }
    let grad = repl(":help grad\n");
    assert!(grad.contains("The gradient of `F` at `X`"), "{grad}");
    assert!(grad.lines().count() > 3, "{grad}");
}

/// Item 28: `:plot`'s flags may come anywhere, and a bound may be in
/// parentheses.
#[test]
fn plot_flags_anywhere() {
    let out = repl(":plot (\\x -> x * x) -1.0 1.0 --grad\n:plot (\\x -> x * x) (-1.0) 1.0\n");
    assert!(!out.contains("Error"), "{out}");
    assert!(out.contains("f′ (jvp)"), "{out}");
}

/// Item 30: float to integer conversions follow Futhark's: NaN and
/// infinities are 0 (`i32.f64 f64.inf` was 2147483647), other values are
/// truncated and wrapped, alike in both engines.
#[test]
fn float_to_integer_conversions_are_futharks() {
    let p = file(
        "conv.fut",
        b"entry main (x: f64) = (i32.f64 x, u8.f64 x, i64.f32 (f32.f64 x), u16.f16 (f16.f64 x))\n",
    );
    for (x, want) in [
        ("f64.inf", "0i32\n0u8\n0i64\n0u16\n"),
        ("-f64.inf", "0i32\n0u8\n0i64\n0u16\n"),
        ("f64.nan", "0i32\n0u8\n0i64\n0u16\n"),
        ("3e9", "-1294967296i32\n0u8\n3000000000i64\n0u16\n"),
        ("-1.5", "-1i32\n255u8\n-1i64\n65535u16\n"),
    ] {
        let (out, err) = text(&urchin(&["run", &p, x]));
        assert_eq!(out, want, "{x}: {err}");
        // `step` writes `i32`, the default type, without its suffix.
        let want = want.replacen("i32", "", 1);
        let (out, err) = text(&urchin(&["step", "--count", &p, x]));
        assert!(out.ends_with(&want), "{x} (small-step): {out}{err}");
    }
    assert_eq!(repl("i32.f64 f64.inf\nt32 (-2.5f32)\n"), "0\n-2\n");
}
