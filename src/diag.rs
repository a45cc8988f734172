//! Diagnostics: one error type shared by every layer that reports on source
//! text (parse, type, ambiguity, run time), rendered with ariadne.
//!
//! A [`Diagnostic`] is plain data, so it can be stored, compared in tests and
//! rendered later with or without colour. Rendering needs the [`SourceMap`]
//! to show the offending lines.

use crate::source::{FileId, SourceMap, Span};
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    Parse,
    Type,
    Runtime,
    /// Anything else with a source location (I/O of test inputs, the REPL).
    Other,
    /// A program past a compile-time budget (inlining, nested AD): a
    /// limit of urchin's, not an error in the program.
    Limit,
    /// A broken invariant of urchin's own (a bug), never an error in the
    /// program: a test expecting a compile error does not accept it.
    Internal,
}

impl Phase {
    pub fn title(self) -> &'static str {
        match self {
            Phase::Parse => "parse error",
            Phase::Type => "type error",
            Phase::Runtime => "run-time error",
            Phase::Other => "error",
            Phase::Limit => "program too large",
            Phase::Internal => "internal error",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    pub span: Span,
    pub message: String,
}

/// An error (or warning) about source text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub phase: Phase,
    pub message: String,
    /// Where the problem is; `None` for errors without a location.
    pub span: Option<Span>,
    /// The message shown at `span`.
    pub label: Option<String>,
    /// Further places involved (the other type in a mismatch, ...).
    pub labels: Vec<Label>,
    pub notes: Vec<String>,
    /// What the user can do about it.
    pub help: Option<String>,
    pub warning: bool,
}

impl Diagnostic {
    pub fn new(phase: Phase, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            phase,
            message: message.into(),
            span: None,
            label: None,
            labels: Vec::new(),
            notes: Vec::new(),
            help: None,
            warning: false,
        }
    }

    pub fn parse(message: impl Into<String>, span: Span) -> Diagnostic {
        Diagnostic::new(Phase::Parse, message).at(span)
    }

    pub fn ty(message: impl Into<String>, span: Span) -> Diagnostic {
        Diagnostic::new(Phase::Type, message).at(span)
    }

    pub fn internal(message: impl Into<String>, span: Span) -> Diagnostic {
        Diagnostic::new(Phase::Internal, message).at(span)
    }

    pub fn runtime(message: impl Into<String>, span: Span) -> Diagnostic {
        Diagnostic::new(Phase::Runtime, message).at(span)
    }

    pub fn at(mut self, span: Span) -> Diagnostic {
        self.span = Some(span);
        self
    }

    pub fn with_label(mut self, message: impl Into<String>) -> Diagnostic {
        self.label = Some(message.into());
        self
    }

    pub fn with_secondary(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.labels.push(Label {
            span,
            message: message.into(),
        });
        self
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }

    /// Render as ariadne would print it; `color` switches ANSI escapes.
    pub fn render(&self, sources: &SourceMap, color: bool) -> String {
        render(self, sources, color)
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // `Error: error: ...` would say it twice.
        match self.phase {
            Phase::Other => f.write_str(&self.message),
            p => write!(f, "{}: {}", p.title(), self.message),
        }
    }
}

impl std::error::Error for Diagnostic {}

/// Several diagnostics, rendered one after another.
pub fn render_all(diags: &[Diagnostic], sources: &SourceMap, color: bool) -> String {
    diags
        .iter()
        .map(|d| d.render(sources, color))
        .collect::<Vec<_>>()
        .join("")
}

/// ariadne's source cache over our SourceMap.
struct Cache<'a> {
    sources: &'a SourceMap,
    loaded: Vec<(FileId, ariadne::Source<String>)>,
}

