//! `urchin literate`, run as a user runs it: the lesson in `examples/`
//! renders to exactly the Markdown committed beside it (so the handout
//! never goes stale), with its figures; a failing directive is marked in
//! the document or, with `--stop-on-error`, stops the run; `:gnuplot`
//! without gnuplot says so in the document.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A fresh directory for one test's files.
fn scratch(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("literate")
        .join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create a scratch directory");
    dir
}

fn literate(args: &[&Path], path_env: Option<&Path>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_urchin"));
    cmd.arg("literate").args(args);
    if let Some(p) = path_env {
        cmd.env("PATH", p);
    }
    cmd.output().expect("urchin runs")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn the_lesson_renders_to_its_committed_markdown() {
    let dir = scratch("lesson");
    let md = dir.join("gradient-descent.md");
    let program = repo().join("examples/gradient-descent.fut");
    let out = literate(&[&program, Path::new("-o"), &md], None);
    assert!(out.status.success(), "{out:?}");
    let committed = read(&repo().join("examples/gradient-descent.md"));
    let rendered = read(&md);
    assert_eq!(
        rendered, committed,
        "examples/gradient-descent.md is not what `urchin literate examples/gradient-descent.fut` writes: run it and commit the result"
    );
    // Every image the document shows is there, and is a chart.
    let images: Vec<&str> = rendered
        .lines()
        .filter_map(|l| l.strip_prefix("![](")?.strip_suffix(')'))
        .collect();
    assert_eq!(images.len(), 4, "{rendered}");
    for img in images {
        let svg = read(&dir.join(img));
        assert!(svg.starts_with("<svg"), "{img} is not an SVG");
    }
}

const FAILING: &str = "\
-- Text.

def f (x: f64) = x * 2

-- > f 2

-- > nope 1

-- > :img [[0.0, 1], [1, 0]]
";

#[test]
fn failing_directives_are_marked_or_stop_the_run() {
    let dir = scratch("failing");
    let program = dir.join("doc.fut");
    std::fs::write(&program, FAILING).expect("write the program");
    let out = literate(&[&program], None);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("1 directive failed"), "{stderr}");
    let md = read(&dir.join("doc.md"));
    assert!(md.starts_with("Text.\n"), "{md}");
    assert!(md.contains("```\n> f 2\n```\n\n```\n4.0\n```\n"), "{md}");
    assert!(md.contains("> nope 1\n```\n\n**FAILED**\n```\n"), "{md}");
    assert!(md.contains("Unknown name \"nope\""), "{md}");
    // The directive after the failure still ran: a PNG image.
    assert!(md.contains("![](doc-img/1.png)"), "{md}");
    let png = std::fs::read(dir.join("doc-img/1.png")).expect("the image");
    assert!(png.starts_with(b"\x89PNG"));

    std::fs::remove_file(dir.join("doc.md")).expect("remove the document");
    let out = literate(&[Path::new("--stop-on-error"), &program], None);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("doc.fut:7: the directive failed"),
        "{stderr}"
    );
    assert!(
        !dir.join("doc.md").exists(),
        "--stop-on-error wrote the document"
    );
}

#[test]
fn gnuplot_without_gnuplot_says_so() {
    let dir = scratch("gnuplot");
    let program = dir.join("g.fut");
    std::fs::write(
        &program,
        "-- > :gnuplot {xs = ([1.0, 2], [3.0, 4])};\n-- plot xs with lines\n",
    )
    .expect("write the program");
    // An empty PATH: no gnuplot to be found.
    let empty = dir.join("no-programs");
    std::fs::create_dir_all(&empty).expect("create a directory");
    let out = literate(&[&program], Some(&empty));
    assert!(out.status.success(), "{out:?}");
    let md = read(&dir.join("g.md"));
    assert!(
        md.contains("drawn by gnuplot, which is not installed here"),
        "{md}"
    );
}
