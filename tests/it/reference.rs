//! The rules one by one, on expressions typed as at the REPL.

use urchin::driver::Session;
use urchin_prim::{PrimType, Scalar};
use urchin_reference::*;
use urchin_runtime::value::{Array, Value};
use urchin_runtime::values::format_value;
use urchin_runtime::{RuntimeError, RuntimeErrorKind};
use urchin_syntax as syntax;
use urchin_types::CheckedDef;

fn session(program: &str) -> Session {
    let mut s = crate::support::session();
    if let Err(d) = s.load("<test>", program) {
        panic!("{}", urchin_base::diag::render_all(&d, &s.sources, false));
    }
    s
}

fn checked(s: &mut Session, expr: &str) -> CheckedDef {
    let file = s.add_source("<expr>", expr);
    let e = syntax::parse_expr(expr, file).unwrap_or_else(|d| panic!("{:?}", d));
    s.check_expr(&e)
        .unwrap_or_else(|d| panic!("{}", d.render(&s.sources, false)))
}

/// The value of an expression, printed, or its error.
fn run_in(s: &mut Session, expr: &str) -> Result<String, (RuntimeErrorKind, String)> {
    let c = checked(s, expr);
    match eval_expr(s, &c, &Options::default()) {
        Ok(e) => Ok(print::value(&e.value)),
        Err(Stop::Error(e)) => Err((e.kind, e.message)),
        Err(other) => Err((RuntimeErrorKind::Internal, other.to_string())),
    }
}

fn run(expr: &str) -> Result<String, (RuntimeErrorKind, String)> {
    run_in(&mut crate::support::session(), expr)
}

fn ok(expr: &str) -> String {
    run(expr).unwrap_or_else(|e| panic!("{expr}: {e:?}"))
}

fn err(expr: &str) -> (RuntimeErrorKind, String) {
    match run(expr) {
        Ok(v) => panic!("{expr}: expected an error, got {v}"),
        Err(e) => e,
    }
}

fn steps(expr: &str) -> u64 {
    let mut s = crate::support::session();
    let c = checked(&mut s, expr);
    eval_expr(&s, &c, &Options::default())
        .map(|e| e.steps)
        .unwrap_or_else(|e| panic!("{expr}: {e}"))
}

#[test]
fn arithmetic_follows_prim() {
    assert_eq!(ok("1 + 2 * 3"), "7");
    assert_eq!(ok("(-7 / 2, -7 % 2, -7 // 2, -7 %% 2)"), "(-4, 1, -3, -1)");
    assert_eq!(ok("127i8 + 1"), "-128i8");
    assert_eq!(ok("2.0 ** 3.0"), "8.0");
    assert_eq!(ok("f32.sqrt 2.25"), "1.5f32");
    assert_eq!(ok("i64.f64 3.7"), "3i64");
    assert_eq!(ok("!true || 1 < 2"), "true");
    assert_eq!(
        err("let z = 0 in 1 / z"),
        (RuntimeErrorKind::DivisionByZero, "division by zero".into())
    );
}

#[test]
fn and_or_short_circuit() {
    assert_eq!(ok("let z = 0 in false && 1 / z == 1"), "false");
    assert_eq!(ok("let z = 0 in true || 1 / z == 1"), "true");
}

#[test]
fn let_tuples_records() {
    assert_eq!(ok("let (a, b) = (1, 2) in b - a"), "1");
    assert_eq!(
        ok("let r = {x = 1, y = 2} in (r.y, (r with x = 5).x)"),
        "(2, 5)"
    );
    assert_eq!(ok("let {x, y = z} = {x = 1, y = 2} in x + z"), "3");
    assert_eq!(ok("let f x = x * 2 in f (f 3)"), "12");
    assert_eq!(ok("(1, (2, 3)).1.0"), "2");
    assert_eq!(ok("map (.0) [(1, true), (2, false)]"), "[1, 2]");
    assert_eq!(ok("let length = 3 in length + 1"), "4");
}

