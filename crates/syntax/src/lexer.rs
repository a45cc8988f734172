//! A hand-written lexer. It never fails outright: text that is not a token
//! becomes [`Token::Error`] plus a diagnostic, so the REPL can highlight
//! half-typed input.
//!
//! Whitespace matters in two places, as in Futhark: `a[i]` (no space before
//! `[`) indexes while `f [1, 2]` applies `f` to an array literal, and `p.x`
//! (no space around `.`) projects a field. The lexer decides both and emits
//! distinct tokens so the parser needs no access to the text.

use super::ast::{BinOpKind, Liftedness, QualName, RangeKind, is_symbol_start};
use super::token::{Keyword, Token};
use urchin_base::diag::Diagnostic;
use urchin_base::source::{FileId, Span};
use urchin_prim::PrimType;

/// Punctuation that is not an operator symbol, longest first.
const PUNCTUATION: [(&str, Token); 11] = [
    (":>", Token::Coerce),
    (":", Token::Colon),
    (",", Token::Comma),
    ("(", Token::LParen),
    (")", Token::RParen),
    ("]", Token::RBracket),
    ("\\", Token::Backslash),
    ("{", Token::LBrace),
    ("}", Token::RBrace),
    ("`", Token::Backtick),
    ("?", Token::Question),
];

/// The token of an operator symbol (`symstartchar symchar*`): a built-in
/// operator, one of the reserved symbols, or a user-defined operator.
fn symbol_token(s: &str) -> Token {
    match s {
        "=" => Token::Eq,
        "->" => Token::Arrow,
        "!" => Token::Bang,
        _ => match BinOpKind::builtin(s) {
            Some(op) => Token::Op(op),
            None => Token::Op(BinOpKind::Symbol(QualName::plain(s))),
        },
    }
}

/// Tokenise `text`. Comments are skipped; errors are reported and lexing
/// goes on after them.
pub fn lex(text: &str, file: FileId) -> (Vec<(Token, Span)>, Vec<Diagnostic>) {
    // A byte-order mark, which some editors write first, is no token.
    let start = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let mut lx = Lexer {
        text,
        bytes: text.as_bytes(),
        pos: start,
        file,
        tokens: Vec::new(),
        diags: Vec::new(),
    };
    lx.run();
    (lx.tokens, lx.diags)
}

struct Lexer<'t> {
    text: &'t str,
    bytes: &'t [u8],
    pos: usize,
    file: FileId,
    tokens: Vec<(Token, Span)>,
    diags: Vec<Diagnostic>,
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn is_ident_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'\''
}

