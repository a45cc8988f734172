//! AUTOMAP elaborations, snapshotted with insta (`snapshots/automap_elab__*.snap`,
//! the source is each snapshot's description): every row of the examples
//! table of the AUTOMAP design and the thesis's examples (Schenck 2024,
//! sections 4.2.2, 4.8.2, 4.9 and 4.10.1). A snapshot holds exactly what
//! `urchin elab` prints, or the rendered diagnostic when the program is
//! rejected.

use crate::automap_support::load;

/// The elaboration of `source`, or its diagnostics without colour.
fn elaborate(source: &str) -> String {
    match load("example.fut", source, true) {
        Ok(l) => l.elab(),
        Err(diags) => diags,
    }
}

fn snapshot(name: &str, source: &str) -> String {
    let out = elaborate(source);
    insta::with_settings!({
        snapshot_path => "../../snapshots",
        prepend_module_to_snapshot => false,
        description => source,
        omit_expression => true,
    }, {
        insta::assert_snapshot!(format!("automap_elab__{name}"), out);
    });
    out
}

/// The type `urchin check` prints for definition `name`.
fn type_of(source: &str, name: &str) -> String {
    let l = load("example.fut", source, true).expect("the program checks");
    let d = l
        .defs()
        .find(|d| d.name.to_string() == name)
        .expect("the definition exists");
    d.scheme.to_string()
}

const LERP: &str = "def L v w t = v + (w - v) * t\n";

// The table of the design (L, vector arithmetic, sqrt, ambiguity).

#[test]
fn lerp_is_scalar() {
    let out = snapshot("lerp", LERP);
    // No maps: the elaboration is the source, and L stays scalar.
    assert_eq!(out, LERP);
    assert_eq!(load("lerp.fut", LERP, true).unwrap().insertions(), 0);
    assert_eq!(type_of(LERP, "L"), "a -> a -> a -> a");
}

#[test]
fn lerp_vectors_and_a_scalar() {
    snapshot(
        "lerp_vs_ws_t",
        &format!("{LERP}def app (vs: []f64) (ws: []f64) (t: f64) = L vs ws t\n"),
    );
}

#[test]
fn lerp_three_vectors() {
    snapshot(
        "lerp_vs_ws_ts",
        &format!("{LERP}def app (vs: []f64) (ws: []f64) (ts: []f64) = L vs ws ts\n"),
    );
}

#[test]
fn lerp_two_scalars_and_a_vector() {
    snapshot(
        "lerp_v_w_ts",
        &format!("{LERP}def app (v: f64) (w: f64) (ts: []f64) = L v w ts\n"),
    );
}

#[test]
fn vector_plus_scalar() {
    snapshot("vector_plus_scalar", "def app = [1, 2, 3] + 1\n");
}

#[test]
fn sqrt_of_a_vector() {
    snapshot("sqrt_vector", "def app = f64.sqrt [1, 2, 3]\n");
}

#[test]
fn sum_of_length_is_ambiguous() {
    let out = snapshot(
        "sum_length_ambiguous",
        "def ambig (xss: [][]i32) = i64.sum (length xss)\n",
    );
    assert!(out.contains("ambiguous"), "{out}");
    assert!(out.contains("i64.sum (map length xss)"), "{out}");
    assert!(out.contains("i64.sum (rep (length xss))"), "{out}");
}

// The further rows of docs/AUTOMAP.md.

#[test]
fn matrix_plus_vector() {
    snapshot(
        "matrix_plus_vector",
        "def app (xss: [][]i32) (ys: []i32) = xss + ys\n",
    );
}

#[test]
fn sum_of_matrix_times_vector() {
    snapshot(
        "sum_matrix_times_vector",
        "def app (m: [][]f64) (v: []f64) = f64.sum (m * v)\n",
    );
}

#[test]
fn explicit_map_with_implicit_inner_map() {
    snapshot(
        "map_x_times_ys",
        "def app (xs: []f64) (ys: []f64) = map (\\x -> x * ys) xs\n",
    );
}

// Thesis 4.2.2: the X-matrix.

const XMAT: &str = "\
def outerprod f xs ys = map (\\x -> f x ys) xs
def bidd A = outerprod (==) (indices A) (indices A)
def xmat A = bidd A || reverse (bidd A)
";