#[test]
fn functions_and_operators() {
    assert_eq!(ok("(\\x y -> x - y) 5 3"), "2");
    assert_eq!(ok("map (+1) [1, 2]"), "[2, 3]");
    assert_eq!(ok("map (10-) [1, 2]"), "[9, 8]");
    assert_eq!(ok("[1, 2] |> map (*2)"), "[2, 4]");
    assert_eq!(ok("map ((+1) >-> (*2)) [1, 2]"), "[4, 6]");
    assert_eq!(ok("map ((+1) <-< (*2)) [1, 2]"), "[3, 5]");
    assert_eq!(ok("(2, 3) == (2, 3)"), "true");
}

#[test]
fn if_and_loops() {
    assert_eq!(ok("if 1 < 2 then 10 else 20"), "10");
    assert_eq!(
        ok("let (a, _) = loop (a, b) = (0, 1) for _i < 10 do (b, a + b) in a"),
        "55"
    );
    assert_eq!(ok("loop acc = 0 for x in [1, 2, 3] do acc * 10 + x"), "123");
    assert_eq!(ok("loop x = 1 while x < 100 do x * 3"), "243");
    assert_eq!(ok("loop s = 0i64 for i < 4i64 do s + i"), "6i64");
    assert_eq!(ok("loop s = 0u8 for i < 3u8 do s + i"), "3u8");
    assert_eq!(ok("let x = 5 in loop x for i < 2 do x + i"), "6");
    assert_eq!(
        ok("loop a = [0, 0, 0] for i < 3 do a with [i] = i * i"),
        "[0, 1, 4]"
    );
}

#[test]
fn indexing_and_slices() {
    let xs = "[0, 1, 2, 3, 4, 5]";
    assert_eq!(ok(&format!("{xs}[1:4]")), "[1, 2, 3]");
    assert_eq!(ok(&format!("{xs}[::2]")), "[0, 2, 4]");
    assert_eq!(ok(&format!("{xs}[::-1]")), "[5, 4, 3, 2, 1, 0]");
    assert_eq!(ok(&format!("{xs}[4:1:-1]")), "[4, 3, 2]");
    assert_eq!(ok("[[1, 2], [3, 4]][:, 0]"), "[1, 3]");
    assert_eq!(ok("[[1, 2], [3, 4]][1, 1]"), "4");
    assert_eq!(
        err("[1, 2, 3][3]"),
        (
            RuntimeErrorKind::IndexOutOfBounds,
            "Index [3] out of bounds for array of shape [3]".into()
        )
    );
    assert_eq!(
        err("[1, 2, 3][1:5]").1,
        "Index [1:5] out of bounds for array of shape [3]"
    );
    assert_eq!(
        err("[[1, 2], [3, 4]][0, 2]").1,
        "Index [0, 2] out of bounds for array of shape [2][2]"
    );
}

#[test]
fn updates() {
    assert_eq!(ok("[1, 2, 3] with [1] = 20"), "[1, 20, 3]");
    assert_eq!(ok("let a = [1, 2, 3] let a[0] = 9 in a"), "[9, 2, 3]");
    assert_eq!(ok("[[0, 0], [0, 0]] with [1, 1] = 9"), "[[0, 0], [0, 9]]");
    assert_eq!(ok("[1, 2, 3, 4] with [1:3] = [7, 8]"), "[1, 7, 8, 4]");
    assert_eq!(
        err("[1, 2, 3, 4] with [1:3] = [7, 8, 9]"),
        (
            RuntimeErrorKind::ShapeMismatch,
            "shape mismatch: cannot write a value of shape [3] to a slice of shape [2]".into()
        )
    );
    assert_eq!(
        err("[1, 2] with [2] = 0").0,
        RuntimeErrorKind::IndexOutOfBounds
    );
}

