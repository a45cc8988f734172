//! Whole programs: the shared corpus (and this repository's own programs)
//! parse, print back to themselves, and survive truncation anywhere.

use crate::support::spans_in_range;
use std::path::PathBuf;
use urchin::driver::Session;
use urchin::testing::runner::fut_files;
use urchin_base::diag::Diagnostic;
use urchin_base::source::{FileId, SourceMap};
use urchin_syntax::ast::{Dec, Erase, Program};
use urchin_syntax::{is_incomplete, parse_program, parse_repl, pretty};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn corpus() -> Option<Vec<PathBuf>> {
    let dir = urchin_test_env::shared_data("corpus")?;
    fut_files(&dir).ok()
}

/// Programs that must parse: the shared corpus, and this repository's
/// own test programs and prelude where they exist.
fn all_programs() -> Vec<PathBuf> {
    let mut files = corpus().unwrap_or_default();
    for dir in ["tests/programs", "prelude"] {
        files.extend(fut_files(&root().join(dir)).unwrap_or_default());
    }
    files
}

/// Whether the file's test blocks expect it not to compile.
fn expects_compile_error(text: &str) -> bool {
    urchin::testing::blocks::parse_test_spec(text, FileId(0))
        .is_ok_and(|spec| spec.blocks.iter().any(|b| b.compile_error.is_some()))
}

fn show(ds: &[Diagnostic], name: &str, text: &str) -> String {
    let mut sm = SourceMap::new();
    sm.add(name, text);
    urchin_base::diag::render_all(ds, &sm, false)
}

#[test]
fn corpus_parses_and_round_trips() {
    let Some(files) = corpus() else {
        return;
    };
    assert!(!files.is_empty(), "the corpus has .fut files");
    for path in files.iter().chain(all_programs().iter()) {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).expect("readable");
        let prog = match parse_program(&text, FileId(0)) {
            Ok(p) => p,
            // A program meant not to compile may fail to parse.
            Err(_) if expects_compile_error(&text) => continue,
            Err(ds) => panic!("{}", show(&ds, &name, &text)),
        };
        let printed = pretty::program(&prog);
        let again = parse_program(&printed, FileId(0))
            .unwrap_or_else(|ds| panic!("reprinted {name}:\n{}", show(&ds, &name, &printed)));
        assert_eq!(again.erase(), prog.erase(), "{name} printed as:\n{printed}");
        assert_eq!(
            pretty::program(&again),
            printed,
            "printing {name} is not stable"
        );
    }
}

/// Loads a prefix of a program, `parsed`, as `Session::load` would into
/// `prelude`, resuming from `checked`: the definitions of the previous
/// prefix loaded, each with the session after it. Loading checks the
/// definitions in order, each against the state the ones above it left,
/// so the leading definitions equal (erased) to the previous prefix's
/// would be checked exactly as before: only the rest are checked. (The
/// checker reads no source text, so the file the spans name is moot.)
fn load_prefix(prelude: &Session, checked: &mut Vec<(Dec, Session)>, parsed: Program) {
    let same = checked
        .iter()
        .zip(&parsed.decs)
        .take_while(|((done, _), d)| *done == d.erase())
        .count();
    checked.truncate(same);
    let mut session = checked
        .last()
        .map_or_else(|| prelude.clone(), |(_, s)| s.clone());
    for d in parsed.decs.into_iter().skip(same) {
        let erased = d.erase();
        if session.load_ast(&Program { decs: vec![d] }).is_err() {
            break;
        }
        checked.push((erased, session.clone()));
    }
}

#[test]
fn truncated_programs_never_panic() {
    // Prefixes that parse go on to the checker (`load_prefix`).
    let prelude = Session::new();
    for path in all_programs() {
        let text = std::fs::read_to_string(&path).expect("readable");
        let mut checked = Vec::new();
        for cut in (0..=text.len())
            .step_by(7)
            .filter(|&i| text.is_char_boundary(i))
        {
            let part = &text[..cut];
            match parse_program(part, FileId(0)) {
                Err(ds) => assert!(
                    spans_in_range(&ds, cut),
                    "{}: cut at {cut}: {ds:?}",
                    path.display()
                ),
                Ok(parsed) => load_prefix(&prelude, &mut checked, parsed),
            }
            if let Err(ds) = parse_repl(part, FileId(0)) {
                assert!(
                    spans_in_range(&ds, cut),
                    "{}: cut at {cut}: {ds:?}",
                    path.display()
                );
            }
            is_incomplete(part);
        }
    }
}

#[test]
fn layout_is_futhark_style() {
    let src = "entry collatz (n: i32) = let (_, steps) = loop (x, steps) = (n, 0) while x != 1 do if x % 2 == 0 then (x / 2, steps + 1) else (3 * x + 1, steps + 1) in steps\n\
               def f (xs: []f64) = vjp (\\xs -> let z = map (\\x -> x * x) xs in f64.sum z) xs 1\n\
               def g x = if x > 0 then let y = x in y else 0\n\
               entry h (xs: []i32) = (reverse xs, rotate 2 xs, take 2 xs, drop 2 xs, all (> 0) xs, any (> 10) xs, length xs)";
    let prog = parse_program(src, FileId(0)).expect("parses");
    let want = "\
entry collatz (n: i32) =
  let (_, steps) =
    loop (x, steps) = (n, 0) while x != 1 do
      if x % 2 == 0 then (x / 2, steps + 1) else (3 * x + 1, steps + 1)
  in steps

def f (xs: []f64) =
  vjp (\\xs ->
    let z = map (\\x -> x * x) xs
    in f64.sum z) xs 1

def g x =
  if x > 0
  then
    let y = x
    in y
  else 0

entry h (xs: []i32) =
  ( reverse xs
  , rotate 2 xs
  , take 2 xs
  , drop 2 xs
  , all (> 0) xs
  , any (> 10) xs
  , length xs )
";
    assert_eq!(pretty::program(&prog), want);
}
