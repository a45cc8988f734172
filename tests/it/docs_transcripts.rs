//! The REPL transcripts in the user documentation (`docs/*.md`, the
//! README), replayed through the REPL engine so that they cannot drift
//! from what urchin prints.
//!
//! A transcript is a fenced code block whose first line starts with the
//! prompt `urchin> `. Each file is one session: its transcripts run in
//! order, so a later one may use what an earlier one defined. The block
//! must read exactly as the session prints it (the prompt and the input,
//! then the output), except that times and time ratios are wildcards,
//! `<repl:N>` input numbers are not compared, and a line `...` stands for
//! any number of lines (a long listing cut short). Two HTML comments on the
//! line before a fence steer the replay: `<!-- file: NAME -->` writes the
//! block to a file `NAME` that transcripts may `:load` (wherever the
//! block is in the file), and
//! `<!-- unchecked -->` leaves a transcript out (one whose output depends
//! on the machine, such as `:device`).

use regex::Regex;
use std::path::Path;
use std::sync::LazyLock;
use urchin::repl::{Repl, Status};

/// A fenced block, with the steering comment before it.
struct Block {
    /// The line of the opening fence (1-based), for messages.
    line: usize,
    directive: Option<String>,
    text: String,
}

fn blocks(md: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut lines = md.lines().enumerate().peekable();
    let mut before: Option<&str> = None;
    while let Some((i, l)) = lines.next() {
        // A fence may be indented (a block inside a list item).
        let indent = l.len() - l.trim_start().len();
        if !l.trim_start().starts_with("```") {
            if !l.trim().is_empty() {
                before = Some(l.trim());
            }
            continue;
        }
        let mut text = String::new();
        for (_, l) in lines.by_ref() {
            if l.trim_start().starts_with("```") {
                break;
            }
            let blank = l.len() - l.trim_start().len();
            text.push_str(&l[blank.min(indent)..]);
            text.push('\n');
        }
        let directive = before
            .and_then(|b| b.strip_prefix("<!--"))
            .and_then(|b| b.strip_suffix("-->"))
            .map(|b| b.trim().to_string());
        out.push(Block {
            line: i + 1,
            directive,
            text,
        });
        before = None;
    }
    out
}

/// The inputs of a transcript: its prompt and continuation lines.
fn inputs(text: &str) -> Vec<&str> {
    text.lines()
        .filter_map(|l| {
            l.strip_prefix("urchin> ")
                .or_else(|| l.strip_prefix("urchin| "))
                .or_else(|| (l == "urchin|").then_some(""))
        })
        .collect()
}

/// Times, ratios and input numbers made wildcards; trailing blanks gone.
fn normalise(text: &str) -> String {
    static TIME: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\d+(\.\d+)?\s?(ms|µs|ns|s)\b").expect("a valid regex"));
    static RATIO: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\d+(\.\d+)?×").expect("a valid regex"));
    static INPUT: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"<repl:\d+>").expect("a valid regex"));
    let t = TIME.replace_all(text, "<time>");
    let t = RATIO.replace_all(&t, "<ratio>×");
    let t = INPUT.replace_all(&t, "<repl:N>");
    t.lines().map(str::trim_end).collect::<Vec<_>>().join("\n")
}

/// Whether `got` reads as `want`, where a line `...` in `want` stands for
/// any number of lines (a listing cut short).
fn matches(want: &[String], got: &[String]) -> bool {
    match want.split_first() {
        None => got.is_empty(),
        Some((w, rest)) if w == "..." => (0..=got.len()).any(|k| matches(rest, &got[k..])),
        Some((w, rest)) => got.first() == Some(w) && matches(rest, &got[1..]),
    }
}