#[test]
fn soacs() {
    assert_eq!(ok("map2 (*) [1, 2, 3] [4, 5, 6]"), "[4, 10, 18]");
    assert_eq!(ok("reduce (+) 0 [1, 2, 3, 4]"), "10");
    assert_eq!(ok("reduce (+) 0 (iota 0)"), "0i64");
    assert_eq!(ok("scan (+) 0 [1, 2, 3]"), "[1, 3, 6]");
    assert_eq!(
        ok("hist (+) 0 3 [0, 1, 0, 7, -1] [1, 2, 3, 4, 5]"),
        "[4, 2, 0]"
    );
    assert_eq!(
        ok("reduce_by_index [1, 1] (*) 1 [1, 1, 5] [2, 3, 4]"),
        "[1, 6]"
    );
    assert_eq!(ok("scatter [0, 0, 0] [2, 0, 9] [5, 6, 7]"), "[6, 0, 5]");
    assert_eq!(ok("filter (> 1) [3, 1, 2]"), "[3, 2]");
    assert_eq!(
        err("map2 (+) [1, 2, 3] [0, 1, 2][1:]"),
        (
            RuntimeErrorKind::ShapeMismatch,
            "shape mismatch: map over arrays of lengths 3 and 2".into()
        )
    );
    assert_eq!(
        err("map (\\n -> (iota (n + 1))[1:]) [1, 2]").1,
        "shape mismatch: map produced elements of shapes [1] and [2]"
    );
    assert_eq!(
        err("let n = 2i64 in [iota 1, iota n]").1,
        "shape mismatch: array literal with elements of shapes [1] and [2]"
    );
}

#[test]
fn array_functions() {
    assert_eq!(ok("iota 3"), "[0i64, 1i64, 2i64]");
    assert_eq!(ok("replicate 2 true"), "[true, true]");
    assert_eq!(
        err("replicate (-1) 0"),
        (
            RuntimeErrorKind::NegativeSize,
            "negative size -1 in replicate".into()
        )
    );
    assert_eq!(ok("length [1, 2, 3]"), "3i64");
    assert_eq!(ok("zip [1, 2] [true, false]"), "[(1, true), (2, false)]");
    assert_eq!(
        ok("unzip [(1, true), (2, false)]"),
        "([1, 2], [true, false])"
    );
    assert_eq!(
        err("zip [1, 2, 3] [0, 1, 2][1:]").1,
        "Value of shape [2] cannot match shape [3] (argument 2 of zip)"
    );
    assert_eq!(
        ok("transpose [[1, 2, 3], [4, 5, 6]]"),
        "[[1, 4], [2, 5], [3, 6]]"
    );
    assert_eq!(ok("flatten [[1, 2], [3, 4]]"), "[1, 2, 3, 4]");
    assert_eq!(ok("[1, 2] ++ [3]"), "[1, 2, 3]");
    assert_eq!(ok("concat [1] [2, 3]"), "[1, 2, 3]");
    assert_eq!(
        err("[[1, 2]] ++ [[0, 3][1:]]").1,
        "shape mismatch: cannot concatenate arrays of shapes [1][2] and [1][1]"
    );
    assert_eq!(ok("rotate 1 [1, 2, 3]"), "[2, 3, 1]");
    assert_eq!(ok("rotate (-1) [1, 2, 3]"), "[3, 1, 2]");
    assert_eq!(ok("reverse [1, 2, 3]"), "[3, 2, 1]");
    assert_eq!(ok("copy [1, 2]"), "[1, 2]");
    assert_eq!(ok("assert true 5"), "5");
    assert_eq!(
        err("assert (1 > 2) 5"),
        (
            RuntimeErrorKind::AssertionFailed,
            "Assertion is false: assert".into()
        )
    );
}

#[test]
fn empty_arrays_keep_their_row_shape() {
    assert_eq!(ok("length (transpose (replicate 0 [1, 2, 3]))"), "3i64");
    assert_eq!(ok("length (iota 5)[2:2]"), "0i64");
}

#[test]
fn rep_is_a_value_without_length() {
    assert_eq!(ok("rep 1"), "rep 1");
    assert_eq!(ok("map2 (+) [1, 2] (rep 10)"), "[11, 12]");
    assert_eq!(ok("map (+1) (rep 1)"), "rep 2");
    assert_eq!(ok("(rep 7)[100]"), "7");
    assert_eq!(
        err("length (rep 1)"),
        (
            RuntimeErrorKind::RepLength,
            "the length of a rep is needed here but it has no length".into()
        )
    );
    assert_eq!(err("reduce (+) 0 (rep 1)").0, RuntimeErrorKind::RepLength);
}

