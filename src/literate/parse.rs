//! Splitting a literate program into blocks, as `futhark literate` does:
//! top-level `-- ` comments are text, everything else is code, and a
//! comment line `-- > ...` after an empty line is a directive.

/// A part of the document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Block {
    /// Markdown, with the comment markers removed.
    Text(String),
    /// Definitions (with their doc comments), shown as a code block.
    Code(String),
    Directive(Directive),
}

/// `-- > :img e;` and its parameter lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Directive {
    pub show: Show,
    /// What follows `>` (and `:brief` or `:covert`), over several lines
    /// if it was incomplete on its first.
    pub command: String,
    /// The lines after a trailing `;`: `key: value` parameters, or a
    /// gnuplot script.
    pub params: Vec<String>,
    /// The line of the `-- >`, from 1.
    pub line: usize,
}

/// How much of a directive the document shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Show {
    /// The directive and its parameters.
    All,
    /// `:brief`: the directive without its parameters.
    Brief,
    /// `:covert`: only the result.
    Nothing,
}

/// The text of a top-level comment line (`--` alone, or `-- ` and text).
fn comment(line: &str) -> Option<&str> {
    if line.trim_end() == "--" {
        return Some("");
    }
    line.strip_prefix("-- ").map(str::trim_end)
}

/// The blocks of `source`. `incomplete` says whether a directive's
/// command needs more lines (as the REPL does for its input).
pub fn blocks(source: &str, incomplete: &dyn Fn(&str) -> bool) -> Vec<Block> {
    let lines: Vec<&str> = source.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    // Whether the previous line was empty (or there was none): where a
    // directive may start.
    let mut after_empty = true;
    while i < lines.len() {
        let line = lines[i];
        if line.trim().is_empty() {
            after_empty = true;
            i += 1;
            continue;
        }
        match comment(line) {
            Some(text) if after_empty && is_directive(text) => {
                let (d, next) = directive(&lines, i, incomplete);
                out.push(Block::Directive(d));
                i = next;
            }
            // A doc comment belongs to the definition below it.
            Some(text) if !text.trim_start().starts_with('|') => {
                let mut text_lines = Vec::new();
                while i < lines.len() {
                    let Some(t) = comment(lines[i]) else { break };
                    if t.is_empty()
                        && lines
                            .get(i + 1)
                            .and_then(|l| comment(l))
                            .is_some_and(is_directive)
                    {
                        i += 1;
                        break;
                    }
                    text_lines.push(t);
                    i += 1;
                }
                push_text(&mut out, &text_lines);
            }
            _ => {
                let start = i;
                let mut end = i;
                // Inside a doc comment, whose every line is code.
                let mut doc = false;
                while i < lines.len() {
                    let l = lines[i];
                    if l.trim().is_empty() {
                        doc = false;
                        i += 1;
                        continue;
                    }
                    match comment(l) {
                        Some(t) if t.trim_start().starts_with('|') => doc = true,
                        Some(_) if doc => {}
                        Some(_) => break,
                        None => doc = false,
                    }
                    i += 1;
                    end = i;
                }
                i = end;
                out.push(Block::Code(lines[start..end].join("\n")));
            }
        }
        after_empty = i > 0
            && lines
                .get(i - 1)
                .is_some_and(|l| l.trim().is_empty() || comment(l) == Some(""));
    }
    out
}

fn is_directive(text: &str) -> bool {
    text == ">" || text.starts_with("> ")
}

/// Text with its empty first and last lines dropped; nothing if that is
/// all there is.
fn push_text(out: &mut Vec<Block>, lines: &[&str]) {
    let first = lines.iter().position(|l| !l.is_empty());
    let last = lines.iter().rposition(|l| !l.is_empty());
    if let (Some(a), Some(b)) = (first, last) {
        out.push(Block::Text(lines[a..=b].join("\n")));
    }
}