impl ariadne::Cache<FileId> for Cache<'_> {
    type Storage = String;

    fn fetch(&mut self, id: &FileId) -> Result<&ariadne::Source<String>, impl fmt::Debug> {
        if let Some(i) = self.loaded.iter().position(|(f, _)| f == id) {
            return Ok::<_, String>(&self.loaded[i].1);
        }
        let text = self.sources.text(*id).to_string();
        self.loaded.push((*id, ariadne::Source::from(text)));
        Ok(&self.loaded.last().expect("just pushed").1)
    }

    fn display<'b>(&self, id: &'b FileId) -> Option<impl fmt::Display + 'b> {
        Some(self.sources.name(*id).to_string())
    }
}

#[derive(Clone, Copy)]
struct ASpan(Span);

impl ariadne::Span for ASpan {
    type SourceId = FileId;
    fn source(&self) -> &FileId {
        &self.0.file
    }
    fn start(&self) -> usize {
        self.0.start as usize
    }
    fn end(&self) -> usize {
        self.0.end as usize
    }
}

fn clamp(span: Span, sources: &SourceMap) -> Span {
    let len = sources.text(span.file).len() as u32;
    let start = span.start.min(len);
    let end = span.end.clamp(start, len);
    Span {
        file: span.file,
        start,
        end,
    }
}

fn render(d: &Diagnostic, sources: &SourceMap, color: bool) -> String {
    use ariadne::{Color, Config, Label as ALabel, Report, ReportKind};
    let kind = if d.warning {
        ReportKind::Warning
    } else {
        ReportKind::Error
    };
    // A warning is not an error of any phase.
    let title = if d.warning {
        d.message.clone()
    } else {
        d.to_string()
    };
    let Some(span) = d.span.filter(|s| sources.get(s.file).is_some()) else {
        // No location: a plain message in ariadne's style.
        let mut out = format!(
            "{}: {}\n",
            if d.warning { "Warning" } else { "Error" },
            title
        );
        for n in &d.notes {
            out.push_str(&format!("  note: {n}\n"));
        }
        if let Some(h) = &d.help {
            out.push_str(&format!("  help: {h}\n"));
        }
        return out;
    };
    let span = clamp(span, sources);
    let mut b = Report::build(kind, ASpan(span))
        .with_config(
            Config::default()
                .with_color(color)
                .with_index_type(ariadne::IndexType::Byte),
        )
        .with_message(title);
    let primary = ALabel::new(ASpan(span))
        .with_message(d.label.clone().unwrap_or_default())
        .with_order(0);
    b = b.with_label(if color {
        primary.with_color(Color::Red)
    } else {
        primary
    });
    for (i, l) in d.labels.iter().enumerate() {
        if sources.get(l.span.file).is_none() {
            continue;
        }
        let lab = ALabel::new(ASpan(clamp(l.span, sources)))
            .with_message(l.message.clone())
            .with_order(i as i32 + 1);
        b = b.with_label(if color {
            lab.with_color(Color::Blue)
        } else {
            lab
        });
    }
    for n in &d.notes {
        b = b.with_note(n);
    }
    if let Some(h) = &d.help {
        b = b.with_help(h);
    }
    let mut buf = Vec::new();
    let cache = Cache {
        sources,
        loaded: Vec::new(),
    };
    if b.finish().write(cache, &mut buf).is_err() {
        return format!("{}: {}\n", sources.location(span), d);
    }
    String::from_utf8_lossy(&buf).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_message_and_snippet_without_color() {
        let mut sm = SourceMap::new();
        let f = sm.add("t.fut", "def x = 1 +\n");
        let d = Diagnostic::parse("unexpected end of input", Span::new(f, 11, 11))
            .with_label("expected an expression")
            .with_help("finish the expression");
        let s = d.render(&sm, false);
        assert!(s.contains("parse error: unexpected end of input"), "{s}");
        assert!(s.contains("t.fut"), "{s}");
        assert!(s.contains("expected an expression"), "{s}");
        assert!(!s.contains('\u{1b}'), "no escapes without colour: {s}");
    }

    #[test]
    fn out_of_range_spans_do_not_panic() {
        let mut sm = SourceMap::new();
        let f = sm.add("t.fut", "ab");
        let d = Diagnostic::ty("bad", Span::new(f, 10, 20));
        let s = d.render(&sm, false);
        assert!(s.contains("bad"));
    }
}