#[test]
fn automap() {
    assert_eq!(ok("[1, 2, 3] + 1"), "[2, 3, 4]");
    assert_eq!(ok("f64.sqrt [1, 4, 9]"), "[1.0, 2.0, 3.0]");
    assert_eq!(ok("[[1, 2], [3, 4]] * [10, 100]"), "[[10, 200], [30, 400]]");
}

#[test]
fn sizes_are_bound_and_checked() {
    let mut s = session(
        "def f [n] (xs: [n]i32) (ys: [n]i32) : [n]i32 = map2 (+) xs ys\n\
         def g [n] (xs: [n]i32) : i64 = n\n\
         def h (xs: []i32) : [2]i32 = xs",
    );
    assert_eq!(run_in(&mut s, "g [1, 2, 3]"), Ok("3i64".into()));
    assert_eq!(run_in(&mut s, "f [1, 2] [3, 4]"), Ok("[4, 6]".into()));
    assert_eq!(
        run_in(&mut s, "f [1, 2] [0, 3, 4, 5][1:]"),
        Err((
            RuntimeErrorKind::ShapeMismatch,
            "Value of shape [3] cannot match shape [2] (parameter `ys` of `f`)".into()
        ))
    );
    assert_eq!(
        run_in(&mut s, "h [0, 1, 2, 3][1:]").map_err(|e| e.1),
        Err("Value of shape [3] cannot match shape [2] (the result of `h`)".into())
    );
    assert_eq!(
        // (Sizes known when the program is checked are checked then:
        // these come from slices, which are checked when the program runs.)
        run_in(&mut s, "let xs = [0, 1, 2][1:] in xs : [3]i32").map_err(|e| e.1),
        Err("Value of shape [2] cannot match shape [3] (the annotated expression)".into())
    );
}

/// An entry point's outcome under each engine, the reference's first:
/// values printed, errors by kind and message.
fn both_engines(
    s: &Session,
    entry: &str,
    args: &[Value],
) -> [Result<Vec<String>, (RuntimeErrorKind, String)>; 2] {
    let id = s.lookup_def(entry).expect("the entry point");
    let printed = |vs: Vec<Value>| vs.iter().map(format_value).collect();
    let reference = match run_entry(s, id, args.to_vec(), &Options::default()) {
        Ok((vs, _)) => Ok(printed(vs)),
        Err(Stop::Error(e)) => Err((e.kind, e.message)),
        Err(other) => panic!("{entry}: {other}"),
    };
    let program = s.compile(id).expect("the entry point compiles").program;
    let mut stats = urchin_eval::EvalStats::default();
    let fast = urchin_eval::run_function(
        &program,
        &program.functions[0],
        args.to_vec(),
        &urchin_eval::EvalOptions::default(),
        &mut stats,
    )
    .map(printed)
    .map_err(|e| (e.kind, e.message));
    [reference, fast]
}