impl Lexer<'_> {
    fn at(&self, i: usize) -> Option<u8> {
        self.bytes.get(i).copied()
    }

    fn span(&self, start: usize, end: usize) -> Span {
        Span::new(self.file, start, end)
    }

    fn push(&mut self, tok: Token, start: usize) {
        let span = self.span(start, self.pos);
        self.tokens.push((tok, span));
    }

    fn error(&mut self, start: usize, message: String, label: &str) {
        let span = self.span(start, self.pos);
        self.diags
            .push(Diagnostic::parse(message, span).with_label(label.to_string()));
        self.tokens
            .push((Token::Error(self.text[start..self.pos].into()), span));
    }

    /// Does the previous token end exactly at `self.pos` and close an
    /// expression, so that `[` here indexes it?
    fn after_indexable(&self) -> bool {
        match self.tokens.last() {
            Some((t, s)) if s.end as usize == self.pos => matches!(
                t,
                Token::Ident(_)
                    | Token::RParen
                    | Token::RBracket
                    | Token::RBrace
                    | Token::Int(..)
                    | Token::Float(..)
                    | Token::Kw(Keyword::True | Keyword::False)
            ),
            _ => false,
        }
    }

    /// Does the previous token end exactly at `self.pos` and close an
    /// expression that a field projection `.x` can follow?
    fn after_projectable(&self) -> bool {
        match self.tokens.last() {
            Some((t, s)) if s.end as usize == self.pos => match t {
                Token::Ident(_) | Token::RParen | Token::RBracket | Token::RBrace => true,
                Token::Int(_, None) => self.int_is_field(),
                _ => false,
            },
            _ => false,
        }
    }

    /// Is the last token (an integer) a field number: right after a dot,
    /// or the first field of an update path (`r with 0.a = v`)?
    fn int_is_field(&self) -> bool {
        let n = self.tokens.len();
        n >= 2
            && match self.tokens[n - 2].0 {
                Token::Dot | Token::ProjDot => {
                    self.tokens[n - 2].1.end == self.tokens[n - 1].1.start
                }
                Token::Kw(Keyword::With) => true,
                _ => false,
            }
    }

    fn run(&mut self) {
        while let Some(b) = self.at(self.pos) {
            match b {
                b' ' | b'\t' | b'\n' | b'\r' => self.pos += 1,
                b'-' if self.at(self.pos + 1) == Some(b'-') => {
                    while self.at(self.pos).is_some_and(|c| c != b'\n') {
                        self.pos += 1;
                    }
                }
                b if is_ident_start(b) => self.ident(),
                b if b.is_ascii_digit() => self.number(),
                b'\'' => self.tick_or_char(),
                b'"' => self.string(),
                b'#' => self.hash(),
                b'.' => self.dot(),
                b'[' => {
                    let start = self.pos;
                    let tok = if self.after_indexable() {
                        Token::IndexBracket
                    } else {
                        Token::LBracket
                    };
                    self.pos += 1;
                    self.push(tok, start);
                }
                _ => self.symbol(),
            }
        }
    }

    fn word(&mut self) -> &str {
        let start = self.pos;
        while self.at(self.pos).is_some_and(is_ident_char) {
            self.pos += 1;
        }
        &self.text[start..self.pos]
    }

    fn ident(&mut self) {
        let start = self.pos;
        let w = self.word().to_string();
        if let Some(q) = self.qualified_symbol(&w) {
            self.push(Token::Op(BinOpKind::Symbol(q)), start);
            return;
        }
        let is_type = w == "type";
        let tok = if w == "_" {
            Token::Underscore
        } else if let Some(k) = Keyword::from_name(&w) {
            Token::Kw(k)
        } else {
            Token::Ident(w.into())
        };
        self.push(tok, start);
        // `type^` and `type~` (lifted abbreviations) are written together.
        if is_type {
            let lift = match self.at(self.pos) {
                Some(b'^') => Liftedness::Lifted,
                Some(b'~') => Liftedness::SizeLifted,
                _ => return,
            };
            let start = self.pos;
            self.pos += 1;
            self.push(Token::Lift(lift), start);
        }
    }

    /// `M.+`, `M.N.<=`: after the name `first`, a path of names directly
    /// followed by `.` and an operator symbol is a qualified operator
    /// (consumed); anything else (`M.x`, a projection `r.f`) is left to
    /// the following tokens.
    fn qualified_symbol(&mut self, first: &str) -> Option<QualName> {
        let mut quals: Vec<crate::ast::Ident> = vec![first.into()];
        let mut p = self.pos;
        loop {
            if self.at(p) != Some(b'.') {
                return None;
            }
            match self.at(p + 1) {
                Some(c) if is_symbol_start(c) => break,
                Some(c) if is_ident_start(c) => {
                    let mut end = p + 1;
                    while self.at(end).is_some_and(is_ident_char) {
                        end += 1;
                    }
                    quals.push(self.text[p + 1..end].into());
                    p = end;
                }
                _ => return None,
            }
        }
        self.pos = p + 1;
        let sym = self.symbol_text().to_string();
        Some(QualName {
            quals,
            name: sym.into(),
            entity: None,
        })
    }

    fn digits(&mut self, ok: impl Fn(u8) -> bool) {
        while self.at(self.pos).is_some_and(|c| ok(c) || c == b'_') {
            self.pos += 1;
        }
    }

    fn number(&mut self) {
        let start = self.pos;
        // After a dot, digits are a field number: `t.0.1` is two projections.
        let after_dot = matches!(
            self.tokens.last(),
            Some((Token::Dot | Token::ProjDot, s)) if s.end as usize == start
        );
        if after_dot {
            while self.at(self.pos).is_some_and(|c| c.is_ascii_digit()) {
                self.pos += 1;
            }
            return self.int_token(start, start..self.pos, 10, None);
        }
        let radix_prefix = match (self.at(start), self.at(start + 1)) {
            (Some(b'0'), Some(b'x' | b'X')) => 16,
            (Some(b'0'), Some(b'b' | b'B')) => 2,
            _ => 10,
        };
        if radix_prefix != 10 {
            self.pos += 2;
            if radix_prefix == 16 {
                self.digits(|c| c.is_ascii_hexdigit());
                let fraction = self.at(self.pos) == Some(b'.')
                    && self.at(self.pos + 1).is_some_and(|c| c.is_ascii_hexdigit());
                if fraction || matches!(self.at(self.pos), Some(b'p' | b'P')) {
                    return self.hex_float(start);
                }
            } else {
                self.digits(|c| c == b'0' || c == b'1');
            }
            let digits = start + 2..self.pos;
            return match self.suffix() {
                Suffix::None => self.int_token(start, digits, radix_prefix, None),
                Suffix::Int(t) => self.int_token(start, digits, radix_prefix, Some(t)),
                _ => self.error(
                    start,
                    "invalid suffix on a hexadecimal or binary literal".into(),
                    "only integer suffixes like `i64` can follow here",
                ),
            };
        }
        self.digits(|c| c.is_ascii_digit());
        let mut is_float = false;
        if self.at(self.pos) == Some(b'.')
            && self.at(self.pos + 1).is_some_and(|c| c.is_ascii_digit())
        {
            self.pos += 1;
            self.digits(|c| c.is_ascii_digit());
            is_float = true;
        }
        if matches!(self.at(self.pos), Some(b'e' | b'E')) {
            let sign = matches!(self.at(self.pos + 1), Some(b'+' | b'-')) as usize;
            if self
                .at(self.pos + 1 + sign)
                .is_some_and(|c| c.is_ascii_digit())
            {
                self.pos += 1 + sign;
                self.digits(|c| c.is_ascii_digit());
                is_float = true;
            }
        }
        let text_end = self.pos;
        match self.suffix() {
            Suffix::None if is_float => self.float_token(start, text_end, None),
            Suffix::None => self.int_token(start, start..text_end, 10, None),
            Suffix::Int(t) if !is_float => self.int_token(start, start..text_end, 10, Some(t)),
            Suffix::Int(_) => self.error(
                start,
                "a float literal cannot have an integer suffix".into(),
                "use `f16`, `f32` or `f64`",
            ),
            Suffix::Float(t) => self.float_token(start, text_end, Some(t)),
            Suffix::Bad(s) => self.error(
                start,
                format!("invalid suffix `{s}` on a numeric literal"),
                "suffixes are i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64",
            ),
        }
    }

    /// `0x1.fp3`: hexadecimal digits (the integer part is lexed already),
    /// an optional hexadecimal fraction, and a binary exponent.
    fn hex_float(&mut self, start: usize) {
        let int_digits = self.text[start + 2..self.pos].replace('_', "");
        let mut frac_digits = String::new();
        if self.at(self.pos) == Some(b'.') {
            self.pos += 1;
            let from = self.pos;
            self.digits(|c| c.is_ascii_hexdigit());
            frac_digits = self.text[from..self.pos].replace('_', "");
        }
        if !matches!(self.at(self.pos), Some(b'p' | b'P')) {
            return self.error(
                start,
                "a hexadecimal float needs a binary exponent".into(),
                "write it like `0x1.8p3` (1.5 times 2 to the 3rd)",
            );
        }
        self.pos += 1;
        let exp_from = self.pos;
        if matches!(self.at(self.pos), Some(b'+' | b'-')) {
            self.pos += 1;
        }
        self.digits(|c| c.is_ascii_digit());
        let exponent = self.text[exp_from..self.pos]
            .replace('_', "")
            .parse::<i32>();
        let text_end = self.pos;
        let Ok(exponent) = exponent else {
            return self.error(
                start,
                "malformed hexadecimal float".into(),
                "the exponent after `p` needs decimal digits",
            );
        };
        let mantissa = int_digits
            .chars()
            .chain(frac_digits.chars())
            .fold(0f64, |acc, d| {
                acc * 16.0 + d.to_digit(16).unwrap_or(0) as f64
            });
        // In i64: `p-2147483648` less the fraction's digits is past i32.
        let scale = i64::from(exponent) - 4 * frac_digits.len() as i64;
        let scale = i32::try_from(scale).unwrap_or(if scale < 0 { i32::MIN } else { i32::MAX });
        let value = mantissa * 2f64.powi(scale);
        let text: std::rc::Rc<str> = self.text[start..text_end].into();
        match self.suffix() {
            Suffix::None => self.push(Token::Float(value, text, None), start),
            Suffix::Float(t) => self.push(Token::Float(value, text, Some(t)), start),
            _ => self.error(
                start,
                "invalid suffix on a hexadecimal float".into(),
                "only `f16`, `f32` or `f64` can follow here",
            ),
        }
    }

    /// A type suffix directly after a number: `1i64`, `2f32`.
    fn suffix(&mut self) -> Suffix {
        if !self.at(self.pos).is_some_and(is_ident_start) {
            return Suffix::None;
        }
        let w = self.word();
        match PrimType::from_name(w) {
            Some(t) if t.is_int() => Suffix::Int(t),
            Some(t) if t.is_float() => Suffix::Float(t),
            _ => Suffix::Bad(w.to_string()),
        }
    }

    fn int_token(
        &mut self,
        start: usize,
        digits: std::ops::Range<usize>,
        radix: u32,
        suffix: Option<PrimType>,
    ) {
        let digits = self.text[digits].replace('_', "");
        if digits.is_empty() {
            return self.error(start, "a number needs digits".into(), "no digits here");
        }
        match u128::from_str_radix(&digits, radix) {
            Ok(v) => self.push(Token::Int(v, suffix), start),
            Err(_) => self.error(
                start,
                "integer literal is too large".into(),
                "this does not fit in 128 bits",
            ),
        }
    }

    fn float_token(&mut self, start: usize, text_end: usize, suffix: Option<PrimType>) {
        let text = &self.text[start..text_end];
        match text.replace('_', "").parse::<f64>() {
            Ok(v) => self.push(Token::Float(v, text.into(), suffix), start),
            Err(_) => self.error(start, "malformed float literal".into(), "not a number"),
        }
    }

    fn tick_or_char(&mut self) {
        let start = self.pos;
        let rest = &self.text[start + 1..];
        let mut chars = rest.chars();
        let first = chars.next();
        let char_len = match (first, chars.next()) {
            (Some('\\'), Some(escaped)) => {
                // Skip the escaped character, which may be a quote.
                let from = 1 + escaped.len_utf8();
                rest[from..]
                    .find(['\'', '\n'])
                    .filter(|&i| rest.as_bytes()[from + i] == b'\'')
                    .map(|i| from + i + 2)
            }
            (Some(c), Some('\'')) if c != '\'' && c != '\n' => Some(c.len_utf8() + 2),
            _ => None,
        };
        if let Some(len) = char_len {
            self.pos += len;
            let t = &self.text[start..self.pos];
            return match urchin_base::escape::unescape(&t[1..t.len() - 1]) {
                Ok(s) if s.chars().count() == 1 => self.push(Token::Char(t.into()), start),
                Ok(_) => self.error(
                    start,
                    "a character literal holds one character".into(),
                    "use a string literal `\"...\"` for several",
                ),
                Err(m) => self.error(start, m, "not a valid escape"),
            };
        }
        if first == Some('\\') {
            self.pos += 2;
            return self.error(
                start,
                "unterminated character literal".into(),
                "expected a closing `'`",
            );
        }
        let lift = match first {
            Some('^') => Liftedness::Lifted,
            Some('~') => Liftedness::SizeLifted,
            _ => Liftedness::Plain,
        };
        self.pos += if lift == Liftedness::Plain { 1 } else { 2 };
        self.push(Token::Tick(lift), start);
    }

    fn string(&mut self) {
        let start = self.pos;
        self.pos += 1;
        loop {
            match self.at(self.pos) {
                Some(b'"') => {
                    self.pos += 1;
                    let t = &self.text[start..self.pos];
                    return match urchin_base::escape::unescape(&t[1..t.len() - 1]) {
                        Ok(_) => self.push(Token::Str(t.into()), start),
                        Err(m) => self.error(start, m, "not a valid escape"),
                    };
                }
                Some(b'\\') if self.at(self.pos + 1).is_some_and(|c| c != b'\n') => {
                    self.pos += 1;
                    self.skip_char();
                }
                Some(b'\n') | None => {
                    return self.error(
                        start,
                        "unterminated string literal".into(),
                        "expected a closing `\"` on this line",
                    );
                }
                Some(_) => self.skip_char(),
            }
        }
    }

    fn skip_char(&mut self) {
        self.pos += self.text[self.pos..]
            .chars()
            .next()
            .map(char::len_utf8)
            .unwrap_or(1);
    }

    fn hash(&mut self) {
        let start = self.pos;
        self.pos += 1;
        match self.at(self.pos) {
            Some(b'[') => {
                self.pos += 1;
                self.push(Token::HashBracket, start);
            }
            Some(c) if is_ident_start(c) => {
                let name = self.word().to_string();
                self.push(Token::Constructor(name.into()), start);
            }
            _ => self.error(
                start,
                "unexpected character `#`".into(),
                "`#` only starts an attribute `#[...]`",
            ),
        }
    }

    fn dot(&mut self) {
        let start = self.pos;
        if self.at(self.pos + 1) == Some(b'.') {
            self.pos += 2;
            let tok = match self.at(self.pos) {
                Some(b'.') => Token::Range(RangeKind::Inclusive),
                Some(b'<') => Token::Range(RangeKind::UpTo),
                Some(b'>') => Token::Range(RangeKind::DownTo),
                _ => Token::DotDot,
            };
            if tok != Token::DotDot {
                self.pos += 1;
            }
            return self.push(tok, start);
        }
        let field_next = self
            .at(self.pos + 1)
            .is_some_and(|c| is_ident_start(c) || c.is_ascii_digit());
        let tok = if field_next && self.after_projectable() {
            Token::ProjDot
        } else {
            Token::Dot
        };
        self.pos += 1;
        self.push(tok, start);
    }

    /// The longest operator symbol here (`symstartchar symchar*`); it
    /// stops before `--`, which starts a comment.
    fn symbol_text(&mut self) -> &str {
        let start = self.pos;
        self.pos += 1;
        while let Some(c) = self.at(self.pos) {
            let comment = c == b'-' && self.at(self.pos + 1) == Some(b'-');
            if comment || !(is_symbol_start(c) || c == b'.') {
                break;
            }
            self.pos += 1;
        }
        &self.text[start..self.pos]
    }

    fn symbol(&mut self) {
        let start = self.pos;
        if self.bytes[start] == b'?' && self.text[start..].starts_with("???") {
            self.pos += 3;
            return self.push(Token::Hole, start);
        }
        if is_symbol_start(self.bytes[start]) {
            let tok = symbol_token(self.symbol_text());
            return self.push(tok, start);
        }
        let rest = &self.text[start..];
        let found = PUNCTUATION
            .iter()
            .find(|(s, _)| rest.starts_with(s))
            .cloned();
        match found {
            Some((s, tok)) => {
                self.pos += s.len();
                self.push(tok, start);
            }
            None => {
                self.skip_char();
                let c = &self.text[start..self.pos];
                // An invisible character is named by its code.
                let shown = match c.chars().next() {
                    Some(ch) if ch.is_control() || ch.is_whitespace() || ch == '\u{feff}' => {
                        format!("U+{:04X}", ch as u32)
                    }
                    _ => format!("`{c}`"),
                };
                self.error(
                    start,
                    format!("unexpected character {shown}"),
                    "not part of any token",
                );
            }
        }
    }
}

/// The characters of a string or character literal token (quotes
/// included), whose escapes the lexer has checked.
pub(crate) fn literal_text(token: &str) -> String {
    token
        .get(1..token.len().saturating_sub(1))
        .and_then(|body| urchin_base::escape::unescape(body).ok())
        .unwrap_or_default()
}

enum Suffix {
    None,
    Int(PrimType),
    Float(PrimType),
    Bad(String),
}
