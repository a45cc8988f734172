//! What a front end other than the terminal asks the engine without
//! running anything: completions at a cursor, and what a name is (its
//! type and doc comment), for a notebook's Tab and Shift-Tab.

use super::complete::{Completion, complete};
use super::{Repl, single_name};
use crate::driver::Session;
use urchin_syntax::ast::QualName;
use urchin_types::env::{Global, GlobalKind};

impl Repl {
    /// The completions at byte `pos` of the input line `line`: where the
    /// word being completed starts, and its candidates (file names for the
    /// argument of `:load`).
    pub fn completions(&self, line: &str, pos: usize) -> (usize, Vec<String>) {
        match complete(line, pos, &self.names()) {
            Completion::Words { start, candidates } => (start, candidates),
            #[cfg(feature = "terminal")]
            Completion::Path => {
                match rustyline::completion::FilenameCompleter::new().complete_path(line, pos) {
                    Ok((start, pairs)) => {
                        (start, pairs.into_iter().map(|p| p.replacement).collect())
                    }
                    Err(_) => (pos, Vec::new()),
                }
            }
            // No file system to complete from (the browser).
            #[cfg(not(feature = "terminal"))]
            Completion::Path => (pos, Vec::new()),
        }
    }

    /// What `name` is: `name : type` (a type abbreviation's definition,
    /// a module's members), then its doc comment if it has one.
    pub fn describe(&self, name: &str) -> Option<String> {
        let q = single_name(name)?;
        if let Some(g) = self.session.lookup_value(&q) {
            let mut text = describe_global(&self.session, &q, &g);
            if let (GlobalKind::Value(_), Some(def)) =
                (&g.kind, self.value_defs.get(&q.to_string()))
            {
                text.push_str(&format!("\n\nbound at the prompt: {def}"));
            }
            return Some(text);
        }
        if let Some(a) = self.session.lookup_type(&q) {
            return Some(self.type_line(&q.to_string(), &a));
        }
        let mut path = q.quals.clone();
        path.push(q.name.clone());
        let m = self.session.lookup_module(&path)?;
        Some(self.module_lines(&q.to_string(), &m).join("\n"))
    }
}

/// What a global is: `name : type` (with its declared size names), then
/// its doc comment, or that it is built in. The notebook's inspection and
/// the language server's hover show this.
pub fn describe_global(session: &Session, q: &QualName, g: &Global) -> String {
    let mut text = format!("{q} : {}", super::global_type(session, &q.name, g));
    match g.kind {
        GlobalKind::Def(id) => {
            if let Some(doc) = &session.def(id).source.doc {
                text.push_str(&format!("\n\n{doc}"));
            }
        }
        GlobalKind::Intrinsic(_) => text.push_str("\n\nbuilt in"),
        GlobalKind::Value(_) | GlobalKind::Param => {}
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptions_have_the_type_and_the_doc() {
        let mut r = Repl::new(false);
        let mut out = String::new();
        // One input, as a notebook cell or a file gives it (at the prompt,
        // a comment line is an input of its own).
        r.run_input(
            "-- | The square.\ndef sq (x: f64) = x * x",
            "<test>",
            &mut out,
        )
        .expect("defines sq");
        r.feed("type pt = (f64, f64)", &mut out);
        r.feed("let v = 3", &mut out);
        assert_eq!(out, "");
        assert_eq!(
            r.describe("sq").as_deref(),
            Some("sq : f64 -> f64\n\nThe square.")
        );
        assert_eq!(
            r.describe("v").as_deref(),
            Some("v : i32\n\nbound at the prompt: let v = 3")
        );
        assert_eq!(r.describe("pt").as_deref(), Some("type pt = (f64, f64)"));
        assert!(
            r.describe("f64.sqrt")
                .is_some_and(|d| d.starts_with("f64.sqrt : f64 -> f64"))
        );
        assert_eq!(r.describe("nothing_here"), None);
        assert_eq!(r.describe("1 + 2"), None);
    }

    #[test]
    fn completions_of_names_and_commands() {
        let r = Repl::new(false);
        let (start, c) = r.completions("f64.sq", 6);
        assert_eq!(start, 0);
        assert!(c.contains(&"f64.sqrt".to_string()), "{c:?}");
        // A `:` inside an expression does not start a command.
        let (start, c) = r.completions("1 + :gr", 7);
        assert_eq!(start, 5);
        assert!(!c.iter().any(|w| w.starts_with(':')), "{c:?}");
        let (_, c) = r.completions(":pl", 3);
        assert_eq!(c, vec![":plot", ":plot2d"]);
    }
}
