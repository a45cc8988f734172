use super::*;

const PROGRAM: &str = r#"
type opt = #some i32 | #none

entry add (xs: []i32) (y: i32) = xs + y
entry pair (x: f64) = (x, [x, x])
entry first (p: (f64, []f64)) = p.0
entry point (a: i32) (b: f64) = {a = a, b = b}
entry wrap (x: i32) : opt = #some x
entry get (o: opt) : i32 = match o case #some x -> x case #none -> 0
#[noinline]
entry div (x: i32) (y: i32) = x / y
def helper (x: i32) = x
"#;

fn server() -> Server {
    Server::new("t.fut", PROGRAM, Default::default())
        .unwrap_or_else(|(s, d)| panic!("{}", urchin_base::diag::render_all(&d, &s.sources, false)))
}

/// Runs a command: what it printed, or its failure.
fn ask(s: &mut Server, line: &str) -> Result<String> {
    let mut out = String::new();
    s.command(line, &mut out).map(|()| out)
}

fn ok(s: &mut Server, line: &str) -> String {
    ask(s, line).unwrap_or_else(|e| panic!("{line}: {e}"))
}

fn fails(s: &mut Server, line: &str) -> String {
    match ask(s, line) {
        Ok(out) => panic!("{line} succeeded: {out}"),
        Err(e) => e,
    }
}

/// A scratch file for `store` and `restore`, of its own (the tests run
/// in parallel in one process, and two of them may name the same
/// variable), removed when dropped.
fn scratch(name: &str) -> Scratch {
    let file = tempfile::Builder::new()
        .suffix(&format!("-{name}"))
        .tempfile();
    Scratch(file.unwrap_or_else(|e| panic!("{e}")).into_temp_path())
}

struct Scratch(tempfile::TempPath);

impl std::fmt::Display for Scratch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.display().fmt(f)
    }
}

impl AsRef<std::path::Path> for Scratch {
    fn as_ref(&self) -> &std::path::Path {
        &self.0
    }
}

fn restore_text(s: &mut Server, var: &str, ty: &str, text: &str) {
    let f = scratch(&format!("{var}.in"));
    std::fs::write(&f, text).unwrap_or_else(|e| panic!("{e}"));
    ok(s, &format!("restore {f} {var} {ty}"));
}