/// The arguments of an entry point are checked against its type with
/// sizes before its body runs, the sizes the checker inferred for its
/// anonymous ones included, in both engines alike: a body lowered and
/// optimised trusting them may drop a check that the reference makes
/// (`rows` returned a value where the reference failed), or fail
/// otherwise (`pairs` with an index out of bounds against a shape
/// mismatch).
#[test]
fn entry_arguments_fit_their_inferred_sizes() {
    let s = session(
        "entry rows (zs: []f64) : [][]f64 = \
           if 0 < (loop (w1, acc1) = (0i32, 1i32) while w1 < 0 do (w1 + 1, 0i32)).1 \
           then [map2 (+) zs (rep 0.0)] \
           else (copy (map2 (\\(x: f64) (y: i64) -> [0.0]) zs [0i64]) with [3] = [-3.0])\n\
         entry pairs (b: i64) (is: []i64) : [][]i64 = \
           map2 (\\x y -> [0i64]) (replicate 2 0.0) \
             (copy (map2 (+) is (rep (-1i64))) with [5] = (loop acc1 = b for i1 < 2 do 5i64))\n\
         entry columns (p: ([]i64, []f64)) (r: {a: []f64, b: [3]i64}) = \
           (map2 (\\a b -> f64.i64 a + b) p.0 p.1, map2 (+) r.a p.1)\n\
         entry sized_by (xs: [][]i64) (n: i64) (m: i64) = \
           map2 (\\x y -> map2 (+) x y) xs (replicate n (iota (m + 1)))\n\
         entry add_row (m: [][3]i64) (v: [3]i64) = map (\\row -> map2 (+) row v) m",
    );
    let f64s = |xs: &[f64]| {
        let xs: Vec<Scalar> = xs.iter().map(|&x| Scalar::F64(x)).collect();
        Value::Array(Array::from_scalars(PrimType::F64, vec![xs.len()], &xs))
    };
    let i64s = |shape: Vec<usize>, xs: &[i64]| {
        let xs: Vec<Scalar> = xs.iter().map(|&x| Scalar::I64(x)).collect();
        Value::Array(Array::from_scalars(PrimType::I64, shape, &xs))
    };
    let i64 = |x: i64| Value::Scalar(Scalar::I64(x));
    let invalid = |shapes: &str, param: &str, entry: &str| {
        Err((
            RuntimeErrorKind::ShapeMismatch,
            format!(
                "Value of shape {shapes} (an argument of invalid size for parameter \
                 `{param}` of entry point `{entry}`)"
            ),
        ))
    };
    let alike = |entry: &str, args: &[Value]| {
        let [reference, fast] = both_engines(&s, entry, args);
        assert_eq!(reference, fast, "{entry}");
        reference
    };
    assert_eq!(alike("rows", &[f64s(&[0.5])]), Ok(vec!["[[0.5]]".into()]));
    assert_eq!(
        alike("rows", &[f64s(&[0.5, 3.0])]),
        invalid("[2] cannot match shape [1]", "zs", "rows")
    );
    // The right size reaches the update, out of bounds.
    let (kind, _) = alike("pairs", &[i64(1), i64s(vec![2], &[2, 3])]).unwrap_err();
    assert_eq!(kind, RuntimeErrorKind::IndexOutOfBounds);
    assert_eq!(
        alike("pairs", &[i64(1), i64s(vec![1], &[2])]),
        invalid("[1] cannot match shape [2]", "is", "pairs")
    );
    // A tuple's and a record's components; a constant.
    let (p0, p1) = (i64s(vec![2], &[1, 2]), f64s(&[0.5, 1.5]));
    let b = i64s(vec![3], &[0, 0, 0]);
    assert!(
        alike(
            "columns",
            &[p0.clone(), p1.clone(), f64s(&[1.0, 1.0]), b.clone()]
        )
        .is_ok()
    );
    assert_eq!(
        alike(
            "columns",
            &[p0.clone(), f64s(&[0.5]), f64s(&[1.0, 1.0]), b.clone()]
        ),
        invalid("[1] cannot match shape [2]", "p", "columns")
    );
    assert_eq!(
        alike("columns", &[p0.clone(), p1.clone(), f64s(&[1.0]), b]),
        invalid("[1] cannot match shape [2]", "r", "columns")
    );
    assert_eq!(
        alike(
            "columns",
            &[p0, p1, f64s(&[1.0, 1.0]), i64s(vec![2], &[0, 0])]
        ),
        invalid("[2] cannot match shape [3]", "r", "columns")
    );
    // Sizes that later `i64` parameters are, and a sum of them.
    let xs = i64s(vec![2, 3], &[1, 2, 3, 4, 5, 6]);
    assert_eq!(
        alike("sized_by", &[xs.clone(), i64(2), i64(2)]),
        Ok(vec!["[[1i64, 3i64, 5i64], [4i64, 6i64, 8i64]]".into()])
    );
    assert_eq!(
        alike("sized_by", &[xs.clone(), i64(3), i64(2)]),
        invalid("[2][3] cannot match shape [3][3]", "xs", "sized_by")
    );
    assert_eq!(
        alike("sized_by", &[xs, i64(2), i64(1)]),
        invalid("[2][3] cannot match shape [2][2]", "xs", "sized_by")
    );
    // An empty argument brings its inner sizes with it, and they must be
    // the signature's: an empty dimension excuses them only inside the
    // program, where an annotation gives an empty literal its sizes.
    let v = i64s(vec![3], &[1, 2, 3]);
    assert_eq!(
        alike("add_row", &[i64s(vec![0, 2], &[]), v.clone()]),
        invalid("[0][2] cannot match shape [0][3]", "m", "add_row")
    );
    // The reference does not know the rows of a `map` over no elements
    // (docs/SEMANTICS.md, "Empty arrays"); the fast evaluator's types do.
    let [reference, fast] = both_engines(&s, "add_row", &[i64s(vec![0, 3], &[]), v]);
    assert_eq!(reference, Ok(vec!["empty([0][0]i64)".into()]));
    assert_eq!(fast, Ok(vec!["empty([0][3]i64)".into()]));
}

