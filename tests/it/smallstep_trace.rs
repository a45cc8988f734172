//! Snapshots of `:step` on teaching examples: the reduction sequence, one
//! step per line, the redex marked `⟨…⟩`, the rule on the right.

use urchin_reference::{self as semantics, TraceOptions};
use urchin_syntax as syntax;

fn trace_with(program: &str, expr: &str, opts: &TraceOptions) -> String {
    let mut s = crate::support::session();
    if let Err(d) = s.load("<program>", program) {
        panic!("{}", urchin_base::diag::render_all(&d, &s.sources, false));
    }
    let file = s.add_source("<expr>", expr);
    let e = syntax::parse_expr(expr, file).expect("the example parses");
    let checked = s
        .check_expr(&e)
        .unwrap_or_else(|d| panic!("{}", d.render(&s.sources, false)));
    format!(
        "> :step {expr}\n{}",
        semantics::step_trace(&s, &checked, opts)
    )
}

fn trace(expr: &str) -> String {
    trace_with("", expr, &TraceOptions::default())
}

macro_rules! snap {
    ($name:literal, $value:expr) => {
        insta::with_settings!({snapshot_path => "../../snapshots", prepend_module_to_snapshot => false}, {
            insta::assert_snapshot!($name, $value);
        })
    };
}

#[test]
fn sqrt_of_an_array() {
    snap!("step_sqrt", trace("f64.sqrt [1, 4, 9]"));
}

#[test]
fn rep_meets_an_array() {
    snap!("step_rep", trace("[1, 2, 3] + 10"));
}

#[test]
fn rep_alone_stays_a_rep() {
    snap!("step_rep_alone", trace("map (\\x -> x * 2) (rep 21)"));
}

#[test]
fn let_and_tuples() {
    snap!("step_let", trace("let (a, b) = (3, 4) in a * a + b * b"));
}

#[test]
fn a_for_loop() {
    snap!(
        "step_loop",
        trace("loop (a, b) = (0, 1) for i < 3 do (b, a + b)")
    );
}

#[test]
fn reduce_and_scan() {
    snap!(
        "step_reduce_scan",
        trace("(reduce (+) 0 [1, 2, 3], scan (+) 0 [1, 2, 3])")
    );
}

#[test]
fn a_histogram() {
    snap!("step_hist", trace("hist (+) 0 2 [0, 1, 0, 5] [1, 2, 3, 4]"));
}

#[test]
fn a_stuck_index() {
    snap!("step_stuck", trace("let xs = [1, 2, 3] in xs[1] + xs[3]"));
}

#[test]
fn automap_with_a_definition() {
    let program = "def lerp (v: f64) (w: f64) (t: f64) = v + (w - v) * t";
    snap!(
        "step_lerp",
        trace_with(
            program,
            "lerp [0, 10] [1, 20] 0.5",
            &TraceOptions::default()
        )
    );
}

#[test]
fn long_traces_are_cut() {
    let opts = TraceOptions {
        limit: 4,
        width: 60,
        ..TraceOptions::default()
    };
    snap!(
        "step_elided",
        trace_with("", "map (\\x -> x * 2 + 1) (iota 30)", &opts)
    );
}

/// Every step `:step` shows is an expression the parser accepts (with the
/// redex marks taken out), so that a student can paste one back.
#[test]
fn steps_are_in_the_language_syntax() {
    let examples = [
        "f64.sqrt [1, 4, 9]",
        "[1, 2, 3] + 10",
        "map (\\x -> x * 2) (rep 21)",
        "let (a, b) = (3, 4) in a * a + b * b",
        "loop (a, b) = (0, 1) for i < 3 do (b, a + b)",
        "(reduce (+) 0 [1, 2, 3], scan (+) 0 [1, 2, 3])",
        "hist (+) 0 2 [0, 1, 0, 5] [1, 2, 3, 4]",
        "let r = {x = 1.0, y = 2.0} in r with x = r.y",
        "if 1 < 2 then [1, 2] ++ [3] else [4]",
        "(\\(x: i32) -> #[trace] x + 1) 2 |> (* 3)",
    ];
    let mut s = crate::support::session();
    let mut steps = 0;
    for ex in examples {
        let text = trace(ex);
        for line in text.lines().skip(1) {
            let line = line.trim_start();
            let Some((_, rest)) = line.split_once("  ") else {
                continue;
            };
            let Some(term) = rest.rsplit_once("  (").map(|(t, _)| t) else {
                continue;
            };
            let term = term.replace(['⟨', '⟩'], "");
            let file = s.add_source("<step>", &term);
            if let Err(ds) = syntax::parse_expr(&term, file) {
                panic!(
                    "step of `{ex}` does not parse: {term}\n{}",
                    urchin_base::diag::render_all(&ds, &s.sources, false)
                );
            }
            steps += 1;
        }
    }
    assert!(steps > 50, "only {steps} steps checked");
}
