//! Source files and spans.
//!
//! Every piece of text urchin reads (a `.fut` file, the prelude, one REPL
//! input) becomes a [`SourceFile`] in a [`SourceMap`]; a [`Span`] names a byte
//! range in one of them. Spans are `Copy` and small so that every AST node,
//! core IR statement and diagnostic can carry one.

use std::fmt;
use std::sync::Arc;

/// Index of a file in a [`SourceMap`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct FileId(pub u32);

/// A byte range `start..end` in one source file.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Span {
    pub file: FileId,
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(file: FileId, start: usize, end: usize) -> Span {
        Span {
            file,
            start: start as u32,
            end: end as u32,
        }
    }

    /// The span that covers both `self` and `other` (same file assumed).
    pub fn join(self, other: Span) -> Span {
        if self.file != other.file {
            return self;
        }
        Span {
            file: self.file,
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }

    /// A zero-width span at the end of this one.
    pub fn end_point(self) -> Span {
        Span {
            file: self.file,
            start: self.end,
            end: self.end,
        }
    }
}

impl fmt::Debug for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}..{}", self.file.0, self.start, self.end)
    }
}

#[derive(Clone, Debug)]
pub struct SourceFile {
    pub name: String,
    pub text: Arc<str>,
}

/// All source text seen in a session. Files are never removed, so spans stay
/// valid for the life of the session (a reloaded file gets a new id).
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    pub fn new() -> SourceMap {
        SourceMap::default()
    }

    pub fn add(&mut self, name: impl Into<String>, text: impl Into<Arc<str>>) -> FileId {
        let id = FileId(self.files.len() as u32);
        self.files.push(SourceFile {
            name: name.into(),
            text: text.into(),
        });
        id
    }

    pub fn get(&self, id: FileId) -> Option<&SourceFile> {
        self.files.get(id.0 as usize)
    }

    pub fn name(&self, id: FileId) -> &str {
        self.get(id).map(|f| f.name.as_str()).unwrap_or("<unknown>")
    }

    pub fn text(&self, id: FileId) -> &str {
        self.get(id).map(|f| &*f.text).unwrap_or("")
    }

    /// The text a span covers, or `""` if the span is out of range.
    pub fn snippet(&self, span: Span) -> &str {
        self.text(span.file).get(span.range()).unwrap_or("")
    }

    /// 1-based line and column of the start of a span.
    pub fn line_col(&self, span: Span) -> (usize, usize) {
        let text = self.text(span.file);
        let upto = &text[..(span.start as usize).min(text.len())];
        let line = upto.matches('\n').count() + 1;
        let col = upto
            .rfind('\n')
            .map(|i| upto.len() - i)
            .unwrap_or(upto.len() + 1);
        (line, col)
    }

    /// `file:line:col` for messages that cannot show a snippet.
    pub fn location(&self, span: Span) -> String {
        let (l, c) = self.line_col(span);
        format!("{}:{}:{}", self.name(span.file), l, c)
    }

    pub fn files(&self) -> impl Iterator<Item = (FileId, &SourceFile)> {
        self.files
            .iter()
            .enumerate()
            .map(|(i, f)| (FileId(i as u32), f))
    }
}

// The parser's spans are these (its errors and nodes carry them), and the
// orphan rule puts the implementation here, beside the type.
impl chumsky::span::Span for Span {
    type Context = FileId;
    type Offset = usize;

    fn new(context: FileId, range: std::ops::Range<usize>) -> Span {
        Span::new(context, range.start, range.end)
    }

    fn context(&self) -> FileId {
        self.file
    }

    fn start(&self) -> usize {
        self.start as usize
    }

    fn end(&self) -> usize {
        self.end as usize
    }
}

/// A program's text from a file, through [`crate::mem::read_bounded`]
/// with the program text cap (`mem::MAX_SOURCE`), so that a huge or
/// endless file (`/dev/zero`) is an error, not gigabytes read. The text
/// must be UTF-8. `budget` is the session's memory limit.
pub fn read_source(
    path: impl AsRef<std::path::Path>,
    budget: crate::mem::Budget,
) -> std::io::Result<String> {
    let file = std::fs::File::open(path)?;
    if file.metadata()?.is_dir() {
        return Err(std::io::Error::other("it is a directory"));
    }
    let data = crate::mem::read_bounded(file, crate::mem::MAX_SOURCE, budget, "the file")?;
    String::from_utf8(data)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e.utf8_error()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_from_one() {
        let mut sm = SourceMap::new();
        let f = sm.add("a.fut", "ab\ncd\nef");
        assert_eq!(sm.line_col(Span::new(f, 0, 1)), (1, 1));
        assert_eq!(sm.line_col(Span::new(f, 4, 5)), (2, 2));
        assert_eq!(sm.line_col(Span::new(f, 6, 7)), (3, 1));
        assert_eq!(sm.snippet(Span::new(f, 3, 5)), "cd");
    }
}