#[test]
fn outerprod_without_map_is_function_application() {
    let src = "def outerprod f xs ys = (\\x -> f x ys) xs\n";
    let out = snapshot("outerprod_without_map", src);
    // "we infer the type of outerprod to be the binary application
    // function": nothing inserted.
    assert_eq!(out, src);
    assert_eq!(type_of(src, "outerprod"), "(a -> b -> c) -> a -> b -> c");
}

#[test]
fn xmatrix_check_with_annotation() {
    let src = format!("{XMAT}def check (A: [][]i32) = xmat A == (A != 0) |> flatten |> and\n");
    snapshot("xmatrix_check_annotated", &src);
    assert_eq!(
        type_of(&src, "outerprod"),
        "(a -> b -> c) -> []a -> b -> []c"
    );
    assert_eq!(type_of(&src, "check"), "[][]i32 -> bool");
}

#[test]
fn xmatrix_check_without_annotation_is_ambiguous() {
    let out = snapshot(
        "xmatrix_check_unannotated",
        &format!("{XMAT}def check A = xmat A == (A != 0) |> flatten |> and\n"),
    );
    // The two minimal solutions the thesis lists (A a scalar, A a vector).
    assert!(out.contains("ambiguous: `check`"), "{out}");
    assert!(
        out.contains("map2 (map2 (==)) (xmat (rep A)) (rep (rep (A != 0))) |> flatten |> and"),
        "{out}"
    );
    assert!(
        out.contains("map2 (map2 (==)) (xmat A) (rep (map2 (!=) A (rep 0))) |> flatten |> and"),
        "{out}"
    );
}

// Thesis 4.8.2: induced reps are free.

#[test]
fn vector_times_mapped_scalar() {
    snapshot(
        "map_xs_times_y",
        "def app (xs: []f64) (ys: []f64) = map (\\y -> xs * y) ys\n",
    );
}

// Thesis 4.9: removing maps from an outer product changes its meaning.

#[test]
fn outer_product_with_fewer_maps() {
    snapshot(
        "outer_product_removing_maps",
        "\
def two (xs: []f64) (ys: []f64) = map (\\x -> map (\\y -> x * y) ys) xs
def one (xs: []f64) (ys: []f64) = map (\\x -> x * ys) xs
def none (xs: []f64) (ys: []f64) = (\\x -> x * ys) xs
",
    );
}

// Thesis 4.10.1: higher-order functions.

#[test]
fn pipe_maps_over_its_first_argument() {
    // The thesis finds `pipe (indices A) f` ambiguous between
    // `map pipe (indices A) (rep f)` and `pipe (indices A) (rep f)`. In
    // urchin a function argument is never replicated into an array of
    // functions, so only the first remains; its `rep f` is induced by the
    // map (free, and fused away).
    let out = snapshot(
        "pipe",
        "\
def pipe 'a 'b (x: a) (g: a -> b) : b = g x
def f (x: i64) : i64 = x + 1
def app (A: []i32) = pipe (indices A) f
",
    );
    assert!(out.contains("map2 pipe (indices A) (rep f)"), "{out}");
}

#[test]
fn pipe_unannotated() {
    snapshot(
        "pipe_unannotated",
        "\
def pipe x g = g x
def f (x: i64) : i64 = x + 1
def app (A: []i32) = pipe (indices A) f
def app2 (A: []i32) = indices A |> f
",
    );
}

// Futhark's AUTOMAP beyond applications.

#[test]
fn projection_from_arrays_is_mapped() {
    let out = snapshot(
        "projection",
        "\
def fst (ps: [](i32, f64)) = ps.0
def inner (rs: [][]{a: {b: i32}}) = rs.a.b
def one (p: (i32, f64)) = p.1
",
    );
    assert!(out.contains("map (.0) ps"), "{out}");
    assert!(out.contains("def one (p: (i32, f64)) = p.1"), "{out}");
}

#[test]
fn applied_lambda_takes_its_argument_types() {
    let out = snapshot(
        "applied_lambda",
        "def f (xs: []i32) (y: i32) = (\\x y -> x + y) xs y\n",
    );
    assert!(out.contains("(\\x y -> map2 (+) x (rep y)) xs y"), "{out}");
}

