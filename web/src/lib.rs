//! urchin in the browser: the REPL engine ([`urchin::repl::Repl`])
//! compiled to WebAssembly, and what the page's Web Worker calls
//! (`web/static/worker.js`). Answers travel as JSON strings: a reply is
//! the input's results and figures in order (figures as SVG), its errors
//! and warnings (with ANSI colours, which the page turns into styles), and
//! what the page needs to restore the session in a fresh worker after a
//! Stop (whether the input defined something).
//!
//! Evaluation is single-threaded here (a browser cannot spawn rayon's
//! threads; results never depend on the count), and the memory limit of
//! `urchin_base::mem` applies to the whole module's memory, counted by the
//! global allocator as in the `urchin` binary.

use serde_json::{Value as Json, json};
use urchin::literate::parse::{Block, blocks};
use urchin::plot::{Figure, Size, file};
use urchin::repl::{Capture, Piece, Repl, Status};
use urchin_base::source::FileId;
use urchin_syntax::ReplInput;
use wasm_bindgen::prelude::*;

/// Counts the bytes the module holds, so that the memory limit is one for
/// the whole page's session (see `urchin_base::mem`).
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOC: urchin_base::mem::Counting = urchin_base::mem::Counting;

// A panic aborts a WebAssembly module (there is no unwinding), so the
// REPL cannot catch it as the terminal's does: the panic hook hands its
// message to the worker (`urchinPanicked`, which worker.js defines),
// which reports it after the trap and starts afresh.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = globalThis, js_name = urchinPanicked)]
    fn panicked(message: &str);
}

/// A REPL session, as the page's worker holds it.
#[wasm_bindgen]
pub struct Playground {
    repl: Repl,
    /// The lines of the input read so far (several while it is incomplete).
    input: String,
}

#[wasm_bindgen]
impl Playground {
    /// A session with the prelude loaded, whose arrays may take up to
    /// `max_memory` bytes (0: the default limit).
    #[wasm_bindgen(constructor)]
    pub fn new(max_memory: f64) -> Playground {
        #[cfg(target_arch = "wasm32")]
        std::panic::set_hook(Box::new(|info| panicked(&info.to_string())));
        // The page shows colours itself; there is no terminal to ask.
        colored::control::set_override(true);
        let mut host = urchin::host::Host::default();
        host.set_threads(1);
        if max_memory >= 1.0 {
            host.memory = urchin_base::mem::Budget::new(max_memory as usize);
        }
        Playground {
            repl: Repl::with_host(true, host),
            input: String::new(),
        }
    }

    /// Reads a line of input (or several); runs the input once it is
    /// complete. The reply's `status` is `more` while it is not.
    pub fn feed(&mut self, line: &str) -> String {
        if !self.input.is_empty() {
            self.input.push('\n');
        }
        self.input.push_str(line);
        let before = self.repl.failures();
        let mut out = Capture::default();
        let status = self.repl.feed(line, &mut out);
        let text = match status {
            Status::More => return reply("more", false, false, out),
            Status::Ready | Status::Quit => std::mem::take(&mut self.input),
        };
        let failed = self.repl.failures() > before;
        let defines = !failed && defines(&text);
        let status = if status == Status::Quit {
            "quit"
        } else {
            "ready"
        };
        reply(status, failed, defines, out)
    }

    /// Forgets an incomplete input; returns whether there was one.
    pub fn cancel(&mut self) -> bool {
        self.input.clear();
        self.repl.cancel()
    }

    /// Loads a whole program (the editor's) in place of the current one,
    /// as `:load` does with a file.
    pub fn load(&mut self, name: &str, text: &str) -> String {
        self.input.clear();
        let mut out = Capture::default();
        let failed = self.repl.load_text(name, text, &mut out).is_err();
        reply("ready", failed, !failed, out)
    }

    /// The directives (`-- > :plot2d (xs, ys)`) of a lesson written for
    /// `urchin literate`, in order: `[{line, command}]`, for the page to
    /// offer as steps to run at the prompt.
    pub fn directives(&self, text: &str) -> String {
        let steps: Vec<Json> = blocks(text, &|t| self.repl.incomplete(t))
            .into_iter()
            .filter_map(|b| match b {
                Block::Directive(d) => Some(json!({ "line": d.line, "command": d.command })),
                _ => None,
            })
            .collect();
        Json::Array(steps).to_string()
    }

