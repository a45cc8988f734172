//! `urchin bench`: the shape of its table and JSON (never the timings),
//! which datasets it times, and how it reports failures.

use std::path::PathBuf;
use std::process::Command;

struct Run {
    out: String,
    err: String,
    code: Option<i32>,
}

fn urchin(args: &[&str]) -> Run {
    let output = Command::new(env!("CARGO_BIN_EXE_urchin"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("run urchin");
    Run {
        out: String::from_utf8(output.stdout).expect("UTF-8 output"),
        err: String::from_utf8(output.stderr).expect("UTF-8 errors"),
        code: output.status.code(),
    }
}

/// A program in a fresh directory of its own (so tests may run in
/// parallel), removed when the first of the pair is dropped.
fn program(text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("data.in"), "[1.0, 2.0, 3.0]\n").expect("write the data");
    let path = dir.path().join("p.fut");
    std::fs::write(&path, text).expect("write the program");
    (dir, path)
}

const PROGRAM: &str = "\
-- ==
-- entry: sumsq grad
-- input { [1.0, 2.0] }
-- input @ data.in
-- compiled random input { [1000]f64 }
-- nobench input { [5.0] }
-- input { empty([0]f64) }

-- ==
-- entry: sumsq
-- input { [3.0] }
-- output { 9.0 }

-- ==
-- entry: boom
-- input { [3.0] }
-- error: out of bounds

entry sumsq (xs: []f64) = f64.sum (xs * xs)
entry grad (xs: []f64) = vjp sumsq xs 1
entry boom (xs: []f64) = xs[1]
";

/// The table's rows: (entry, dataset, the remaining columns).
fn rows(out: &str) -> Vec<(String, String, Vec<String>)> {
    out.lines()
        .skip(2)
        .map(|l| {
            let cols: Vec<&str> = l
                .split("  ")
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .collect();
            (
                cols[0].to_string(),
                cols[1].to_string(),
                cols[2..].iter().map(|c| c.to_string()).collect(),
            )
        })
        .collect()
}

#[test]
fn one_row_per_entry_and_dataset() {
    let (_dir, path) = program(PROGRAM);
    let r = urchin(&["bench", path.to_str().expect("UTF-8 path"), "--runs", "2"]);
    assert_eq!(r.code, Some(0), "{}{}", r.out, r.err);
    let lines: Vec<&str> = r.out.lines().collect();
    assert_eq!(lines[0], path.display().to_string());
    let header: Vec<&str> = lines[1].split_whitespace().collect();
    assert_eq!(
        header,
        [
            "entry",
            "dataset",
            "mean",
            "min",
            "stddev",
            "peak",
            "mem",
            "checkpoints"
        ]
    );
    let names: Vec<(String, String)> = rows(&r.out).into_iter().map(|(e, d, _)| (e, d)).collect();
    let expected = [
        ("sumsq", "{ [1.0, 2.0] }"),
        ("grad", "{ [1.0, 2.0] }"),
        ("sumsq", "@ data.in"),
        ("grad", "@ data.in"),
        ("sumsq", "random { [1000]f64 }"),
        ("grad", "random { [1000]f64 }"),
        ("sumsq", "{ empty([0]f64) }"),
        ("grad", "{ empty([0]f64) }"),
        ("sumsq", "{ [3.0] }"),
    ];
    assert_eq!(
        names,
        expected.map(|(e, d)| (e.to_string(), d.to_string())),
        "{}",
        r.out
    );
    for (_, _, cols) in rows(&r.out) {
        assert_eq!(cols.len(), 5, "{cols:?}");
        for t in &cols[..3] {
            assert!(
                t.ends_with("µs") || t.ends_with("ms") || t.ends_with('s'),
                "{t}"
            );
        }
        for m in &cols[3..] {
            assert!(m.ends_with('B'), "{m}");
        }
    }
    // The nobench case and the expected error are checked, not timed.
    assert!(
        r.err.ends_with("12 passed, 0 failed, 0 skipped\n"),
        "{}",
        r.err
    );
}

#[test]
fn one_entry_point() {
    let (_dir, path) = program(PROGRAM);
    let r = urchin(&[
        "bench",
        path.to_str().expect("UTF-8 path"),
        "-e",
        "grad",
        "--runs",
        "1",
    ]);
    assert_eq!(r.code, Some(0), "{}{}", r.out, r.err);
    let entries: Vec<String> = rows(&r.out).into_iter().map(|(e, _, _)| e).collect();
    assert_eq!(entries, ["grad", "grad", "grad", "grad"]);
    assert!(
        r.err.ends_with("5 passed, 0 failed, 7 skipped\n"),
        "{}",
        r.err
    );
}

#[test]
fn json() {
    let (_dir, path) = program(PROGRAM);
    let r = urchin(&[
        "bench",
        path.to_str().expect("UTF-8 path"),
        "--json",
        "--runs",
        "3",
    ]);
    assert_eq!(r.code, Some(0), "{}{}", r.out, r.err);
    let lines: Vec<&str> = r.out.lines().collect();
    assert_eq!((lines[0], lines[lines.len() - 1]), ("[", "]"));
    let objects = &lines[1..lines.len() - 1];
    assert_eq!(objects.len(), 9, "{}", r.out);
    for (i, o) in objects.iter().enumerate() {
        assert!(o.starts_with("  {\"file\": \""), "{o}");
        assert_eq!(o.ends_with("},"), i + 1 < objects.len(), "{o}");
        let runs = o
            .split("\"runs_us\": [")
            .nth(1)
            .and_then(|s| s.split(']').next())
            .expect("a runs_us array");
        assert_eq!(runs.split(", ").count(), 3, "{o}");
        for key in [
            "mean_us",
            "min_us",
            "max_us",
            "stddev_us",
            "peak_live_bytes",
            "peak_checkpoint_bytes",
        ] {
            assert!(o.contains(&format!("\"{key}\": ")), "{key} in {o}");
        }
    }
    assert!(objects[2].contains("\"line\": 4, \"entry\": \"sumsq\", \"dataset\": \"@ data.in\""));
}

#[test]
fn threads_one_against_n() {
    // `--threads N`: every dataset on one thread, then on N, with the
    // speed-up on the second row (its value is a timing: never checked).
    let (_dir, path) = program(PROGRAM);
    let p = path.to_str().expect("UTF-8 path");
    let r = urchin(&["bench", p, "-e", "sumsq", "--runs", "1", "--threads", "3"]);
    assert_eq!(r.code, Some(0), "{}{}", r.out, r.err);
    let lines: Vec<&str> = r.out.lines().collect();
    assert!(
        lines[1].contains("backend") && lines[1].ends_with("speed-up"),
        "{}",
        r.out
    );
    let rows = rows(&r.out);
    assert_eq!(rows.len(), 10, "{}", r.out);
    for pair in rows.chunks(2) {
        assert_eq!(pair[0].2[0], "1 thread", "{}", r.out);
        assert_eq!(pair[1].2[0], "3 threads", "{}", r.out);
        assert_eq!(pair[0].1, pair[1].1);
        assert!(!pair[0].2.last().expect("columns").ends_with('×'));
        assert!(
            pair[1].2.last().expect("columns").ends_with('×'),
            "{}",
            r.out
        );
    }
    let j = urchin(&[
        "bench",
        p,
        "-e",
        "sumsq",
        "--runs",
        "1",
        "--threads",
        "2",
        "--json",
    ]);
    assert_eq!(j.code, Some(0), "{}{}", j.out, j.err);
    assert_eq!(j.out.matches("\"speedup\": ").count(), 5, "{}", j.out);
    assert_eq!(j.out.matches("\"backend\": \"2 threads\"").count(), 5);
    let r = urchin(&["bench", p, "--threads", "0"]);
    assert_eq!(r.code, Some(2), "{}", r.err);
}

#[test]
fn failures_are_reported() {
    let (_dir, path) = program(
        "-- ==\n-- input { [1.0] }\n-- output { 2.0 }\n-- input { [1.0, 2.0] }\n-- input @ missing.in\n\
         entry main (xs: []f64) = f64.sum xs + xs[1]\n",
    );
    let r = urchin(&["bench", path.to_str().expect("UTF-8 path"), "--runs", "1"]);
    assert_eq!(r.code, Some(1), "{}{}", r.out, r.err);
    // The first case fails at run time, the last cannot be loaded; the
    // second is measured and labelled as itself.
    let names: Vec<String> = rows(&r.out).into_iter().map(|(_, d, _)| d).collect();
    assert_eq!(names, ["{ [1.0, 2.0] }"], "{}", r.out);
    assert!(
        r.err
            .contains("p.fut:2: entry `main` case 0: run-time error: Error: run-time error: Index [1] out of bounds"),
        "{}",
        r.err
    );
    assert!(
        r.err
            .contains("p.fut:5: entry `main` case 2: input: cannot read"),
        "{}",
        r.err
    );
    assert!(
        r.err.ends_with("1 passed, 2 failed, 0 skipped\n"),
        "{}",
        r.err
    );

    let (_bad_dir, bad) = program("entry main (x: i32) = x +\n");
    let r = urchin(&["bench", bad.to_str().expect("UTF-8 path")]);
    assert_eq!(r.code, Some(1));
    assert!(r.err.contains("does not compile"), "{}", r.err);
    assert_eq!(r.out, "");

    let r = urchin(&["bench", bad.to_str().expect("UTF-8 path"), "--runs", "0"]);
    assert_eq!(r.code, Some(2), "{}", r.err);
    let r = urchin(&["bench"]);
    assert_eq!(r.code, Some(1));
    assert!(r.err.contains("give at least one file"), "{}", r.err);
}