/// The wrong-sized argument in a trace: the application is stuck before
/// its first step.
#[test]
fn traces_show_arguments_of_invalid_size_stuck() {
    let s = session("entry main (is: []i64) = map2 (+) (replicate 2 0) is");
    let id = s.lookup_def("main").expect("main");
    let xs: Vec<Scalar> = [1, 2, 3].map(Scalar::I64).to_vec();
    let arg = Value::Array(Array::from_scalars(PrimType::I64, vec![3], &xs));
    let mut trace = String::new();
    let reached = entry_trace(&s, id, vec![arg], &TraceOptions::default(), &mut |l| {
        trace.push_str(l)
    });
    assert_eq!(reached, Ok(false));
    assert_eq!(
        trace,
        "  1  ⟨main [1i64, 2i64, 3i64]⟩\n     (stuck: Value of shape [3] cannot match shape [2] \
         (an argument of invalid size for parameter `is` of entry point `main`))\n"
    );
}

#[test]
fn prelude_definitions_unfold() {
    assert_eq!(ok("i32.sum [1, 2, 3]"), "6");
    assert_eq!(ok("f64.maximum [1, 3, 2]"), "3.0");
    assert_eq!(ok("head [5, 6]"), "5");
    assert_eq!(ok("tabulate 3 (\\i -> i * i)"), "[0i64, 1i64, 4i64]");
    assert_eq!(ok("foldl (-) 10 [1, 2]"), "7");
    assert_eq!(ok("and [true, false]"), "false");
}

