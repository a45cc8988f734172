//! Futhark-style test blocks: the `-- ==` comments of a `.fut` file.
//!
//! Only comments matter here, so this reads the file text directly rather
//! than going through the language parser: a file whose program does not
//! parse still has readable test blocks (and may expect exactly that error).
//!
//! A block starts at a comment line `-- ==` and runs over the comment lines
//! that directly follow it; comment text before the `==` in the same run of
//! comment lines is the block's description. Inside a block the `--`
//! prefixes are replaced by spaces, so every offset into the block is an
//! offset into the file and spans (of input values too) point at the source.

use std::path::PathBuf;
use urchin_base::diag::{Diagnostic, Phase};
use urchin_base::source::{FileId, Span};
use urchin_prim::{PrimType, Scalar};

/// The test blocks of one file.
#[derive(Clone, Debug, PartialEq)]
pub struct TestSpec {
    pub blocks: Vec<TestBlock>,
    /// The tags of all blocks (`tags { .. }` applies to the whole file).
    pub tags: Vec<String>,
}

impl TestSpec {
    /// A `disable` or `notest` tag anywhere skips the whole file, as in
    /// Futhark.
    pub fn disabled(&self) -> bool {
        self.tags.iter().any(|t| t == "disable" || t == "notest")
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct TestBlock {
    pub description: String,
    /// The entry points the cases apply to; `["main"]` unless `entry:`.
    pub entries: Vec<String>,
    pub tags: Vec<String>,
    pub cases: Vec<TestCase>,
    /// A block that is only `error: REGEX` expects compilation to fail
    /// with a message matching the regex.
    pub compile_error: Option<(String, Span)>,
    /// `property: names`: property-based tests (not run by urchin).
    pub properties: Vec<(String, Span)>,
    /// From the `==` marker to the end of the block.
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TestCase {
    /// The dataset name given as a quoted string before the case.
    pub name: Option<String>,
    pub input: CaseInput,
    pub expect: Expect,
    /// Marked `compiled`: run only with `--compiled`.
    pub compiled_only: bool,
    /// The words before `input` (`compiled`, `random`, `nobench`, ...).
    pub tags: Vec<String>,
    /// The `input` keyword.
    pub span: Span,
    /// Position of the case in its block, from 0.
    pub index: usize,
}

#[derive(Clone, Debug, PartialEq)]
pub enum CaseInput {
    /// The text between the braces and its span in the file.
    Values(String, Span),
    /// `input @ file`, as written (relative to the `.fut` file's directory).
    File(PathBuf),
    /// `random input { [10]f32 i64 2i64 }`: one description per value.
    Random(Vec<RandomValue>, Span),
    /// `script input`: not supported, the case is skipped.
    Script,
}

/// One value of a `random input`.
#[derive(Clone, Debug, PartialEq)]
pub enum RandomValue {
    /// Random elements of a type, in a shape (empty for a scalar).
    Random { shape: Vec<usize>, elem: PrimType },
    /// A constant written among the types (`2i64`, `1.5f32`, `10`).
    Constant(Scalar),
}

impl std::fmt::Display for RandomValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RandomValue::Random { shape, elem } => {
                for d in shape {
                    write!(f, "[{d}]")?;
                }
                write!(f, "{elem}")
            }
            RandomValue::Constant(s) => write!(f, "{s}"),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Expect {
    /// The text between the braces and its span in the file.
    Output(String, Span),
    /// `output @ file`, as written.
    OutputFile(PathBuf),
    /// A run-time error whose message matches the regex (unanchored).
    Error(String, Span),
    /// No expectation (or `auto output`): the case must run without error.
    Success,
}

/// Parses every test block of a file; `file` is used for spans.
pub fn parse_test_spec(text: &str, file: FileId) -> Result<TestSpec, Diagnostic> {
    let mut spec = TestSpec {
        blocks: Vec::new(),
        tags: Vec::new(),
    };
    for run in comment_runs(text) {
        let markers: Vec<usize> = run
            .iter()
            .enumerate()
            .filter(|(_, l)| l.content(text).trim() == "==")
            .map(|(i, _)| i)
            .collect();
        let mut desc_start = 0;
        for (k, &m) in markers.iter().enumerate() {
            let end = markers.get(k + 1).copied().unwrap_or(run.len());
            let description = run[desc_start..m]
                .iter()
                .map(|l| l.content(text).trim())
                .collect::<Vec<_>>()
                .join("\n")
                .trim()
                .to_string();
            desc_start = m + 1;
            let marker = &run[m];
            let eq = marker.body + marker.content(text).find("==").unwrap_or(0);
            let body = &run[m + 1..end];
            let region_start = body.first().map_or(marker.end, |l| l.start);
            let region_end = body.last().map_or(marker.end, |l| l.end);
            let mut parser = BlockParser {
                text: blank_comment_markers(text, body, region_start, region_end),
                pos: 0,
                base: region_start,
                file,
            };
            let span = Span::new(file, eq, region_end);
            for block in parser.blocks(description, span)? {
                spec.tags.extend(block.tags.iter().cloned());
                spec.blocks.push(block);
            }
        }
    }
    Ok(spec)
}

/// One comment line: `start..end` is the line without its newline, the
/// `--` is at `dashes` and the comment text starts at `body`.
struct CommentLine {
    start: usize,
    end: usize,
    dashes: usize,
    body: usize,
}

impl CommentLine {
    fn content<'a>(&self, text: &'a str) -> &'a str {
        &text[self.body..self.end]
    }
}

/// Maximal runs of consecutive comment lines.
fn comment_runs(text: &str) -> Vec<Vec<CommentLine>> {
    let mut runs = Vec::new();
    let mut current = Vec::new();
    let mut offset = 0;
    for raw in text.split_inclusive('\n') {
        let start = offset;
        offset += raw.len();
        let line = raw.trim_end_matches(['\n', '\r']);
        let indent = line.len() - line.trim_start().len();
        if line.trim_start().starts_with("--") {
            current.push(CommentLine {
                start,
                end: start + line.len(),
                dashes: start + indent,
                body: start + indent + 2,
            });
        } else if !current.is_empty() {
            runs.push(std::mem::take(&mut current));
        }
    }
    if !current.is_empty() {
        runs.push(current);
    }
    runs
}

/// The text of `start..end` with the `--` of each comment line replaced by
/// spaces, so that offsets are unchanged.
fn blank_comment_markers(text: &str, lines: &[CommentLine], start: usize, end: usize) -> String {
    let mut bytes = text.as_bytes()[start..end].to_vec();
    for l in lines {
        bytes[l.dashes - start] = b' ';
        bytes[l.dashes - start + 1] = b' ';
    }
    // Only ASCII bytes were replaced by ASCII, so this is still UTF-8.
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Words that may stand on their own in a block without introducing a
/// case: Futhark's benchmark and backend tags.
fn ignorable_tag(word: &str) -> bool {
    word == "nobench" || word.starts_with("no_")
}

const DIRECTIVES: &str = "directives are `entry:`, `input`, `output`, `error:`, `tags { .. }`, \
`random input`, `script input`, `compiled input`, `property:`, `structure { .. }` and `warning:`";

struct BlockParser {
    text: String,
    pos: usize,
    base: usize,
    file: FileId,
}

impl BlockParser {
    fn span(&self, start: usize, end: usize) -> Span {
        Span::new(self.file, self.base + start, self.base + end)
    }

    fn error(&self, message: impl Into<String>, start: usize, end: usize) -> Diagnostic {
        Diagnostic::new(Phase::Other, message).at(self.span(start, end))
    }

    fn peek(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    fn skip_ws(&mut self) {
        let rest = &self.text[self.pos..];
        self.pos += rest.len() - rest.trim_start().len();
    }

    fn word(&mut self) -> Option<String> {
        let rest = &self.text[self.pos..];
        let n = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        if n == 0 {
            return None;
        }
        self.pos += n;
        Some(rest[..n].to_string())
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += c.len_utf8();
            true
        } else {
            false
        }
    }

    /// The rest of the current line, trimmed, and its span.
    fn rest_of_line(&mut self) -> (String, Span) {
        let rest = &self.text[self.pos..];
        let n = rest.find('\n').unwrap_or(rest.len());
        let line = &rest[..n];
        let lead = line.len() - line.trim_start().len();
        let trimmed = line.trim();
        let start = self.pos + lead;
        let span = self.span(start, start + trimmed.len());
        let owned = trimmed.to_string();
        self.pos += n;
        (owned, span)
    }

    /// `{ ... }` after optional whitespace: the text inside and its span.
    fn braced(&mut self, after: &str) -> Result<(String, Span), Diagnostic> {
        self.skip_ws();
        let open = self.pos;
        if !self.eat('{') {
            return Err(self.expected(&format!("`{{` after `{after}`")));
        }
        let mut depth = 1;
        for (i, c) in self.text[self.pos..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                _ => {}
            }
            if depth == 0 {
                let start = self.pos;
                let end = start + i;
                let body = self.text[start..end].to_string();
                self.pos = end + 1;
                return Ok((body, self.span(start, end)));
            }
        }
        Err(self
            .error("unclosed `{`", open, open + 1)
            .with_label("this `{` is not closed before the end of the test block"))
    }

    fn expected(&self, what: &str) -> Diagnostic {
        let found = match self.peek() {
            Some(c) if c.is_whitespace() => "the end of the line".to_string(),
            Some(c) => format!("`{c}`"),
            None => "the end of the test block".to_string(),
        };
        let end = self.pos + self.peek().map_or(0, char::len_utf8);
        self.error(format!("expected {what}, found {found}"), self.pos, end)
    }

    fn regex(&self, re: &str, span: Span) -> Result<(), Diagnostic> {
        regex::Regex::new(re).map(|_| ()).map_err(|e| {
            Diagnostic::new(Phase::Other, "invalid regular expression")
                .at(span)
                .with_note(e.to_string())
        })
    }

    /// Words before `input` that never got one: Futhark's stand-alone tags
    /// are ignored, anything else is an unknown directive.
    fn check_stray(&self, tags: &mut Vec<(String, Span)>) -> Result<(), Diagnostic> {
        if let Some((w, span)) = tags.iter().find(|(w, _)| !ignorable_tag(w)) {
            return Err(Diagnostic::new(
                Phase::Other,
                format!("unknown test-block directive `{w}`"),
            )
            .at(*span)
            .with_help(DIRECTIVES));
        }
        tags.clear();
        Ok(())
    }

    /// The blocks of one `==` region: normally one, but each `entry:` after
    /// cases starts another (Futhark allows several groups per block).
    fn blocks(&mut self, description: String, span: Span) -> Result<Vec<TestBlock>, Diagnostic> {
        let new_block = |tags: Vec<String>| TestBlock {
            description: description.clone(),
            entries: vec!["main".to_string()],
            tags,
            cases: Vec::new(),
            compile_error: None,
            properties: Vec::new(),
            span,
        };
        let mut blocks = Vec::new();
        let mut cur = new_block(Vec::new());
        let mut pending: Option<TestCase> = None;
        let mut run_tags: Vec<(String, Span)> = Vec::new();
        let mut name: Option<(String, Span)> = None;
        loop {
            self.skip_ws();
            let start = self.pos;
            let Some(c) = self.peek() else { break };
            if c == '"' && name.is_none() && run_tags.is_empty() {
                name = Some(self.quoted()?);
                continue;
            }
            let Some(w) = self.word() else {
                self.check_stray(&mut run_tags)?;
                return Err(self
                    .error(
                        format!("unexpected `{c}` in a test block"),
                        start,
                        start + c.len_utf8(),
                    )
                    .with_help(DIRECTIVES));
            };
            let wspan = self.span(start, self.pos);
            let colon = self.eat(':');
            if colon || is_directive(&w) {
                self.check_stray(&mut run_tags)?;
                Self::check_name(&mut name)?;
            }
            match (w.as_str(), colon) {
                ("entry", true) => {
                    cur.cases.extend(pending.take());
                    let (names, _) = self.rest_of_line();
                    if names.is_empty() {
                        return Err(
                            Diagnostic::new(Phase::Other, "`entry:` names no entry point")
                                .at(wspan)
                                .with_help("write `entry: name1 name2`"),
                        );
                    }
                    if !cur.cases.is_empty() || cur.compile_error.is_some() {
                        let next = new_block(cur.tags.clone());
                        blocks.push(std::mem::replace(&mut cur, next));
                    }
                    cur.entries = names.split_whitespace().map(str::to_string).collect();
                }
                ("error", true) => {
                    let (re, rspan) = self.rest_of_line();
                    self.regex(&re, rspan)?;
                    if let Some(mut case) = pending.take() {
                        case.expect = Expect::Error(re, rspan);
                        cur.cases.push(case);
                    } else if cur.cases.is_empty() && cur.compile_error.is_none() {
                        cur.compile_error = Some((re, rspan));
                    } else {
                        return Err(Diagnostic::new(
                            Phase::Other,
                            "`error:` does not follow an `input`",
                        )
                        .at(wspan)
                        .with_help(
                            "`error:` belongs right after an `input`, or alone in a block \
                                 to expect a compile error",
                        ));
                    }
                }
                ("warning", true) => {
                    self.rest_of_line();
                }
                ("property", true) => {
                    let (names, span) = self.rest_of_line();
                    cur.properties
                        .extend(names.split_whitespace().map(|n| (n.to_string(), span)));
                }
                (_, true) => {
                    return Err(Diagnostic::new(
                        Phase::Other,
                        format!("unknown test-block directive `{w}:`"),
                    )
                    .at(wspan)
                    .with_help(DIRECTIVES));
                }
                ("tags", false) => {
                    let (body, _) = self.braced("tags")?;
                    cur.tags.extend(body.split_whitespace().map(str::to_string));
                }
                ("structure", false) => {
                    // `structure gpu-mem { .. }`: an optional backend
                    // first; the compiler's structure is not ours to check.
                    self.skip_ws();
                    let rest = &self.text[self.pos..];
                    self.pos += rest
                        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
                        .unwrap_or(rest.len());
                    self.braced("structure")?;
                }
                ("input", false) => {
                    cur.cases.extend(pending.take());
                    let tags: Vec<String> = run_tags.drain(..).map(|(t, _)| t).collect();
                    let input = self.input(&tags)?;
                    pending = Some(TestCase {
                        name: name.take().map(|(n, _)| n),
                        input,
                        expect: Expect::Success,
                        compiled_only: tags.iter().any(|t| t == "compiled"),
                        tags,
                        span: wspan,
                        index: cur.cases.len(),
                    });
                }
                ("output", false) => {
                    let Some(mut case) = pending.take() else {
                        return Err(Diagnostic::new(
                            Phase::Other,
                            "`output` does not follow an `input`",
                        )
                        .at(wspan));
                    };
                    self.skip_ws();
                    case.expect = if self.eat('@') {
                        Expect::OutputFile(self.file_name("output @")?)
                    } else {
                        let (body, span) = self.braced("output")?;
                        Expect::Output(body, span)
                    };
                    cur.cases.push(case);
                }
                ("auto", false) => {
                    self.skip_ws();
                    let next = self.pos;
                    if self.word().as_deref() != Some("output") {
                        self.pos = next;
                        return Err(self.expected("`output` after `auto`"));
                    }
                    // The expected output would come from a reference
                    // implementation; all urchin can check is a clean run.
                    let Some(case) = pending.take() else {
                        return Err(Diagnostic::new(
                            Phase::Other,
                            "`auto output` does not follow an `input`",
                        )
                        .at(wspan));
                    };
                    cur.cases.push(case);
                }
                _ => run_tags.push((w, wspan)),
            }
        }
        self.check_stray(&mut run_tags)?;
        Self::check_name(&mut name)?;
        cur.cases.extend(pending);
        blocks.push(cur);
        Ok(blocks)
    }

    /// `"name"`: a dataset name, on one line.
    fn quoted(&mut self) -> Result<(String, Span), Diagnostic> {
        let start = self.pos;
        self.eat('"');
        let rest = &self.text[self.pos..];
        let line = &rest[..rest.find('\n').unwrap_or(rest.len())];
        let Some(n) = line.find('"') else {
            return Err(self
                .error("unclosed `\"`", start, start + 1)
                .with_label("a dataset name ends with `\"` on the same line"));
        };
        let name = line[..n].to_string();
        self.pos += n + 1;
        Ok((name, self.span(start, self.pos)))
    }

    /// A dataset name that no `input` followed.
    fn check_name(name: &mut Option<(String, Span)>) -> Result<(), Diagnostic> {
        match name.take() {
            None => Ok(()),
            Some((_, span)) => Err(Diagnostic::new(
                Phase::Other,
                "a dataset name must come right before an `input`",
            )
            .at(span)),
        }
    }

    /// A file name after `@`: the next word (file names in test blocks
    /// contain no whitespace, so `output @ f` may follow on the line).
    fn file_name(&mut self, what: &str) -> Result<PathBuf, Diagnostic> {
        self.skip_blanks();
        let rest = &self.text[self.pos..];
        let n = rest.find(char::is_whitespace).unwrap_or(rest.len());
        if n == 0 {
            return Err(self.expected(&format!("a file name after `{what}`")));
        }
        self.pos += n;
        Ok(PathBuf::from(&rest[..n]))
    }

    /// Skips spaces and tabs, but not the end of the line.
    fn skip_blanks(&mut self) {
        let rest = &self.text[self.pos..];
        self.pos += rest.len() - rest.trim_start_matches([' ', '\t']).len();
    }

    /// What follows `input`, given the words before it.
    fn input(&mut self, tags: &[String]) -> Result<CaseInput, Diagnostic> {
        let has = |t: &str| tags.iter().any(|x| x == t);
        self.skip_ws();
        if has("script") {
            if self.eat('@') {
                self.file_name("input @")?;
            } else {
                self.braced("script input")?;
            }
            return Ok(CaseInput::Script);
        }
        if has("random") {
            let (body, span) = self.braced("random input")?;
            let offset = span.start as usize - self.base;
            return Ok(CaseInput::Random(self.random_specs(&body, offset)?, span));
        }
        if self.eat('@') {
            return Ok(CaseInput::File(self.file_name("input @")?));
        }
        if self.peek() != Some('{') {
            return Err(self.expected("`{` or `@` after `input`"));
        }
        let (body, span) = self.braced("input")?;
        Ok(CaseInput::Values(body, span))
    }

    /// `[10]f32 [3][4]i64 bool 2i64`: shapes with element types, and
    /// constants; `offset` is where `body` starts.
    fn random_specs(&self, body: &str, offset: usize) -> Result<Vec<RandomValue>, Diagnostic> {
        let mut specs = Vec::new();
        let mut pos = 0;
        for word in body.split_whitespace() {
            let start = pos + body[pos..].find(word).unwrap_or(0);
            pos = start + word.len();
            let bad = |why: &str| {
                self.error(
                    format!("invalid random input `{word}`: {why}"),
                    offset + start,
                    offset + pos,
                )
                .with_help(
                    "write a shape and a primitive type, like `[10]f32` or `[2][3]i64`, \
                     or a constant like `2i64` or `1.5f32`",
                )
            };
            if word.starts_with(|c: char| c.is_ascii_digit() || c == '-') {
                let constant = urchin_runtime::values::parse_values(word, self.file, 0)
                    .map_err(|d| bad(&d.message))?
                    .first()
                    .map(|v| v.to_value(None))
                    .and_then(|v| v.ok()?.scalar());
                specs.push(RandomValue::Constant(
                    constant.ok_or_else(|| bad("not a constant"))?,
                ));
                continue;
            }
            let mut rest = word;
            let mut shape = Vec::new();
            while let Some(r) = rest.strip_prefix('[') {
                let (n, after) = r.split_once(']').ok_or_else(|| bad("unclosed `[`"))?;
                if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(bad("a dimension must be a number"));
                }
                shape.push(
                    n.parse::<usize>()
                        .map_err(|_| bad("a dimension cannot exceed 64 bits"))?,
                );
                rest = after;
            }
            let elem = PrimType::from_name(rest).ok_or_else(|| bad("unknown element type"))?;
            specs.push(RandomValue::Random { shape, elem });
        }
        Ok(specs)
    }
}