/// Replays the transcripts of one Markdown file; the differences found.
/// With `URCHIN_UPDATE_DOCS=1`, a transcript that differs (and cuts
/// nothing short with `...`) is rewritten in the file as the REPL prints
/// it instead; read the diff before committing it.
fn replay(path: &Path, scratch: &Path) -> Vec<String> {
    let md = std::fs::read_to_string(path).expect("read a documentation file");
    let update = std::env::var("URCHIN_UPDATE_DOCS").is_ok_and(|v| v == "1");
    let mut updated = md.clone();
    let mut repl = Repl::new(false);
    // Files are named as the documentation names them, and loaded from
    // the scratch directory (a `:cd` would move every test's directory).
    let dir = format!("{}/", scratch.display());
    let blocks = blocks(&md);
    // Files first: a transcript may load one the text shows further on.
    for b in &blocks {
        if let Some(name) = b.directive.as_deref().and_then(|d| d.strip_prefix("file:")) {
            std::fs::write(scratch.join(name.trim()), &b.text).expect("write a documentation file");
        }
    }
    let mut failures = Vec::new();
    for b in blocks {
        if b.directive.is_some() || !b.text.starts_with("urchin> ") {
            continue;
        }
        let mut out = String::new();
        for input in inputs(&b.text) {
            out.push_str(repl.prompt());
            out.push_str(input);
            out.push('\n');
            let fed = match input.split_once(' ') {
                Some((":load" | ":l", f)) if scratch.join(f.trim()).exists() => {
                    format!(":load {dir}{}", f.trim())
                }
                _ => input.to_string(),
            };
            if repl.feed(&fed, &mut out) == Status::Quit {
                break;
            }
        }
        let out = out.replace(&dir, "");
        let (want, got) = (normalise(&b.text), normalise(&out));
        let lines = |t: &str| t.lines().map(str::to_string).collect::<Vec<_>>();
        if !matches(&lines(&want), &lines(&got)) {
            if update && !want.lines().any(|l| l == "...") && updated.contains(&b.text) {
                updated = updated.replacen(&b.text, &out, 1);
                continue;
            }
            failures.push(format!(
                "{}:{}: the transcript reads\n{want}\nbut the REPL prints\n{out}<<<\n",
                path.display(),
                b.line
            ));
        }
    }
    if updated != md {
        std::fs::write(path, updated).expect("write an updated documentation file");
    }
    failures
}

#[test]
fn documentation_transcripts_match_the_repl() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("README.md")];
    let mut docs: Vec<_> = std::fs::read_dir(root.join("docs"))
        .expect("read docs/")
        .map(|e| e.expect("a docs/ entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    let mut failures = Vec::new();
    let mut checked = 0;
    for f in &files {
        let name = f.file_stem().expect("a file name").to_string_lossy();
        let scratch = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join("docs")
            .join(name.as_ref());
        let _ = std::fs::remove_dir_all(&scratch);
        std::fs::create_dir_all(&scratch).expect("create a scratch directory");
        let md = std::fs::read_to_string(f).expect("read a documentation file");
        checked += blocks(&md)
            .iter()
            .filter(|b| b.text.starts_with("urchin> "))
            .count();
        failures.extend(replay(f, &scratch));
    }
    assert!(checked > 20, "only {checked} transcripts found in the docs");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn transcripts_are_read_from_fenced_blocks() {
    let md = "text\n<!-- file: a.fut -->\n```\ndef x = 1\n```\n\n```\nurchin> x\n1\nurchin> :{\nurchin|\nurchin| :}\n```\n";
    let bs = blocks(md);
    assert_eq!(bs.len(), 2);
    assert_eq!(bs[0].directive.as_deref(), Some("file: a.fut"));
    assert_eq!(bs[1].directive, None);
    assert_eq!(inputs(&bs[1].text), vec!["x", ":{", "", ":}"]);
    let l = |t: &[&str]| t.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert!(matches(&l(&["a", "...", "d"]), &l(&["a", "b", "c", "d"])));
    assert!(matches(&l(&["a", "..."]), &l(&["a"])));
    assert!(!matches(&l(&["a", "...", "d"]), &l(&["a", "b"])));
    assert_eq!(
        normalise("time: 46.5 ms (run 3 µs, 3.3× the function)  \n<repl:7>"),
        "time: <time> (run <time>, <ratio>× the function)\n<repl:N>"
    );
}
