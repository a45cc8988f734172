//! Syntax highlighting of the input line, from the lexer's token classes.

use super::commands::{self, Arg};
use super::style::{Style, paint};
use urchin_base::source::FileId;
use urchin_syntax::{Keyword, Token, TokenClass, lex};

/// The line with colours; the text itself is unchanged.
pub fn highlight(line: &str, color: bool) -> String {
    if !line.trim_start().starts_with(':') {
        return code(line, color);
    }
    let (name, at) = commands::split(line);
    let at = at.min(line.len());
    let cmd = commands::find(name);
    let style = if cmd.is_some() {
        Style::Command
    } else {
        Style::Error
    };
    let head = paint(&line[..at], style, color);
    match cmd {
        Some(c) if c.arg == Arg::Expr => head + &code(&line[at..], color),
        _ => head + &line[at..],
    }
}

fn code(text: &str, color: bool) -> String {
    let (tokens, _) = lex(text, FileId(0));
    let mut out = String::new();
    let mut at = 0;
    for (tok, span) in tokens {
        let (start, end) = (span.start as usize, span.end as usize);
        let (Some(gap), Some(word)) = (text.get(at..start), text.get(start..end)) else {
            continue;
        };
        out.push_str(&comments(gap, color));
        let style = match tok.class() {
            TokenClass::Keyword => Some(Style::Keyword),
            TokenClass::Literal if matches!(tok, Token::Kw(Keyword::True | Keyword::False)) => {
                Some(Style::Bool)
            }
            TokenClass::Literal => Some(Style::Number),
            TokenClass::Operator => Some(Style::Operator),
            TokenClass::Error => Some(Style::Error),
            TokenClass::Identifier | TokenClass::Punctuation => None,
        };
        match style {
            Some(s) => out.push_str(&paint(word, s, color)),
            None => out.push_str(word),
        }
        at = end;
    }
    out.push_str(&comments(text.get(at..).unwrap_or(""), color));
    out
}

/// Text between tokens: whitespace and comments, which are dimmed.
fn comments(gap: &str, color: bool) -> String {
    let mut out = String::new();
    for (i, line) in gap.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        match line.find("--") {
            Some(c) => {
                out.push_str(&line[..c]);
                out.push_str(&paint(&line[c..], Style::Comment, color));
            }
            None => out.push_str(line),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_kept() {
        for line in [
            "let xs = [1, 2, 3] in map (+1) xs -- note",
            ":type f32.sqrt 2.0",
            ":nonsense",
            "\"unterminated",
            "héllo ∀ x",
            "",
        ] {
            assert_eq!(highlight(line, false), line);
        }
    }

    #[test]
    fn tokens_are_coloured() {
        colored::control::set_override(true);
        let h = highlight("if true then 1 else 2 -- c", true);
        assert!(h.contains("\u{1b}["), "{h:?}");
        let plain = String::from_utf8(strip(h.as_bytes())).unwrap();
        assert_eq!(plain, "if true then 1 else 2 -- c");
    }

    /// Removes ANSI escape sequences.
    fn strip(bytes: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i] == 0x1b {
                while i < bytes.len() && bytes[i] != b'm' {
                    i += 1;
                }
                i += 1;
            } else {
                out.push(bytes[i]);
                i += 1;
            }
        }
        out
    }
}