#[test]
fn reverse_mode_is_reported_unsupported() {
    let mut s = crate::support::session();
    let c = checked(&mut s, "vjp (\\x -> x * x) 3.0 1.0");
    match eval_expr(&s, &c, &Options::default()) {
        Err(Stop::Error(RuntimeError {
            kind: RuntimeErrorKind::Unsupported,
            message,
            ..
        })) => {
            assert!(
                message.starts_with(
                    "`vjp` (reverse-mode AD) is not supported by the reference semantics"
                ),
                "{message}"
            );
            assert!(message.contains("the fast evaluator runs it"), "{message}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn jvp_by_dual_numbers() {
    // d/dx x² at 3, and the chain rule through a primitive.
    assert_eq!(ok("jvp (\\x -> x * x) 3.0 1.0"), "6.0");
    assert_eq!(ok("jvp (\\x -> f64.sin x) 0.0 2.0"), "2.0");
    // Component-wise on arrays and tuples; a result that does not depend
    // on the point has a zero tangent.
    assert_eq!(
        ok("jvp (\\xs -> map (* 2.0) xs) [1.0, 2.0] [1.0, 0.5]"),
        "[2.0, 1.0]"
    );
    assert_eq!(ok("jvp (\\(x: f64) -> (x * x, 7.0)) 2.0 1.0"), "(4.0, 0.0)");
    assert_eq!(ok("jvp2 (\\x -> x * 3.0) 2.0 1.0"), "(6.0, 3.0)");
    // Control flow sees the primal.
    assert_eq!(
        ok("jvp (\\x -> if x > 1.0 then x * x else x) 2.0 1.0"),
        "4.0"
    );
    // Integers have tangents in their own arithmetic, as in the AD
    // transformation; a conversion takes the tangent along.
    assert_eq!(ok("jvp (\\x -> i32.f64 x * 2) 1.5 1.0"), "2");
    // Nested: d/dx (d/dy x·y² at y = x) = d/dx 2x² = 4x, which needs the
    // two perturbations kept apart.
    assert_eq!(
        ok("jvp (\\x -> jvp (\\y -> x * y * y) x 1.0) 2.0 1.0"),
        "8.0"
    );
    // A divisor that does not move with `x` adds no term, not its infinite
    // partial times a zero tangent: d/dx (d/dy y / 0) = d/dx ∞ = 0, as in
    // the AD transformation, not NaN.
    assert_eq!(
        ok("jvp (\\x -> jvp (\\y -> y / 0.0) (x * 2.0) 1.0) 1.0 1.0"),
        "0.0"
    );
    assert_eq!(ok("jmp (\\x -> x * x) 3.0 [1.0, 2.0]"), "[6.0, 12.0]");
}

#[test]
fn jvp_trace_shows_dual_numbers() {
    let mut s = crate::support::session();
    let c = checked(&mut s, "jvp (\\x -> x * x) 3.0 1.0");
    let t = step_trace(&s, &c, &TraceOptions::default());
    assert!(
        t.contains("tangent ε (⟨(3.0 + 1.0ε) * (3.0 + 1.0ε)⟩)"),
        "{t}"
    );
    assert!(t.contains("(TANGENT)"), "{t}");
}

#[test]
fn unflatten_is_reported_unsupported() {
    // Its sizes come from its argument's type.
    let mut s = crate::support::session();
    let c = checked(&mut s, "unflatten [1, 2, 3, 4]");
    match eval_expr(&s, &c, &Options::default()) {
        Err(Stop::Error(RuntimeError {
            kind: RuntimeErrorKind::Unsupported,
            message,
            ..
        })) => assert_eq!(
            message,
            "`unflatten` (its sizes come from its argument's type) is not supported by the reference semantics"
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn step_counts() {
    // DEF is not needed: a literal array is a value, MAP is one step and
    // each square root one more.
    assert_eq!(steps("f64.sqrt [1, 4, 9]"), 4);
    assert_eq!(steps("1 + 2"), 1);
    assert_eq!(steps("(1, 2)"), 0);
}

#[test]
fn the_budget_stops_long_runs() {
    let mut s = crate::support::session();
    let c = checked(&mut s, "loop x = 0 for i < 1000 do x + i");
    let opts = Options {
        max_steps: 100,
        ..Options::default()
    };
    assert!(matches!(eval_expr(&s, &c, &opts), Err(Stop::Budget(100))));
}

#[test]
fn long_arrays_do_not_overflow_the_stack() {
    assert_eq!(ok("reduce (+) 0 (iota 100000)"), "4999950000i64");
    assert_eq!(ok("length (map (+1) (iota 100000))"), "100000i64");
}

#[test]
fn repl_values_are_values() {
    let mut s = crate::support::session();
    s.bind_value(
        "xs",
        urchin_types::ty::Type::prim(urchin_prim::PrimType::I32).array(1),
        vec![urchin_runtime::value::Value::Array(
            urchin_runtime::value::Array::from_scalars(
                urchin_prim::PrimType::I32,
                vec![2],
                &[urchin_prim::Scalar::I32(4), urchin_prim::Scalar::I32(5)],
            ),
        )],
    );
    assert_eq!(run_in(&mut s, "map (*2) xs"), Ok("[8, 10]".into()));
}

#[test]
fn traces_mark_the_redex() {
    let mut s = crate::support::session();
    let c = checked(&mut s, "[1, 2] + 1");
    let t = step_trace(&s, &c, &TraceOptions::default());
    assert_eq!(
        t,
        "  1  ⟨map2 (+) [1, 2] (rep 1)⟩  (MAP)\n  \
         2  [⟨1 + 1⟩, 2 + 1]  (δ +)\n  \
         3  [2, ⟨2 + 1⟩]  (δ +)\n     \
         [2, 3]\n"
    );
    let limited = TraceOptions {
        limit: 1,
        ..TraceOptions::default()
    };
    let t = step_trace(&s, &c, &limited);
    assert_eq!(
        t,
        "  1  ⟨map2 (+) [1, 2] (rep 1)⟩  (MAP)\n     … 2 more steps\n     [2, 3]\n"
    );
    assert_eq!(
        step_count(&s, &c, &Options::default()),
        Ok("3 steps".into())
    );
}
