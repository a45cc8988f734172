//! Programs the uniqueness check must accept, and programs it must
//! reject with the error named; snapshots of a few diagnostics.

use urchin::driver::Session;

/// Loads `src` in a session with the prelude; the rendered errors.
fn load(src: &str) -> Result<(), String> {
    let mut s = Session::new();
    s.load("t.fut", src)
        .map(drop)
        .map_err(|ds| urchin_base::diag::render_all(&ds, &s.sources, false))
}

#[track_caller]
fn accepts(src: &str) {
    if let Err(e) = load(src) {
        panic!("rejected:\n{src}\n{e}");
    }
}

#[track_caller]
fn rejects(src: &str, message: &str) {
    match load(src) {
        Ok(()) => panic!("accepted:\n{src}"),
        Err(e) => assert!(e.contains(message), "expected `{message}` in:\n{e}"),
    }
}

#[test]
fn updating_a_unique_parameter_or_a_fresh_array_is_fine() {
    accepts("def f (xs: *[]i32) : *[]i32 = xs with [0] = 1");
    accepts("def f (n: i64) = let a = iota n let a[0] = 2 in a");
    accepts("def f (xs: []i32) = let ys = copy xs let ys[0] = 1 in (xs, ys)");
    accepts("def f (xs: *[]i32, ys: []i32) = scatter xs (iota 1) ys");
}

#[test]
fn reading_after_consumption_is_an_error() {
    rejects(
        "def f (xs: *[]i32) = let ys = xs with [0] = 1 in xs[0] + ys[0]",
        "Using \"xs\", but this was consumed.",
    );
    rejects(
        "def f (n: i64) = let a = iota n let b = a let a[0] = 1 in b[0]",
        "Using \"b\", but \"a\", which it aliases, was consumed.",
    );
}

#[test]
fn a_parameter_not_declared_unique_cannot_be_consumed() {
    rejects(
        "def f (xs: []i32) = xs with [0] = 1",
        "Consuming variable \"xs\", which is not consumable.",
    );
    rejects(
        "def f (xs: []i32) = let ys = xs[1:] in ys with [0] = 1",
        "this consumes \"ys\", which aliases \"xs\"",
    );
    rejects(
        "def g (a: *[]i32) = a[0]\ndef f (xs: []i32) = g xs",
        "not consumable",
    );
}

#[test]
fn consumption_in_one_branch_hands_the_array_to_the_result() {
    accepts(
        "def f (c: bool) (xs: *[]i32) = let ys = if c then xs with [0] = 1 else xs in ys with [1] = 2",
    );
    rejects(
        "def f (c: bool) (xs: *[]i32) = let ys = if c then xs with [0] = 1 else copy xs in xs[0] + ys[0]",
        "Using \"xs\"",
    );
}

#[test]
fn observing_in_one_branch_and_consuming_in_the_other_is_fine() {
    accepts("def f (c: bool) (xs: *[]i32) = if c then xs[0] else (xs with [0] = 1)[0]");
}

#[test]
fn loops_consume_their_initial_values() {
    accepts("def f (n: i64) = let a = iota n in loop a for i < n do a with [i] = i * 2");
    accepts("def f (n: i64) = let a = iota n let r = loop a for i < n do a with [i] = 0 in r");
    rejects(
        "def f (n: i64) = let a = iota n let r = loop b = a for i < n do b with [i] = 0 in (r, a)",
        "Using \"a\", but this was consumed.",
    );
    rejects(
        "def f (n: i64) = let a = iota n let b = iota n in loop b for i < n do let a[i] = i in b",
        "is bound outside this loop",
    );
    rejects(
        "def f (n: i64) = let a = iota n let b = iota n let r = loop a for i < n do let a[i] = 0 in b in r",
        "Return value for consuming loop parameter \"a\" aliases \"b\".",
    );
}

#[test]
fn a_loop_reading_an_alias_of_its_consumed_initial_value_is_an_error() {
    rejects(
        "def f (xs: *[]i32) = let g (i: i64) = xs[i] in loop ys = xs for i < 3 do ys with [i] = g i",
        "Using \"g\", but \"xs\", which it aliases, was consumed.",
    );
}

#[test]
fn functions_cannot_consume_what_they_close_over() {
    rejects(
        "def f (n: i64) = let a = iota n in map (\\i -> let a[i] = 0 in a[i]) (iota n)",
        "Consuming variable \"a\", which is not consumable.",
    );
    rejects(
        "def f (a: *[]i32) = let g (x: i32) = let a[0] = x in x in g 1",
        "is bound outside this function",
    );
}

#[test]
fn a_function_value_aliases_what_it_reads() {
    rejects(
        "def f (y: i32, q: *[]i32) = let g = \\x -> x + q[0] let q[1] = 2 in g y",
        "Using \"g\", but \"q\", which it aliases, was consumed.",
    );
}

#[test]
fn results_alias_the_arguments_not_consumed() {
    rejects(
        "def f (n: i64) : ([]i64, []i64) = let a = iota n in (a, a)\ndef g n = let (a, b) = f n let a[0] = 0 in (a, b)",
        "the result of applying \"f\", which it aliases, was consumed",
    );
    accepts("def g (n: i64) = let a = map (+ 1) (iota n) let a[0] = 0 in a");
    rejects(
        "def g (xs: []i32) = let ys = id xs let ys[0] = 0 in ys",
        "Consuming variable \"xs\"",
    );
}