    /// The prompt for the next line (`urchin> `, or `urchin| ` while an
    /// input is incomplete).
    pub fn prompt(&self) -> String {
        self.repl.prompt().to_string()
    }

    /// Completions at character `pos` of `line`: `{start, candidates}`,
    /// `start` in characters too (as JavaScript counts them, in UTF-16
    /// units).
    pub fn complete(&self, line: &str, pos: usize) -> String {
        let byte = utf16_to_byte(line, pos);
        let (start, candidates) = self.repl.completions(line, byte);
        json!({
            "start": byte_to_utf16(line, start),
            "candidates": candidates,
        })
        .to_string()
    }
}

/// `line` with ANSI colours for its tokens, as the terminal highlights
/// what is typed (the page echoes inputs this way).
#[wasm_bindgen]
pub fn highlight(line: &str) -> String {
    colored::control::set_override(true);
    urchin::repl::highlight::highlight(line, true)
}

/// Runs the test blocks of a program given as text and returns the report
/// `urchin test --verbose` prints for it, so that a test can compare the
/// browser's build with the native binary on the same programs.
#[wasm_bindgen]
pub fn test_program(name: &str, text: &str) -> String {
    use urchin::testing::engine::FastEngine;
    use urchin::testing::runner::{RunnerOptions, run_text};
    let opts = RunnerOptions {
        verbose: true,
        ..Default::default()
    };
    let mut out = Vec::new();
    let mut engine = FastEngine::default();
    // Writing to a vector cannot fail.
    let _ = run_text(name, text, &mut engine, &opts, &mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// Whether a complete input defines something that a fresh session needs
/// to be as this one (a declaration or a binding; not an expression, whose
/// `it` is not restored, nor a command).
fn defines(input: &str) -> bool {
    let text = match input.trim().strip_prefix(":{") {
        Some(block) => block.trim_end().strip_suffix(":}").unwrap_or(block),
        None => input,
    };
    if text.trim_start().starts_with(':') {
        return false;
    }
    matches!(
        urchin_syntax::parse_repl(text, FileId(0)),
        Ok(ReplInput::Decs(_) | ReplInput::Bind(..))
    )
}

fn reply(status: &str, failed: bool, defines: bool, out: Capture) -> String {
    let pieces: Vec<Json> = out
        .pieces
        .into_iter()
        .map(|p| match p {
            Piece::Text(t) => json!({ "text": t }),
            Piece::Figure(fig) => figure(&fig),
        })
        .collect();
    json!({
        "status": status,
        "failed": failed,
        "defines": defines,
        "pieces": pieces,
        "errors": out.errors,
    })
    .to_string()
}

/// A figure as inline SVG (an image is a PNG inside it).
fn figure(fig: &Figure) -> Json {
    match file::svg(fig, Size::FILE) {
        Ok(svg) => json!({ "svg": svg }),
        Err(why) => json!({ "text": format!("{why}\n") }),
    }
}

fn utf16_to_byte(s: &str, units: usize) -> usize {
    let mut n = 0;
    for (i, c) in s.char_indices() {
        if n >= units {
            return i;
        }
        n += c.len_utf16();
    }
    s.len()
}

fn byte_to_utf16(s: &str, byte: usize) -> usize {
    s.get(..byte)
        .unwrap_or(s)
        .chars()
        .map(char::len_utf16)
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(reply: &str) -> Json {
        serde_json::from_str(reply).expect("a reply is JSON")
    }

    /// The reply's text, without the colours.
    fn text(reply: &Json) -> String {
        let coloured: String = reply["pieces"]
            .as_array()
            .expect("pieces")
            .iter()
            .filter_map(|p| p["text"].as_str())
            .collect();
        plain(&coloured)
    }

    fn plain(s: &str) -> String {
        let mut out = String::new();
        let mut chars = s.chars();
        while let Some(c) = chars.next() {
            if c == '\x1b' {
                // An escape sequence ends with its letter (`\x1b[1;34m`).
                chars.by_ref().find(char::is_ascii_alphabetic);
            } else {
                out.push(c);
            }
        }
        out
    }

    #[test]
    fn values_definitions_and_errors() {
        let mut p = Playground::new(0.0);
        let r = parsed(&p.feed("[1, 2, 3] + 1"));
        assert_eq!(r["status"], "ready");
        assert_eq!(r["failed"], false);
        assert_eq!(r["defines"], false);
        assert!(text(&r).contains("[2, 3, 4]"), "{r}");
        let r = parsed(&p.feed("def f (x: f64) ="));
        assert_eq!(r["status"], "more");
        assert_eq!(p.prompt(), urchin::repl::CONTINUATION_PROMPT);
        let r = parsed(&p.feed("  x * x"));
        assert_eq!(
            (r["failed"].clone(), r["defines"].clone()),
            (false.into(), true.into())
        );
        let r = parsed(&p.feed(":type f"));
        assert!(text(&r).contains("f64 -> f64"), "{r}");
        let r = parsed(&p.feed("f true"));
        assert_eq!(r["failed"], true);
        assert!(plain(r["errors"].as_str().unwrap()).contains("f64"), "{r}");
    }

    #[test]
    fn plots_are_svg() {
        let mut p = Playground::new(0.0);
        let r = parsed(&p.feed(":plot (\\x -> x * x) -1.0 1.0 --grad"));
        let svg = r["pieces"][0]["svg"].as_str().expect("an SVG");
        assert!(svg.starts_with("<svg"), "{svg}");
    }

    #[test]
    fn a_loaded_program_replaces_the_definitions() {
        let mut p = Playground::new(0.0);
        p.feed("def g = 1");
        let r = parsed(&p.load("editor.fut", "def h (x: i32) = x + 1"));
        assert_eq!(
            (r["failed"].clone(), r["defines"].clone()),
            (false.into(), true.into())
        );
        assert!(text(&r).contains("loaded editor.fut (1 definition)"), "{r}");
        assert_eq!(text(&parsed(&p.feed("h 1"))), "2\n");
        assert_eq!(parsed(&p.feed("g"))["failed"], true);
        let r = parsed(&p.load("editor.fut", "def h = +"));
        assert_eq!(r["failed"], true);
        assert_eq!(parsed(&p.feed("h 1"))["failed"], false);
    }

    #[test]
    fn a_lessons_directives_are_its_steps() {
        let p = Playground::new(0.0);
        let text =
            "-- A lesson.\n\ndef f (x: f64) = x\n\n-- > :plot2d (f 1.0,\n--   2.0)\n\n-- > f 2.0\n";
        let r = parsed(&p.directives(text));
        assert_eq!(
            r,
            json!([
                { "line": 5, "command": ":plot2d (f 1.0,\n  2.0)" },
                { "line": 8, "command": "f 2.0" }
            ])
        );
    }

    #[test]
    fn what_defines() {
        assert!(defines("def f x = x"));
        assert!(defines("let x = 1"));
        assert!(defines("let (a, b) = (1, 2)"));
        assert!(defines("type t = i32"));
        assert!(defines(":{\ndef f x =\n  x\n:}"));
        assert!(!defines("let x = 1 in x"));
        assert!(!defines("1 + 2"));
        assert!(!defines(":type 1"));
    }

    #[test]
    fn completion_counts_characters_as_javascript_does() {
        let p = Playground::new(0.0);
        let line = "\"é\" f64.sq";
        let r = parsed(&p.complete(line, line.chars().count()));
        assert_eq!(r["start"], 4);
        assert!(
            r["candidates"]
                .as_array()
                .unwrap()
                .iter()
                .any(|c| c == "f64.sqrt"),
            "{r}"
        );
    }

    #[test]
    fn test_blocks_report_as_urchin_test_does() {
        let report = test_program(
            "t.fut",
            "-- ==\n-- input { 2 }\n-- output { 3 }\nentry main (x: i32) = x + 1\n",
        );
        assert_eq!(
            report,
            "t.fut:2: entry `main` case 0: ok\n1 passed, 0 failed, 0 skipped\n"
        );
    }
}