/// The value of a transparent variable, printed as Futhark prints it.
fn value(s: &mut Server, var: &str) -> String {
    let f = scratch(&format!("{var}.out"));
    ok(s, &format!("store {f} {var}"));
    let data = std::fs::read(&f).unwrap_or_else(|e| panic!("{e}"));
    let vs = read_values(&data, Default::default()).unwrap_or_else(|d| panic!("{d}"));
    vs.iter()
        .map(|v| {
            urchin_runtime::values::format_value_futhark(
                &v.to_value(None).unwrap_or_else(|e| panic!("{e}")),
            )
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn entry_points_and_their_types() {
    let mut s = server();
    assert_eq!(
        ok(&mut s, "entry_points"),
        "add\ndiv\nfirst\nget\npair\npoint\nwrap\n"
    );
    assert_eq!(ok(&mut s, "inputs add"), "[]i32\ni32\n");
    assert_eq!(ok(&mut s, "output pair"), "(f64, []f64)\n");
    assert_eq!(ok(&mut s, "inputs first"), "(f64, []f64)\n");
    assert_eq!(ok(&mut s, "attributes div"), "noinline\n");
    assert_eq!(ok(&mut s, "tuning_params add"), "");
    let types = ok(&mut s, "types");
    for t in [
        "#none | #some i32",
        "(f64, []f64)",
        "[]f64",
        "[]i32",
        "{a: i32, b: f64}",
    ] {
        assert!(types.lines().any(|l| l == t), "{t} not in {types}");
    }
    assert_eq!(ok(&mut s, "kind \"(f64, []f64)\""), "record\n");
    assert_eq!(ok(&mut s, "kind []i32"), "array\n");
    assert_eq!(ok(&mut s, "kind f32"), "primitive\n");
    assert_eq!(ok(&mut s, "kind \"#none | #some i32\""), "sum\n");
    assert_eq!(ok(&mut s, "rank [][]f32"), "2\n");
    assert_eq!(ok(&mut s, "elemtype [][]f32"), "f32\n");
    assert!(fails(&mut s, "inputs nope").contains("Unknown entry point"));
    assert!(fails(&mut s, "inputs helper").contains("Unknown entry point"));
    assert!(fails(&mut s, "frobnicate").contains("Unknown command"));
    assert!(fails(&mut s, "rename x").contains("wrong number of arguments"));
    assert!(fails(&mut s, "set_tuning_param x 1").contains("no tuning parameters"));
}

#[test]
fn calls_store_and_restore() {
    let mut s = server();
    restore_text(&mut s, "xs", "[]i32", "[1, 2, 3]");
    restore_text(&mut s, "y", "i32", "10");
    let out = ok(&mut s, "call add r xs y");
    assert!(out.starts_with("runtime: "), "{out}");
    assert_eq!(ok(&mut s, "type r"), "[]i32\n");
    assert_eq!(value(&mut s, "r"), "[11i32, 12i32, 13i32]");
    assert_eq!(ok(&mut s, "shape r"), "3\n");
    ok(&mut s, "index e r 2");
    assert_eq!(value(&mut s, "e"), "13i32");
    ok(&mut s, "set r y 0");
    assert_eq!(value(&mut s, "r"), "[10i32, 12i32, 13i32]");
    assert!(fails(&mut s, "index e2 r 3").contains("out of bounds"));
    ok(&mut s, "new_array m [][]i32 2 2 y y y e");
    assert_eq!(value(&mut s, "m"), "[[10i32, 10i32], [10i32, 13i32]]");
    assert!(fails(&mut s, "new_array m2 []i32 3 y y").contains("3 elements"));
    // Names are unique; consumed names are free again.
    assert!(fails(&mut s, "call add r xs y").contains("already exists"));
    ok(&mut s, "rename r r2");
    assert!(fails(&mut s, "type r").contains("Unknown variable"));
    ok(&mut s, "free r2 e");
    assert!(fails(&mut s, "free r2").contains("Unknown variable"));
    // The wrong types or number of inputs.
    assert!(fails(&mut s, "call add r y xs").contains("has type i32"));
    assert!(fails(&mut s, "call add r xs").contains("takes 2 inputs"));
    assert!(fails(&mut s, "restore /nonexistent/x v i32").contains("Failed to open"));
    restore_text(&mut s, "f", "f64", "2.5");
    let f = scratch("two.in");
    std::fs::write(&f, "1 2").unwrap_or_else(|e| panic!("{e}"));
    assert!(fails(&mut s, &format!("restore {f} a i32")).contains("more values"));
    assert!(fails(&mut s, &format!("restore {f} a i32 b bool")).contains("bool"));
    assert!(
        fails(&mut s, "type a").contains("Unknown variable"),
        "all or nothing"
    );
}

#[test]
fn run_time_errors_fail_the_call_only() {
    let mut s = server();
    restore_text(&mut s, "x", "i32", "1");
    restore_text(&mut s, "z", "i32", "0");
    assert!(fails(&mut s, "call div r x z").contains("division by zero"));
    assert!(fails(&mut s, "type r").contains("Unknown variable"));
    ok(&mut s, "call div r x x");
    assert_eq!(value(&mut s, "r"), "1i32");
}

#[test]
fn opaque_records_and_tuples() {
    let mut s = server();
    restore_text(&mut s, "x", "f64", "1.5");
    ok(&mut s, "call pair p x");
    assert_eq!(ok(&mut s, "type p"), "(f64, []f64)\n");
    assert_eq!(ok(&mut s, "fields \"(f64, []f64)\""), "0 f64\n1 []f64\n");
    ok(&mut s, "project p1 p 1");
    assert_eq!(value(&mut s, "p1"), "[1.5f64, 1.5f64]");
    // An opaque value passed to another entry point.
    ok(&mut s, "call first y p");
    assert_eq!(value(&mut s, "y"), "1.5f64");
    ok(&mut s, "new q \"(f64, []f64)\" y p1");
    ok(&mut s, "call first y2 q");
    assert!(fails(&mut s, "new q2 \"(f64, []f64)\" p1 y").contains("has type []f64"));
    // Stored as its leaves and restored from them.
    let f = scratch("p.bin");
    ok(&mut s, &format!("store {f} p"));
    ok(&mut s, &format!("restore {f} p2 \"(f64, []f64)\""));
    ok(&mut s, "call first y3 p2");
    assert_eq!(value(&mut s, "y3"), "1.5f64");
    restore_text(&mut s, "b", "f64", "2.0");
    restore_text(&mut s, "a", "i32", "3");
    ok(&mut s, "call point r a b");
    assert_eq!(ok(&mut s, "fields \"{a: i32, b: f64}\""), "a i32\nb f64\n");
    ok(&mut s, "project rb r b");
    assert_eq!(value(&mut s, "rb"), "2.0f64");
    assert!(fails(&mut s, "project rc r c").contains("no field c"));
}

#[test]
fn arrays_of_records_zip_and_unzip() {
    let mut s = server();
    restore_text(&mut s, "xs", "[]f64", "[1.0, 2.0]");
    restore_text(&mut s, "ys", "[][]f64", "[[1.0], [2.0]]");
    ok(&mut s, "zip z \"[](f64, []f64)\" xs ys");
    assert_eq!(ok(&mut s, "shape z"), "2\n");
    ok(&mut s, "index e z 1");
    assert_eq!(ok(&mut s, "type e"), "(f64, []f64)\n");
    ok(&mut s, "call first y e");
    assert_eq!(value(&mut s, "y"), "2.0f64");
    ok(&mut s, "unzip z a b");
    assert_eq!(value(&mut s, "b"), "[[1.0f64], [2.0f64]]");
    restore_text(&mut s, "short", "[]f64", "[1.0]");
    assert!(fails(&mut s, "zip z2 \"[](f64, []f64)\" short ys").contains("differ in size"));
}

#[test]
fn sum_types() {
    let mut s = server();
    restore_text(&mut s, "x", "i32", "7");
    ok(&mut s, "call wrap o x");
    let t = "\"#none | #some i32\"";
    assert_eq!(ok(&mut s, &format!("variants {t}")), "none\nsome\n- i32\n");
    assert_eq!(ok(&mut s, "variant o"), "some\n");
    ok(&mut s, "destruct o p");
    assert_eq!(value(&mut s, "p"), "7i32");
    ok(&mut s, &format!("construct n {t} none"));
    ok(&mut s, "call get r n");
    assert_eq!(value(&mut s, "r"), "0i32");
    ok(&mut s, &format!("construct m {t} #some x"));
    ok(&mut s, "call get r2 m");
    assert_eq!(value(&mut s, "r2"), "7i32");
    assert!(fails(&mut s, &format!("construct k {t} some")).contains("holds 1 values"));
    assert!(fails(&mut s, &format!("construct k {t} other x")).contains("no variant other"));
}

#[test]
fn the_protocol_frames_every_answer() {
    let mut s = server();
    let input = "entry_points\nfrobnicate\n\ncall nope r\ntypes\n";
    let mut out = Vec::new();
    s.serve(input.as_bytes(), &mut out)
        .unwrap_or_else(|e| panic!("{e}"));
    let out = String::from_utf8(out).unwrap_or_else(|e| panic!("{e}"));
    assert!(out.starts_with("%%% OK\nadd\n"), "{out}");
    assert!(out.contains("%%% FAILURE\nUnknown command: frobnicate\n%%% OK\n%%% OK\n%%% FAILURE\nUnknown entry point: nope\n%%% OK\n"), "{out}");
    assert_eq!(out.matches("%%% OK").count(), 6, "{out}");
}

#[test]
fn words_and_quotes() {
    assert_eq!(
        words(" a  \"b c\" d").ok(),
        Some(vec!["a".into(), "b c".into(), "d".into()])
    );
    assert!(words("a \"b").is_err());
}

#[test]
fn a_program_with_errors_does_not_start() {
    assert!(Server::new("bad.fut", "entry f (x: i32) = x + true", Default::default()).is_err());
}