/// The directive starting at line `i`, and the line after it.
fn directive(lines: &[&str], i: usize, incomplete: &dyn Fn(&str) -> bool) -> (Directive, usize) {
    let first = comment(lines[i]).unwrap_or("");
    let mut text = first[1..].trim().to_string();
    let mut show = Show::All;
    loop {
        if let Some(rest) = text.strip_prefix(":brief ") {
            show = Show::Brief;
            text = rest.trim_start().to_string();
        } else if let Some(rest) = text.strip_prefix(":covert ") {
            show = Show::Nothing;
            text = rest.trim_start().to_string();
        } else {
            break;
        }
    }
    let mut j = i + 1;
    let mut params = Vec::new();
    // `> :gnuplot e; plot a` on one line: what follows the `;` is the
    // first parameter line.
    if let Some(at) = text.find(';') {
        let rest = text[at + 1..].trim().to_string();
        if !rest.is_empty() {
            text.truncate(at + 1);
            params.push(rest);
        }
    }
    // The command goes on while it is incomplete; after a `;` the lines
    // up to an empty one are parameters.
    while j < lines.len() {
        let Some(t) = comment(lines[j]) else { break };
        if t.is_empty() {
            break;
        }
        if text.ends_with(';') || !params.is_empty() {
            params.push(t.to_string());
        } else if incomplete(&text) {
            text.push('\n');
            text.push_str(t);
        } else {
            break;
        }
        j += 1;
    }
    if let Some(stripped) = text.strip_suffix(';') {
        text = stripped.trim_end().to_string();
    }
    (
        Directive {
            show,
            command: text,
            params,
            line: i + 1,
        },
        j,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Vec<Block> {
        blocks(s, &|t: &str| t.trim_end().ends_with('('))
    }

    fn text(s: &str) -> Block {
        Block::Text(s.into())
    }

    fn code(s: &str) -> Block {
        Block::Code(s.into())
    }

    fn dir(show: Show, command: &str, params: &[&str], line: usize) -> Block {
        Block::Directive(Directive {
            show,
            command: command.into(),
            params: params.iter().map(|p| p.to_string()).collect(),
            line,
        })
    }

    #[test]
    fn comments_code_and_directives() {
        let src = "-- # Title\n--\n-- Some text.\n\ndef f x = x + 1\n\ndef g x = x\n\n-- > f 2\n\n-- More.\n";
        assert_eq!(
            parse(src),
            vec![
                text("# Title\n\nSome text."),
                code("def f x = x + 1\n\ndef g x = x"),
                dir(Show::All, "f 2", &[], 9),
                text("More."),
            ]
        );
    }

    #[test]
    fn parameters_may_follow_the_semicolon_on_its_line() {
        let src = "-- > :gnuplot {a = x}; set key off\n-- plot a\n";
        assert_eq!(
            parse(src),
            vec![dir(
                Show::All,
                ":gnuplot {a = x}",
                &["set key off", "plot a"],
                1
            )]
        );
    }

    #[test]
    fn a_directive_needs_an_empty_line_before_it() {
        let src = "-- Text\n-- > not a directive\n--\n-- > :brief :img x;\n-- file: a.png\n";
        assert_eq!(
            parse(src),
            vec![
                text("Text\n> not a directive"),
                dir(Show::Brief, ":img x", &["file: a.png"], 4),
            ]
        );
    }

    #[test]
    fn incomplete_directives_continue_and_parameters_follow_a_semicolon() {
        let src = "-- > :covert f (\n-- 1)\n-- text after\n\n-- > :gnuplot {a = x};\n-- set key off\n-- plot a\n";
        assert_eq!(
            parse(src),
            vec![
                dir(Show::Nothing, "f (\n1)", &[], 1),
                text("text after"),
                dir(Show::All, ":gnuplot {a = x}", &["set key off", "plot a"], 5),
            ]
        );
    }

    #[test]
    fn doc_comments_stay_with_their_definitions() {
        let src = "-- | Adds one.\n-- More doc.\ndef f x = x + 1\n-- A remark.\n";
        assert_eq!(
            parse(src),
            vec![
                code("-- | Adds one.\n-- More doc.\ndef f x = x + 1"),
                text("A remark."),
            ]
        );
    }
}