/// Words that are directives rather than case tags.
fn is_directive(w: &str) -> bool {
    matches!(w, "tags" | "structure" | "output" | "auto")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn spec(text: &str) -> TestSpec {
        parse_test_spec(text, FileId(0))
            .unwrap_or_else(|d| panic!("{d} {:?} {:?}", d.label, d.span))
    }

    fn spec_err(text: &str) -> Diagnostic {
        match parse_test_spec(text, FileId(0)) {
            Ok(s) => panic!("parsed: {s:?}"),
            Err(d) => d,
        }
    }

    fn values(input: &CaseInput) -> &str {
        match input {
            CaseInput::Values(s, _) => s,
            other => panic!("not values: {other:?}"),
        }
    }

    #[test]
    fn a_block_with_description_entries_and_cases() {
        let text = "-- A description.\n-- More.\n-- ==\n-- entry: main other\n-- input { [1, 2, 3] 10 }\n-- output { [11, 12, 13] }\n-- input { [1] 0 }\n-- error: index out of bounds\n\ndef main = 0\n";
        let s = spec(text);
        assert_eq!(s.blocks.len(), 1);
        let b = &s.blocks[0];
        assert_eq!(b.description, "A description.\nMore.");
        assert_eq!(b.entries, ["main", "other"]);
        assert_eq!(b.cases.len(), 2);
        assert_eq!(values(&b.cases[0].input).trim(), "[1, 2, 3] 10");
        let CaseInput::Values(v, span) = &b.cases[0].input else {
            panic!()
        };
        assert_eq!(&text[span.range()], v);
        assert!(matches!(&b.cases[0].expect, Expect::Output(o, _) if o.trim() == "[11, 12, 13]"));
        assert!(matches!(&b.cases[1].expect, Expect::Error(r, _) if r == "index out of bounds"));
        assert_eq!(&text[b.cases[1].span.range()], "input");
        assert_eq!(b.cases[1].index, 1);
        assert!(!s.disabled());
    }

    #[test]
    fn multi_line_values_keep_file_offsets() {
        let text = "-- ==\n-- input { [[1, 2],\n--          [3, 4]] }\n-- output { 10 }\n";
        let s = spec(text);
        let CaseInput::Values(v, span) = &s.blocks[0].cases[0].input else {
            panic!()
        };
        assert!(!v.contains("--"), "{v:?}");
        assert_eq!(v.len(), span.range().len());
        let parsed = urchin_runtime::values::parse_values(v, FileId(0), span.start as usize)
            .unwrap_or_else(|d| panic!("{d}"));
        assert_eq!(parsed[0].shape(), &[2, 2]);
        assert_eq!(
            &text[parsed[0].span().range()],
            "[[1, 2],\n--          [3, 4]]"
        );
    }

    #[test]
    fn compile_error_blocks() {
        let s = spec("-- Ambiguous.\n-- ==\n-- error: ambig(uous)?  \n\ndef f = 1\n");
        let b = &s.blocks[0];
        assert!(b.cases.is_empty());
        assert_eq!(
            b.compile_error.as_ref().map(|(r, _)| r.as_str()),
            Some("ambig(uous)?")
        );
    }

    #[test]
    fn case_kinds() {
        let text = "-- ==\n-- input @ data/in.txt\n-- output @ data/out.txt\n-- random input { [10]f32 [3][4]i64 bool }\n-- compiled input { 1 }\n-- output { 2 }\n-- script input { foo 1 }\n-- input { 3 }\n-- auto output\n-- nobench compiled random input { [2]f64 }\n";
        let s = spec(text);
        let cases = &s.blocks[0].cases;
        assert_eq!(cases.len(), 6);
        assert_eq!(cases[0].input, CaseInput::File("data/in.txt".into()));
        assert_eq!(cases[0].expect, Expect::OutputFile("data/out.txt".into()));
        let CaseInput::Random(specs, _) = &cases[1].input else {
            panic!()
        };
        let random = |shape: Vec<usize>, elem| RandomValue::Random { shape, elem };
        assert_eq!(
            specs,
            &vec![
                random(vec![10], PrimType::F32),
                random(vec![3, 4], PrimType::I64),
                random(vec![], PrimType::Bool)
            ]
        );
        assert_eq!(cases[1].expect, Expect::Success);
        assert!(cases[2].compiled_only && !cases[1].compiled_only);
        assert_eq!(cases[3].input, CaseInput::Script);
        assert_eq!(cases[3].expect, Expect::Success);
        let three = text.find("{ 3 }").unwrap_or(0) + 1;
        assert_eq!(
            cases[4].input,
            CaseInput::Values(" 3 ".into(), Span::new(FileId(0), three, three + 3))
        );
        assert_eq!(cases[4].expect, Expect::Success);
        assert_eq!(cases[5].tags, ["nobench", "compiled", "random"]);
        assert!(cases[5].compiled_only);
    }

    #[test]
    fn ignored_directives_and_tags() {
        let s = spec(
            "-- ==\n-- tags { disable nobench }\n-- structure { Map 1 Redomap 2 }\n-- structure gpu { SegMap 1 }\n-- warning: unused\n-- no_python no_wasm input { 1 }\n-- output { 1 }\n-- nobench\n",
        );
        assert!(s.disabled());
        assert_eq!(s.tags, ["disable", "nobench"]);
        assert_eq!(s.blocks[0].cases.len(), 1);
        assert_eq!(s.blocks[0].cases[0].tags, ["no_python", "no_wasm"]);
    }

    #[test]
    fn compiler_directives_names_and_random_constants() {
        let s = spec(
            "-- ==\n-- tags { notest }\n-- structure gpu-mem { Manifest 0 }\n-- structure seq-mem { Alloc 1 }\n-- \"small one\" compiled input @ a.in output @ b.out.gz\n-- random input { [2]u8 0u8 10 1.5f32 -3i64 }\n",
        );
        assert!(s.disabled());
        let cases = &s.blocks[0].cases;
        let props = spec("-- ==\n-- property: rev_rev sorted\n").blocks[0]
            .properties
            .iter()
            .map(|(n, _)| n.clone())
            .collect::<Vec<_>>();
        assert_eq!(props, ["rev_rev", "sorted"]);
        assert_eq!(cases[0].name.as_deref(), Some("small one"));
        assert_eq!(cases[0].input, CaseInput::File("a.in".into()));
        assert_eq!(cases[0].expect, Expect::OutputFile("b.out.gz".into()));
        assert_eq!(cases[1].name, None);
        let CaseInput::Random(specs, _) = &cases[1].input else {
            panic!("{:?}", cases[1].input)
        };
        assert_eq!(
            specs[1..],
            [
                RandomValue::Constant(Scalar::U8(0)),
                RandomValue::Constant(Scalar::I32(10)),
                RandomValue::Constant(Scalar::F32(1.5)),
                RandomValue::Constant(Scalar::I64(-3)),
            ]
        );
        assert_eq!(specs[0].to_string(), "[2]u8");
        assert!(
            spec_err("-- ==\n-- \"open input { 1 }\n")
                .message
                .contains("unclosed")
        );
        assert!(
            spec_err("-- ==\n-- \"name\" output { 1 }\n")
                .message
                .contains("right before an `input`")
        );
        assert!(
            spec_err("-- ==\n-- random input { [99999999999999999999999]i32 }\n")
                .message
                .contains("64 bits")
        );
        assert!(
            spec_err("-- ==\n-- random input { 1x }\n")
                .message
                .contains("invalid random input `1x`")
        );
    }

    #[test]
    fn several_blocks_and_entry_groups() {
        let s = spec(
            "-- First\n-- ==\n-- entry: a\n-- input { 1 }\n-- entry: b c\n-- input { 2 }\n\ndef x = 1\n\n-- ==\n-- input { 3 }\n-- output { 3 }\n\n-- just prose after a blank line\n",
        );
        assert_eq!(s.blocks.len(), 3, "{s:?}");
        assert_eq!(s.blocks[1].description, "First");
        // A second `entry:` with cases before it starts a new block.
        let s2 = spec("-- ==\n-- entry: a\n-- input { 1 }\n-- entry: b c\n-- input { 2 }\n");
        assert_eq!(s2.blocks.len(), 2);
        assert_eq!(s2.blocks[1].entries, ["b", "c"]);
        assert_eq!(s2.blocks[1].cases[0].index, 0);
        assert_eq!(s2.blocks[1].description, "");
        assert_eq!(s.blocks[2].entries, ["main"]);
        // Comment runs without `==` are not blocks.
        assert!(spec("-- just a comment\ndef x = 1\n").blocks.is_empty());
    }

    #[test]
    fn malformed_blocks_are_diagnostics() {
        let d = spec_err("-- ==\n-- input { 1\n");
        assert!(d.message.contains("unclosed"));
        assert_eq!(d.span, Some(Span::new(FileId(0), 15, 16)));
        assert!(
            spec_err("-- ==\n-- output { 1 }\n")
                .message
                .contains("does not follow")
        );
        assert!(
            spec_err("-- ==\n-- input 1\n")
                .message
                .contains("expected `{` or `@`")
        );
        assert!(
            spec_err("-- ==\n-- frobnicate { 1 }\n")
                .message
                .contains("unknown")
        );
        assert!(
            spec_err("-- ==\n-- input { 1 }\n-- bogus: 2\n")
                .message
                .contains("unknown")
        );
        assert!(
            spec_err("-- ==\n-- input { 1 }\n-- error: (\n")
                .message
                .contains("regular expression")
        );
        assert!(
            spec_err("-- ==\n-- random input { [x]f32 }\n")
                .message
                .contains("dimension")
        );
        assert!(
            spec_err("-- ==\n-- random input { [2]q }\n")
                .message
                .contains("element type")
        );
        assert!(
            spec_err("-- ==\n-- entry:\n")
                .message
                .contains("names no entry")
        );
        assert!(
            spec_err("-- ==\n-- input { 1 }\n-- output { 1 }\n-- error: x\n")
                .message
                .contains("does not follow")
        );
        assert!(
            spec_err("-- ==\n-- input @\n")
                .message
                .contains("file name")
        );
        assert!(
            spec_err("-- ==\n-- input { 1 }\n-- auto foo\n")
                .message
                .contains("`output` after `auto`")
        );
        assert!(
            spec_err("-- ==\n-- = 1\n")
                .message
                .contains("unexpected `=`")
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(
            urchin_test_env::proptest_cases(256)
        ))]

        #[test]
        fn arbitrary_blocks_never_panic(s in "[-={}\\[\\]@:,. \n0-9a-z_é]{0,80}") {
            let _ = parse_test_spec(&s, FileId(0));
            let block = format!("-- ==\n-- {}", s.replace('\n', "\n-- "));
            if let Ok(spec) = parse_test_spec(&block, FileId(0)) {
                for c in spec.blocks.iter().flat_map(|b| &b.cases) {
                    if let CaseInput::Values(v, span) = &c.input {
                        proptest::prop_assert_eq!(&block[span.range()], v.as_str());
                        let _ = urchin_runtime::values::parse_values(v, FileId(0), 0);
                    }
                }
            }
        }
    }

    #[test]
    fn every_corpus_file_parses() {
        let Some(dir) = urchin_test_env::shared_data("corpus") else {
            return;
        };
        let files = crate::testing::runner::fut_files(&dir).expect("corpus is readable");
        assert!(!files.is_empty());
        for f in &files {
            let text = std::fs::read_to_string(f).expect("corpus file is readable");
            let s = parse_test_spec(&text, FileId(0))
                .unwrap_or_else(|d| panic!("{}: {d}", f.display()));
            assert!(!s.blocks.is_empty(), "{}", f.display());
            for b in &s.blocks {
                assert!(
                    b.compile_error.is_some() || !b.cases.is_empty(),
                    "{}: an empty block",
                    f.display()
                );
                for c in &b.cases {
                    // Every input and output parses as values.
                    if let CaseInput::Values(v, span) = &c.input {
                        urchin_runtime::values::parse_values(v, FileId(0), span.start as usize)
                            .unwrap_or_else(|d| panic!("{}: {d}", f.display()));
                    }
                    if let Expect::Output(v, span) = &c.expect {
                        urchin_runtime::values::parse_values(v, FileId(0), span.start as usize)
                            .unwrap_or_else(|d| panic!("{}: {d}", f.display()));
                    }
                }
            }
        }
    }

    fn corpus_spec(dir: &Path, name: &str) -> TestSpec {
        let text = std::fs::read_to_string(dir.join(name)).expect("corpus file is readable");
        parse_test_spec(&text, FileId(0)).unwrap_or_else(|d| panic!("{name}: {d}"))
    }

    #[test]
    fn corpus_contents() {
        let Some(dir) = urchin_test_env::shared_data("corpus") else {
            return;
        };
        let arith = corpus_spec(&dir, "lang/arith.fut");
        assert_eq!(arith.blocks.len(), 6);
        assert_eq!(arith.blocks[0].entries, ["ints"]);
        assert_eq!(arith.blocks[0].cases.len(), 2);
        assert_eq!(
            arith.blocks[0].description,
            "Integer and float arithmetic, literals and conversions."
        );
        assert_eq!(values(&arith.blocks[2].cases[0].input).trim(), "");
        assert!(
            matches!(&arith.blocks[5].cases[0].expect, Expect::Error(r, _) if r == "division by zero")
        );

        let amb = corpus_spec(&dir, "automap/ambiguous.fut");
        assert_eq!(amb.blocks.len(), 1);
        let (re, _) = amb.blocks[0]
            .compile_error
            .clone()
            .expect("a compile-error block");
        assert!(regex::Regex::new(&re).is_ok_and(|r| r.is_match("ambiguous")));
        assert!(amb.blocks[0].cases.is_empty());

        let kmeans = corpus_spec(&dir, "ad/kmeans.fut");
        let v = values(&kmeans.blocks[0].cases[0].input);
        let parsed =
            urchin_runtime::values::parse_values(v, FileId(0), 0).unwrap_or_else(|d| panic!("{d}"));
        assert_eq!(parsed.len(), 2);
        assert_eq!(parsed[0].shape(), &[5, 2]);

        let scalar = corpus_spec(&dir, "ad/scalar.fut");
        assert_eq!(scalar.blocks[0].entries, ["rev", "fwd"]);
        assert_eq!(scalar.blocks.len(), 4);

        let sizes = corpus_spec(&dir, "lang/sizes_and_errors.fut");
        let oob = &sizes.blocks[1];
        assert_eq!(oob.entries, ["oob"]);
        assert_eq!(oob.cases.len(), 3);
        assert!(matches!(&oob.cases[2].expect, Expect::Output(o, _) if o.trim() == "3"));

        let auto = corpus_spec(&dir, "automap/disambiguated.fut");
        assert_eq!(auto.blocks[0].entries, ["main"]);
    }
}
