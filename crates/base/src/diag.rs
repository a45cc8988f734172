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
    /// The heading of a report that is neither an error nor a warning (the
    /// REPL's stop at a breakpoint), in place of `Error`/`Warning`.
    pub heading: Option<&'static str>,
    /// For a run-time error, the calls it happened inside, innermost
    /// first: the function called and the call site.
    pub calls: Vec<(String, Span)>,
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
            heading: None,
            calls: Vec::new(),
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

    pub fn with_calls(mut self, calls: Vec<(String, Span)>) -> Diagnostic {
        self.calls = calls;
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

    /// The message on one line, with where: `division by zero at
    /// f.fut:4:24` (for lists of failures, such as `urchin test`'s).
    pub fn summary(&self, sources: &SourceMap) -> String {
        match self.span {
            Some(s) => {
                let (line, col) = sources.line_col(s);
                format!("{} at {}:{line}:{col}", self.message, sources.name(s.file))
            }
            None => self.message.clone(),
        }
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
/// The candidate nearest to `name`, for "did you mean": at most one edit
/// per three characters away (an insertion, a deletion, a substitution or
/// two neighbours swapped: `mpa` is `map`), the nearest winning, the first
/// of equals. A name of one or two characters is near nothing: any other
/// short name is an edit away.
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let most = name.chars().count() / 3;
    if most == 0 {
        return None;
    }
    candidates
        .into_iter()
        .filter(|c| *c != name)
        .map(|c| (edit_distance(name, c), c))
        .filter(|(d, _)| *d <= most)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// Edits from `a` to `b` (optimal string alignment: insertions, deletions,
/// substitutions and swaps of neighbours, each 1).
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    // Rows i-2, i-1 and i of the table.
    let mut before: Vec<usize> = Vec::new();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut row = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            row[j] = (prev[j] + 1).min(row[j - 1] + 1).min(prev[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                row[j] = row[j].min(before[j - 2] + 1);
            }
        }
        before = std::mem::replace(&mut prev, row);
    }
    prev[b.len()]
}

pub fn render_all(diags: &[Diagnostic], sources: &SourceMap, color: bool) -> String {
    diags
        .iter()
        .map(|d| d.render(sources, color))
        .collect::<Vec<_>>()
        .join("")
}

/// The most bytes of a source line a diagnostic shows: a longer line (a
/// generated program's, a minified one's) shows a window this wide around
/// the first label on it, with `…` for what is left out, as compilers do,
/// instead of the whole line.
const MAX_LINE: usize = 240;

/// A file's text as a diagnostic shows it: its long lines cut to a window.
struct View {
    text: String,
    /// The ranges cut out of the file's text, in order, each with where
    /// its `…` is in `text`.
    cuts: Vec<(usize, usize, usize)>,
}

impl View {
    /// `text` with each line longer than [`MAX_LINE`] cut to a window
    /// around the first of `focus` (byte offsets) on it, else its start.
    fn new(text: &str, focus: &[usize]) -> View {
        let mut view = View {
            text: String::with_capacity(text.len()),
            cuts: Vec::new(),
        };
        let mut start = 0;
        for line in text.split_inclusive('\n') {
            let end = start + line.trim_end_matches(['\n', '\r']).len();
            if end - start > MAX_LINE {
                let f = focus
                    .iter()
                    .copied()
                    .find(|f| (start..=end).contains(f))
                    .unwrap_or(start);
                let from = floor_char_boundary(text, f.saturating_sub(MAX_LINE / 4).max(start));
                let to = floor_char_boundary(text, (from + MAX_LINE).min(end));
                view.cut(start, from);
                push_visible(&mut view.text, &text[from..to]);
                view.cut(to, end);
                view.text.push_str(&text[end..start + line.len()]);
            } else {
                push_visible(&mut view.text, line);
            }
            start += line.len();
        }
        view
    }

    fn cut(&mut self, from: usize, to: usize) {
        if from < to {
            self.cuts.push((from, to, self.text.len()));
            self.text.push('…');
        }
    }

    /// Where offset `p` of the file is in the view; a span's `end` inside
    /// a cut goes after its `…`, a start before it.
    fn pos(&self, p: usize, end: bool) -> usize {
        let k = self.cuts.partition_point(|c| c.1 <= p);
        match self.cuts.get(k) {
            Some(&(from, _, at)) if from < p => at + if end { '…'.len_utf8() } else { 0 },
            _ => match k.checked_sub(1).map(|i| self.cuts[i]) {
                Some((_, to, at)) => at + '…'.len_utf8() + (p - to),
                None => p,
            },
        }
    }

    fn span(&self, s: Span) -> ASpan {
        let (start, end) = (
            self.pos(s.start as usize, false),
            self.pos(s.end as usize, true),
        );
        ASpan(Span {
            file: s.file,
            start: start as u32,
            end: end as u32,
        })
    }
}

/// Pushes `text` with each invisible character (a control character, a
/// byte-order mark, a zero-width space) replaced by a visible one of the
/// same length in bytes, so that spans still point at it: `?` for an
/// ASCII control character, `�` for the three-byte ones.
fn push_visible(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '\n' | '\r' | '\t' => out.push(c),
            c if c.is_ascii_control() => out.push('?'),
            '\u{200b}'..='\u{200f}' | '\u{2060}' | '\u{feff}' => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
}

