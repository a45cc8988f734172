//! `urchin run` prints values as Futhark does. From Futhark's own test
//! programs (`../shared/futhark-tests/lang`), the first case of each file
//! whose `output` block is written in Futhark's format (each value's text
//! exactly as Futhark prints that value: `[1i32, 2i32]`, `4.0f32`,
//! `9.7216845e-2f32`, `empty([0]i64)`) is run by `urchin run`; where its
//! results are the expected values exactly, the output must be the
//! block's values byte for byte, one per line.

use libtest_mimic::Trial;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use urchin::testing::blocks::{CaseInput, Expect, parse_test_spec};
use urchin_base::source::FileId;
use urchin_runtime::value::Value;
use urchin_runtime::values::{ValueType, format_value_futhark, parse_values};
use urchin_test_env::harness::{Need, case, shared_path};

/// The text of each value of an `output` block, if every one is written
/// as Futhark prints it.
fn futhark_written(block: &str) -> Option<Vec<String>> {
    let values = parse_values(block, FileId(0), 0).ok()?;
    values
        .iter()
        .map(|v| {
            let text = block.get(v.span().range())?;
            let value = v.to_value(None).ok()?;
            (format_value_futhark(&value) == text).then(|| text.to_string())
        })
        .collect::<Option<Vec<String>>>()
        .filter(|texts| !texts.is_empty())
}

/// Whether the values printed are exactly those of the block, bit for
/// bit (`-0.0` is not `0.0` here, although a test's comparison accepts
/// it).
fn same_values(printed: &str, block: &str) -> bool {
    let (Ok(got), Ok(want)) = (
        parse_values(printed, FileId(0), 0),
        parse_values(block, FileId(0), 0),
    ) else {
        return false;
    };
    let elements = |v: &Value| match v {
        Value::Scalar(s) => vec![*s],
        Value::Array(a) => a.to_scalars(),
        _ => Vec::new(),
    };
    got.len() == want.len()
        && got
            .iter()
            .zip(&want)
            .all(|(g, w)| match (g.to_value(None), w.to_value(None)) {
                (Ok(g), Ok(w)) => {
                    ValueType::of(&g) == ValueType::of(&w)
                        && g.array().map(|a| a.shape()) == w.array().map(|a| a.shape())
                        && elements(&g)
                            .iter()
                            .zip(elements(&w))
                            .all(|(x, y)| x.same(y))
                }
                _ => false,
            })
}

/// Standard output of `urchin run FILE -e ENTRY` on `input`, if it succeeds.
fn run(file: &Path, entry: &str, input: &str) -> Option<String> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_urchin"))
        .args(["--device", "none", "run"])
        .arg(file)
        .args(["-e", entry])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("urchin runs");
    let mut stdin = child.stdin.take().expect("a pipe");
    let input = input.to_string();
    // Written from a thread, so a large input cannot block on a full pipe.
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().expect("urchin runs");
    let _ = writer.join();
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

fn urchin_run_prints_values_as_futhark_does() {
    let dir = shared_path("futhark-tests/lang");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("the folder reads")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "fut"))
        .collect();
    files.sort();
    let (mut equal, mut other_values) = (0, 0);
    let mut differ = Vec::new();
    for file in files {
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        let Ok(spec) = parse_test_spec(&text, FileId(0)) else {
            continue;
        };
        if spec.disabled() {
            continue;
        }
        let case = spec
            .blocks
            .iter()
            .filter(|b| b.compile_error.is_none())
            .flat_map(|b| b.cases.iter().map(move |c| (b, c)))
            .find_map(|(b, c)| match (&c.input, &c.expect) {
                (CaseInput::Values(input, _), Expect::Output(output, _)) if !c.compiled_only => {
                    Some((b, input, futhark_written(output)?, output))
                }
                _ => None,
            });
        let Some((block, input, expected, output)) = case else {
            continue;
        };
        let entry = block.entries.first().map_or("main", String::as_str);
        let Some(printed) = run(&file, entry, input) else {
            continue;
        };
        let want = expected.join("\n") + "\n";
        if printed == want {
            equal += 1;
        } else if same_values(&printed, output) {
            differ.push(format!(
                "{}: printed\n{printed}expected\n{want}",
                file.display()
            ));
        } else {
            // Not the same numbers (within the test's tolerance, say):
            // the text cannot be compared.
            other_values += 1;
        }
    }
    assert!(
        differ.is_empty(),
        "the same values printed otherwise than Futhark prints them:\n{}",
        differ.join("\n")
    );
    assert!(
        equal >= 100,
        "only {equal} cases were compared ({other_values} had other values)"
    );
    let _ = writeln!(
        std::io::stderr(),
        "note: {equal} cases printed byte for byte as their output blocks \
         ({other_values} computed other values)"
    );
}

pub fn trials() -> Vec<Trial> {
    vec![case(
        "futhark_format::urchin_run_prints_values_as_futhark_does",
        vec![Need::shared("futhark-tests/lang")],
        urchin_run_prints_values_as_futhark_does,
    )]
}
