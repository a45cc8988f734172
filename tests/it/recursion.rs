//! Recursive functions beyond what test blocks can say: the errors
//! lowering reports, the core IR of recursive programs (checked), and
//! recursion too deep for either evaluator (a clean error, not a crash).

use crate::support::session;
use urchin::driver::Session;
use urchin_core::check::check_program;
use urchin_eval::EvalOptions;
use urchin_prim::Scalar;
use urchin_reference::{self as semantics, Stop};
use urchin_runtime::RuntimeErrorKind;
use urchin_runtime::value::Value;

fn loaded(src: &str) -> Session {
    let mut s = session();
    if let Err(d) = s.load("<test>", src) {
        panic!("{}", urchin_base::diag::render_all(&d, &s.sources, false));
    }
    s
}

/// The message of the error compiling `main`.
fn lowering_error(src: &str) -> String {
    let s = loaded(src);
    let id = s.lookup_def("main").expect("a main");
    match s.compile(id) {
        Ok(_) => panic!("compiled:\n{src}"),
        Err(d) => d.render(&s.sources, false),
    }
}

fn run(s: &Session, args: Vec<Value>) -> Result<Vec<Value>, (RuntimeErrorKind, String)> {
    let c = s
        .compile(s.lookup_def("main").expect("a main"))
        .expect("compiles");
    check_program(&c.program).expect("the core program checks");
    s.run(&c, args, &EvalOptions::default())
        .map_err(|e| (e.kind, e.message))
}

fn i64s(v: &[Value]) -> Vec<i64> {
    v.iter()
        .map(|x| match x {
            Value::Scalar(s) => s.as_i64(),
            other => panic!("not a scalar: {other:?}"),
        })
        .collect()
}

#[test]
fn a_recursive_call_must_pass_its_function_parameters_unchanged() {
    let mut s = Session::new();
    let src = "def twice_each (n: i64) (f: i64 -> i64) (x: i64) : i64 =\n  \
         if n == 0 then x else twice_each (n - 1) (\\y -> f (f y)) x\n\
         entry main (n: i64) = twice_each n (+ 1) 0\n";
    let msg = match s.load("<test>", src) {
        Ok(_) => panic!("loaded:\n{src}"),
        Err(ds) => urchin_base::diag::render_all(&ds, &s.sources, false),
    };
    assert!(
        msg.contains(
            "the function parameter `f` of the recursive function `twice_each` must be passed unchanged"
        ),
        "{msg}"
    );
    assert!(msg.contains("<test>:2"), "{msg}");
}

#[test]
fn differentiating_through_recursion_is_an_error_naming_the_function() {
    let msg = lowering_error(
        "def power (n: i64) (x: f64) : f64 = if n == 0 then 1 else x * power (n - 1) x\n\
         entry main (x: f64) = vjp (power 3) x 1.0\n",
    );
    assert!(
        msg.contains("cannot differentiate through the recursive function `power`"),
        "{msg}"
    );
    assert!(msg.contains("write the recursion as a `loop`"), "{msg}");
}

#[test]
fn recursive_programs_lower_to_checked_core_ir() {
    // A higher-order function specialised at two call sites, one of them
    // with a function reading the caller's variable; a recursive call in
    // a map, whose argument differs from element to element.
    let s = loaded(
        "def repeat (n: i64) (f: i64 -> i64) (x: i64) : i64 =\n  \
         if n == 0 then x else repeat (n - 1) f (f x)\n\
         def count (n: i64) : i64 = if n == 0 then 1 else 1 + i64.sum (map count (iota n))\n\
         entry main (n: i64) (k: i64) =\n  \
         (repeat n (+ k) 0, repeat n (* 2) 1, i64.sum (map count (iota n)))\n",
    );
    let c = s
        .compile(s.lookup_def("main").expect("main"))
        .expect("compiles");
    let names: Vec<&str> = c.program.functions.iter().map(|f| &*f.name).collect();
    assert_eq!(names, ["main", "repeat", "repeat_2", "count"]);
    let args = vec![Value::Scalar(Scalar::I64(4)), Value::Scalar(Scalar::I64(3))];
    assert_eq!(i64s(&run(&s, args).expect("runs")), [12, 16, 15]);
}

#[test]
fn unbounded_recursion_is_a_clean_error_in_both_evaluators() {
    let s = loaded(
        "def down (n: i64) : i64 = if n == 0 then 0 else 1 + down (n + 1)\n\
         entry main (n: i64) = down n\n",
    );
    let (kind, msg) = run(&s, vec![Value::Scalar(Scalar::I64(1))]).expect_err("overflows");
    assert_eq!(kind, RuntimeErrorKind::RecursionDepth, "{msg}");
    assert!(
        msg.contains("stack overflow") && msg.contains("`down`"),
        "{msg}"
    );
    let id = s.lookup_def("main").expect("main");
    let args = vec![Value::Scalar(Scalar::I64(1))];
    match semantics::run_entry(&s, id, args, &semantics::Options::default()) {
        Err(Stop::Error(e)) => {
            assert_eq!(e.kind, RuntimeErrorKind::RecursionDepth, "{}", e.message)
        }
        other => panic!("the reference did not overflow cleanly: {other:?}"),
    }
}

#[test]
fn recursion_just_below_the_limit_runs() {
    let s = loaded(
        "def down (n: i64) : i64 = if n == 0 then 0 else 1 + down (n - 1)\n\
         entry main (n: i64) = down n\n",
    );
    let r = run(&s, vec![Value::Scalar(Scalar::I64(9_000))]).expect("runs");
    assert_eq!(i64s(&r), [9_000]);
}