#[test]
fn tuples_and_records_are_tracked_per_component() {
    accepts("def f (n: i64) = let p = (iota n, iota n) let p.0[0] = 1 in p.1");
    accepts("def f (n: i64) = let r = {a = iota n, b = iota n} let r.a[0] = 1 in (r.a, r.b)");
    rejects(
        "def f (xs: []i32) (ys: *[]i32) = let t = (xs, ys) with 0 = xs let ys[0] = 0 in t",
        "Using \"t\", but \"ys\", which it aliases, was consumed.",
    );
}

#[test]
fn unique_results_alias_nothing_the_caller_keeps() {
    rejects(
        "def g (a: []i32) : *[]i32 = a",
        "Unique-typed return value of \"g\" is aliased to \"a\", which is not consumable.",
    );
    rejects(
        "def f (n: i64) : (*[]i64, *[]i64) = let a = iota n in (a, a)",
        "A unique-typed component of the return value of \"f\" is aliased to some other component.",
    );
    accepts("def f (n: i64) : (*[]i64, []i64) = let a = iota n in (a, iota n)");
}

#[test]
fn functions_do_not_return_top_level_constants() {
    rejects(
        "def global : []i32 = [1, 2, 3]\ndef f (b: bool) = if b then global else []",
        "Function result aliases the free variable \"global\".",
    );
    accepts("def global : []i32 = [1, 2, 3]\ndef f (b: bool) = if b then copy global else []");
    rejects(
        "def global : *[]i32 = [1, 2, 3]",
        "may not have a unique type",
    );
}

#[test]
fn higher_order_rules() {
    rejects(
        "def update (xs: *[]i32) (i: i64) (y: i32) = xs with [i] = y\ndef main (q: *[]i32) = let f = update q in (f 0 0, f 0 0)",
        "contains-consumption",
    );
    rejects(
        "def consume (xs: *[]i32) = 0\ndef apply 'a 'b (f: a -> b) (x: a) = f x\ndef main (arr: *[]i32) = apply consume arr",
        "consuming-argument",
    );
    accepts("def consume (xs: *[]i32) = 0\ndef main (arr: *[]i32) = let f = consume in f arr");
}

#[test]
fn loop_parameters_do_not_alias_each_other() {
    rejects(
        "def main (n: i64) = loop (xs: *[]i32, ys: *[]i32) = (replicate n 0, replicate n 0) for i < 10 do (xs, xs)",
        "aliases other consumed loop parameter",
    );
    rejects(
        "def main (n: i64) = loop (acc, arr) = (replicate n 0f64, replicate n (replicate n 0f64)) for i < n do let arr[i] = acc in (arr[i], arr)",
        "aliases previously returned value",
    );
}

#[test]
fn an_update_may_not_write_an_alias_of_its_array() {
    rejects(
        "def f (a: *[][]i32) = a with [1] = a[0]",
        "in-place update aliases \"a\"",
    );
    accepts("def f (a: *[]i32) = a with [1] = a[0]");
}

#[test]
fn an_argument_consumed_may_not_alias_another() {
    rejects(
        "def main (xs: *[]i64) = scatter xs xs xs",
        "Argument is consumed",
    );
}

#[test]
fn eta_expanded_entry_points_consume_what_their_function_does() {
    accepts("def f (a: *[]f32) : []f32 = a with [0] = 1\nentry main = f");
}

#[test]
fn expressions_at_the_prompt_may_consume_prompt_values() {
    use urchin_prim::{PrimType, Scalar};
    use urchin_runtime::value::{Array, Value};
    let mut s = Session::new();
    s.bind_value(
        "xs",
        urchin_types::ty::Type::prim(PrimType::I32).array(1),
        vec![Value::Array(Array::from_scalars(
            PrimType::I32,
            vec![1],
            &[Scalar::I32(4)],
        ))],
    );
    let parse =
        |t: &str| urchin_syntax::parse_expr(t, urchin_base::source::FileId(0)).expect("parses");
    assert!(s.check_expr(&parse("xs with [0] = 1")).is_ok());
    // A definition may not: it is called any number of times.
    let e = s
        .load("t.fut", "def f (x: i32) = xs with [0] = x")
        .expect_err("consumes a prompt value");
    assert!(e[0].message.contains("not consumable"), "{}", e[0].message);
}

fn render(src: &str) -> String {
    load(src).expect_err("should be rejected")
}

macro_rules! snap {
    ($name:ident, $src:expr) => {
        #[test]
        fn $name() {
            insta::with_settings!({snapshot_path => "../../snapshots", prepend_module_to_snapshot => false}, {
                insta::assert_snapshot!(stringify!($name), render($src), $src);
            });
        }
    };
}

snap!(
    uniqueness_use_after_consume,
    "def f (n: i64) =\n  let a = iota n\n  let b = a\n  let a[0] = 1\n  in b[0]\n"
);
snap!(
    uniqueness_not_consumable,
    "def f (xs: []i32) =\n  let xs[0] = 1\n  in xs\n"
);
snap!(
    uniqueness_free_in_loop,
    "def f (n: i64) =\n  let a = iota n\n  in loop acc = 0 for i < n do\n       let a[i] = 0\n       in acc + a[i]\n"
);
snap!(uniqueness_return_aliased, "def g (a: []i32) : *[]i32 = a\n");
