//! The cost of the module phase: a program that imports three files with
//! 50 modules between them (module types, parametric modules and their
//! applications to the numeric modules and to each other, ascribed
//! modules), generated.
//!
//! The test checks that the program loads and computes what it should;
//! the ignored test `figures` prints how long `urchin check` takes on it:
//!
//! ```text
//! cargo test --release --test it modules_speed -- --ignored --nocapture
//! ```

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};
use urchin::driver::Session;
use urchin_runtime::value::Value;

/// Module declarations in each of the three imported files.
const PER_FILE: [usize; 3] = [10, 20, 20];

/// `a.fut`: a module type, parametric modules, and their applications.
fn file_a() -> String {
    let mut s = String::from(
        "module type num = {
  type t
  val zero : t
  val one : t
  val add : t -> t -> t
  val mul : t -> t -> t
  val of_i64 : i64 -> t
  val to_f64 : t -> f64
}

module mk_num (R: real) : num with t = R.t = {
  type t = R.t
  def zero : t = R.i64 0
  def one : t = R.i64 1
  def add (x: t) (y: t) : t = R.(x + y)
  def mul (x: t) (y: t) : t = R.(x * y)
  def of_i64 (i: i64) : t = R.i64 i
  def to_f64 (x: t) : f64 = R.to_f64 x
}

module mk_poly (N: num) = {
  def eval (cs: []N.t) (x: N.t) : N.t = foldl (\\acc c -> N.add (N.mul acc x) c) N.zero cs
  def sum (xs: []N.t) : N.t = reduce N.add N.zero xs
}

module mk_stats (N: num) = {
  module P = mk_poly N
  def mean (xs: []N.t) : f64 = N.to_f64 (P.sum xs) / f64.i64 (length xs)
  def norm2 (xs: []N.t) : N.t = P.sum (map (\\x -> N.mul x x) xs)
}
",
    );
    // 4 declarations so far (the module type and three parametric modules).
    for k in 0..(PER_FILE[0] - 4) / 2 {
        let r = ["f64", "f32", "f16"][k % 3];
        s.push_str(&format!(
            "\nmodule n{k} = mk_num {r}\nmodule s{k} = mk_stats n{k}\n"
        ));
    }
    s
}

/// `b.fut`: ascribed modules of the module type, and their polynomials.
fn file_b() -> String {
    let mut s = String::from("import \"a\"\n");
    for k in 0..PER_FILE[1] / 2 {
        s.push_str(&format!(
            "
module c{k} : num = {{
  type t = i64
  def zero : t = 0
  def one : t = 1
  def add (x: t) (y: t) : t = x + y + {k} - {k}
  def mul (x: t) (y: t) : t = x * y
  def of_i64 (i: i64) : t = i
  def to_f64 (x: t) : f64 = f64.i64 x
}}
module p{k} = mk_poly c{k}
"
        ));
    }
    s
}

/// `c.fut`: modules built from those of `a.fut` and `b.fut`.
fn file_c() -> String {
    let mut s = String::from("import \"a\"\nimport \"b\"\n");
    for k in 0..PER_FILE[2] / 2 {
        let b = k % (PER_FILE[1] / 2);
        s.push_str(&format!(
            "
module d{k} = {{
  module S = mk_stats c{b}
  def score (xs: []i64) : f64 = S.mean (map c{b}.of_i64 xs) + c{b}.to_f64 (p{b}.eval (map c{b}.of_i64 xs) (c{b}.one))
}}
module e{k} = mk_stats (mk_num f64)
"
        ));
    }
    s
}

const MAIN: &str = "import \"a\"
import \"b\"
import \"c\"

-- ==
-- input { [1i64, 2i64, 3i64] }
-- output { 8.0 }
def main (xs: []i64) : f64 = d3.score xs
";

/// Writes the program to a fresh folder; returns the main file.
fn write_program() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("modules_speed");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create the program's folder");
    for (name, text) in [("a", file_a()), ("b", file_b()), ("c", file_c())] {
        std::fs::write(dir.join(format!("{name}.fut")), text).expect("write a file");
    }
    let main = dir.join("main.fut");
    std::fs::write(&main, MAIN).expect("write main.fut");
    main
}

fn modules_in(text: &str) -> usize {
    text.lines().filter(|l| l.starts_with("module ")).count()
}

#[test]
fn the_generated_program_has_fifty_modules_and_runs() {
    let files = [file_a(), file_b(), file_c()];
    let counts: Vec<usize> = files.iter().map(|f| modules_in(f)).collect();
    assert_eq!(counts, PER_FILE);
    assert_eq!(counts.iter().sum::<usize>(), 50);
    let main = write_program();
    let mut s = Session::new();
    let text = std::fs::read_to_string(&main).expect("read main.fut");
    s.load_path(&main, &text).expect("the program loads");
    let id = s.lookup_def("main").expect("main is defined");
    let c = s.compile(id).expect("main compiles");
    let xs = urchin_runtime::values::parse_values(
        "[1i64, 2i64, 3i64]",
        urchin_base::source::FileId(0),
        0,
    )
    .expect("a value")[0]
        .to_value(None)
        .expect("an array");
    let out = s.run(&c, vec![xs], &Default::default()).expect("main runs");
    // mean [1, 2, 3] = 2, and the polynomial 1x² + 2x + 3 at x = 1 is 6.
    assert!(
        matches!(out.as_slice(), [Value::Scalar(v)] if v.as_f64() == 8.0),
        "{out:?}"
    );
}

/// The time `urchin check` takes on the program, best of several runs.
#[test]
#[ignore]
fn figures() {
    let main = write_program();
    let mut best = Duration::MAX;
    for _ in 0..5 {
        let start = Instant::now();
        let out = Command::new(env!("CARGO_BIN_EXE_urchin"))
            .arg("check")
            .arg(&main)
            .output()
            .expect("run urchin");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        best = best.min(start.elapsed());
    }
    println!("urchin check of a program importing 3 files with 50 modules: {best:?} (best of 5)");
}