/// The last character boundary of `text` at or before `i` (`str`'s own is
/// newer than the crate's minimum Rust).
fn floor_char_boundary(text: &str, mut i: usize) -> usize {
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// ariadne's source cache over our SourceMap, through the files' views.
struct Cache<'a> {
    sources: &'a SourceMap,
    views: Vec<(FileId, View)>,
    loaded: Vec<(FileId, ariadne::Source<String>)>,
}

impl Cache<'_> {
    /// Each labelled file's view, its long lines cut around the spans.
    fn new<'a>(sources: &'a SourceMap, spans: &[Span]) -> Cache<'a> {
        let mut views: Vec<(FileId, View)> = Vec::new();
        for s in spans {
            if views.iter().all(|(f, _)| *f != s.file) {
                let focus: Vec<usize> = spans
                    .iter()
                    .filter(|t| t.file == s.file)
                    .map(|t| t.start as usize)
                    .collect();
                views.push((s.file, View::new(sources.text(s.file), &focus)));
            }
        }
        Cache {
            sources,
            views,
            loaded: Vec::new(),
        }
    }

    fn view(&self, file: FileId) -> &View {
        &self
            .views
            .iter()
            .find(|(f, _)| *f == file)
            .expect("a view per labelled file")
            .1
    }
}

impl ariadne::Cache<FileId> for Cache<'_> {
    type Storage = String;

    fn fetch(&mut self, id: &FileId) -> Result<&ariadne::Source<String>, impl fmt::Debug> {
        if let Some(i) = self.loaded.iter().position(|(f, _)| f == id) {
            return Ok::<_, String>(&self.loaded[i].1);
        }
        let text = match self.views.iter().find(|(f, _)| f == id) {
            Some((_, v)) => v.text.clone(),
            None => self.sources.text(*id).to_string(),
        };
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
    let kind = match d.heading {
        Some(h) => ReportKind::Custom(h, Color::Cyan),
        None if d.warning => ReportKind::Warning,
        None => ReportKind::Error,
    };
    // A warning is not an error of any phase.
    let title = if d.warning || d.heading.is_some() {
        d.message.clone()
    } else {
        d.to_string()
    };
    let Some(span) = d.span.filter(|s| sources.get(s.file).is_some()) else {
        // No location: a plain message in ariadne's style.
        let heading = match d.heading {
            Some(h) => h,
            None if d.warning => "Warning",
            None => "Error",
        };
        let mut out = format!("{heading}: {title}\n");
        for n in &d.notes {
            out.push_str(&format!("  note: {n}\n"));
        }
        if let Some(h) = &d.help {
            out.push_str(&format!("  help: {h}\n"));
        }
        return out + &render_calls(&d.calls, sources);
    };
    let span = clamp(span, sources);
    let labels: Vec<(Span, &String)> = d
        .labels
        .iter()
        .filter(|l| sources.get(l.span.file).is_some())
        .map(|l| (clamp(l.span, sources), &l.message))
        .collect();
    let spans: Vec<Span> = std::iter::once(span)
        .chain(labels.iter().map(|l| l.0))
        .collect();
    let cache = Cache::new(sources, &spans);
    let at = |s: Span| cache.view(s.file).span(s);
    let mut b = Report::build(kind, at(span))
        .with_config(
            Config::default()
                .with_color(color)
                .with_index_type(ariadne::IndexType::Byte),
        )
        .with_message(title);
    let primary = ALabel::new(at(span))
        .with_message(d.label.clone().unwrap_or_default())
        .with_order(0);
    b = b.with_label(if color {
        primary.with_color(Color::Red)
    } else {
        primary
    });
    for (i, (l, message)) in labels.iter().enumerate() {
        let lab = ALabel::new(at(*l))
            .with_message((*message).clone())
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
    let cut = !cache.view(span.file).cuts.is_empty();
    if b.finish().write(cache, &mut buf).is_err() {
        return format!("{}: {}\n", sources.location(span), d);
    }
    let text = String::from_utf8_lossy(&buf).into_owned();
    // ariadne colours a custom heading whatever its configuration says.
    let mut out = match d.heading {
        Some(h) if !color => match text.split_once('\n') {
            Some((_, rest)) => format!("{h}: {}\n{rest}", d.message),
            None => text,
        },
        _ => text,
    };
    if cut {
        true_column(&mut out, span, sources);
    }
    out + &render_calls(&d.calls, sources)
}

/// ariadne's header gives the column in the view; where the view cut the
/// line, puts the file's own column there (the first `name:line:` after
/// the title line).
fn true_column(out: &mut String, span: Span, sources: &SourceMap) {
    let (line, col) = sources.line_col(span);
    let prefix = format!("{}:{line}:", sources.name(span.file));
    let Some(title_end) = out.find('\n') else {
        return;
    };
    if let Some(i) = out[title_end..].find(&prefix) {
        let from = title_end + i + prefix.len();
        let digits = out[from..].len()
            - out[from..]
                .trim_start_matches(|c: char| c.is_ascii_digit())
                .len();
        out.replace_range(from..from + digits, &col.to_string());
    }
}

/// The most lines a call stack takes; a deeper one shows its innermost
/// and outermost calls around a count of those left out.
const MAX_CALL_LINES: usize = 10;

/// The call stack under a run-time error, innermost call first, a line per
/// call as GHCi writes them (`` `f` called at t.fut:9:30``); a recursion
/// through one call site is one line with its count, so that a stack
/// overflow reads in a few lines.
fn render_calls(calls: &[(String, Span)], sources: &SourceMap) -> String {
    // Runs of the same call, each with its length.
    let mut runs: Vec<(&(String, Span), usize)> = Vec::new();
    for c in calls {
        match runs.last_mut() {
            Some((last, n)) if *last == c => *n += 1,
            _ => runs.push((c, 1)),
        }
    }
    let line = |((callee, site), n): &(&(String, Span), usize)| {
        let at = match sources.get(site.file) {
            Some(_) => sources.location(*site),
            None => "an unknown place".to_string(),
        };
        match n {
            1 => format!("  `{callee}` called at {at}\n"),
            n => format!("  `{callee}` called at {at} ({n} times)\n"),
        }
    };
    let mut out = String::new();
    if runs.is_empty() {
        return out;
    }
    out.push_str("call stack:\n");
    if runs.len() <= MAX_CALL_LINES {
        runs.iter().for_each(|r| out.push_str(&line(r)));
        return out;
    }
    let (inner, outer) = (MAX_CALL_LINES - 3, 2);
    let hidden = &runs[inner..runs.len() - outer];
    runs[..inner].iter().for_each(|r| out.push_str(&line(r)));
    let left_out: usize = hidden.iter().map(|(_, n)| n).sum();
    out.push_str(&format!("  ... {left_out} more calls\n"));
    runs[runs.len() - outer..]
        .iter()
        .for_each(|r| out.push_str(&line(r)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_names_are_suggested() {
        let names = ["map", "map2", "reduce", "f64.sqrt", "type", "time"];
        assert_eq!(closest("mpa", names), Some("map"));
        assert_eq!(closest("f64.sqr", names), Some("f64.sqrt"));
        assert_eq!(closest("tyep", names), Some("type"));
        assert_eq!(closest("map", names), Some("map2"));
        assert_eq!(closest("xyz", names), None);
        assert_eq!(closest("ma", names), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("ab", "ba"), 1);
    }

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
    fn call_stacks_fold_recursions_and_leave_out_the_middle() {
        let mut sm = SourceMap::new();
        let f = sm.add("t.fut", "def f x = x\ndef g x = f x\n");
        let (in_g, in_f) = (Span::new(f, 22, 25), Span::new(f, 10, 11));
        let call = |name: &str, site| (name.to_string(), site);
        let d = Diagnostic::runtime("division by zero", in_f).with_calls(vec![
            call("f", in_g),
            call("g", in_f),
            call("g", in_f),
        ]);
        let s = d.render(&sm, false);
        assert!(
            s.ends_with(
                "call stack:\n  `f` called at t.fut:2:11\n  `g` called at t.fut:1:11 (2 times)\n"
            ),
            "{s}"
        );
        // Alternating sites do not fold: 30 lines become 10, the outermost
        // two kept.
        let calls = (0..30)
            .map(|k| call(if k == 29 { "main" } else { "g" }, [in_g, in_f][k % 2]))
            .collect();
        let s = Diagnostic::runtime("oops", in_f)
            .with_calls(calls)
            .render(&sm, false);
        let stack = &s[s.find("call stack:").expect("a call stack")..];
        assert_eq!(stack.lines().count(), 1 + MAX_CALL_LINES, "{stack}");
        assert!(stack.contains("  ... 21 more calls\n"), "{stack}");
        assert!(
            stack.ends_with("  `main` called at t.fut:1:11\n"),
            "{stack}"
        );
    }

    #[test]
    fn long_lines_show_a_window_around_the_span() {
        let mut sm = SourceMap::new();
        // Multi-byte characters, so that windows must fall on boundaries.
        let before = "1 + \u{e9} + ".repeat(30_000);
        let text = format!("def x =\n  {before}true + 2 + {before}\n");
        let f = sm.add("t.fut", text.as_str());
        let start = text.find("true").expect("the bool");
        let d = Diagnostic::ty("cannot add a bool", Span::new(f, start, start + 4))
            .with_label("a bool")
            .with_secondary(Span::new(f, 10, start + 4), "in this sum");
        let s = d.render(&sm, false);
        assert!(s.len() < 2_000, "{} bytes:\n{s}", s.len());
        assert!(s.contains("true + 2") && s.contains('…'), "{s}");
        // Columns count bytes, as `SourceMap::line_col` does.
        let col = before.len() + 3;
        assert!(s.contains(&format!("t.fut:2:{col} ]")), "{s}");
        assert!(s.contains("a bool") && s.contains("in this sum"), "{s}");
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