/// A function given where an array parameter is expected is an error the
/// user can act on, not a reading that maps the array over more arguments
/// than the function takes (found by the REPL fuzzer).
#[test]
fn no_reading_makes_an_array_of_functions() {
    let out = snapshot(
        "array_of_functions",
        "def sizes [n] 'a 'b (f: a -> ?[k].[k]b) (as: [n]a) : [n]i64 =\n  flatten (\\a -> length (f a)) as\n",
    );
    assert!(out.contains("array of functions"), "{out}");
    assert!(!out.contains("internal error"), "{out}");
    let out = elaborate("def g (as: []i64) = flatten (\\a -> a + 1) as\n");
    assert!(out.contains("array of functions"), "{out}");
    assert!(!out.contains("ambiguous"), "{out}");
}

/// The snapshots show what `urchin elab` prints.
#[test]
fn same_text_as_the_command_line() {
    let src = format!("{XMAT}def check (A: [][]i32) = xmat A == (A != 0) |> flatten |> and\n");
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("automap_elab");
    std::fs::create_dir_all(&dir).expect("create a scratch directory");
    let file = dir.join("xmat.fut");
    std::fs::write(&file, &src).expect("write the program");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_urchin"))
        .arg("elab")
        .arg(&file)
        .output()
        .expect("run urchin elab");
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout), elaborate(&src));
}

/// A reading that replicates a value into an array whose length nothing
/// determines is no reading: the cheapest reading of `(keep xs 1).1`
/// (`(keep xs (rep 1)).1`, one `rep`) would make a value without a
/// length, so the mapped one (two insertions) is taken.
#[test]
fn sizeless_rep_takes_the_mapped_reading() {
    let out = snapshot(
        "sizeless_rep_mapped",
        "def keep 'a (x: a) (y: a) : (a, a) = (x, y)\ndef second (xs: []i32) = (keep xs 1).1\n",
    );
    assert!(out.contains("map (.1) (map2 keep xs (rep 1))"), "{out}");
}

/// Issue 37's example: `and (qr == qr_am && qi == qi_am)` is cheapest read
/// comparing the arrays whole and replicating the `bool` for `and`, a
/// `rep` of no length. Without it, two readings compare one pair whole and
/// replicate that `bool` along `&&`'s map (two maps each, mirror images):
/// counting every `rep` the elaboration writes ties them with mapping
/// both comparisons (three maps), and comparing elements, not arrays,
/// picks that one. With a `[]bool` result and no `and`, the same tie is
/// broken the same way.
#[test]
fn sizeless_rep_of_conjoined_comparisons_maps_them() {
    let out = snapshot(
        "sizeless_rep_conjunction",
        "\
def same (qr: []f64) (qr_am: []f64) (qi: []f64) (qi_am: []f64) : bool =
  and (qr == qr_am && qi == qi_am)
def each (a: []f64) (b: []f64) (c: []f64) (d: []f64) : []bool = a == b && c == d
",
    );
    assert!(
        out.contains("and (map2 (&&) (map2 (==) qr qr_am) (map2 (==) qi qi_am))"),
        "{out}"
    );
    assert!(
        out.contains("map2 (&&) (map2 (==) a b) (map2 (==) c d)"),
        "{out}"
    );
}

/// Where every reading needs such a `rep`, the program is a type error
/// at the argument (these ran, giving `rep([2, 3, 4])`, `rep 5` and an
/// element past the end of an array without a length).
#[test]
fn sizeless_rep_is_a_type_error() {
    for src in [
        "def main (y: []i32) : [][]i32 = (+ 1) y\n",
        "def main (y: []i32) = let z : [][]i32 = (+ 1) y in z[1000000][0]\n",
    ] {
        let out = elaborate(src);
        assert!(out.contains("length nothing determines"), "{src}: {out}");
    }
    snapshot("sizeless_rep_error", "def b = (\\(x: []i32) -> x) 5\n");
}

/// A `rep` whose length a size gives is kept: `add`'s parameters have one
/// size, so `rep 1` takes `xs`'s length.
#[test]
fn rep_with_a_size_is_kept() {
    let out = elaborate(
        "def add [n] (a: [n]i32) (b: [n]i32) : [n]i32 = map2 (+) a b\ndef f (xs: []i32) = add xs 1\n",
    );
    assert!(out.contains("add xs (rep 1)"), "{out}");
}
