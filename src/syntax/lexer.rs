//! A hand-written lexer. It never fails outright: text that is not a token
//! becomes [`Token::Error`] plus a diagnostic, so the REPL can highlight
//! half-typed input.
//!
//! Whitespace matters in two places, as in Futhark: `a[i]` (no space before
//! `[`) indexes while `f [1, 2]` applies `f` to an array literal, and `p.x`
//! (no space around `.`) projects a field. The lexer decides both and emits
//! distinct tokens so the parser needs no access to the text.

use super::ast::{BinOpKind, Liftedness};
use super::token::{Keyword, Token};
use crate::diag::Diagnostic;
use crate::prim::PrimType;
use crate::source::{FileId, Span};

/// Names that qualify a member of a built-in module when directly followed
/// by `.name`.
const QUALIFIERS: [&str; 12] = [
    "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f16", "f32", "f64", "bool",
];

/// Operator symbols, longest first so that the first match is the longest.
const SYMBOLS: [(&str, Sym); 45] = [
    (">>>", Sym::Op(BinOpKind::UShr)),
    (">->", Sym::Op(BinOpKind::ComposeRight)),
    ("<-<", Sym::Op(BinOpKind::ComposeLeft)),
    ("//", Sym::Op(BinOpKind::Quot)),
    ("%%", Sym::Op(BinOpKind::Rem)),
    ("**", Sym::Op(BinOpKind::Pow)),
    ("==", Sym::Op(BinOpKind::Eq)),
    ("!=", Sym::Op(BinOpKind::Neq)),
    ("<=", Sym::Op(BinOpKind::Le)),
    (">=", Sym::Op(BinOpKind::Ge)),
    ("&&", Sym::Op(BinOpKind::And)),
    ("||", Sym::Op(BinOpKind::Or)),
    ("<<", Sym::Op(BinOpKind::Shl)),
    (">>", Sym::Op(BinOpKind::Shr)),
    ("++", Sym::Op(BinOpKind::Concat)),
    ("|>", Sym::Op(BinOpKind::PipeRight)),
    ("<|", Sym::Op(BinOpKind::PipeLeft)),
    ("->", Sym::Tok(Token::Arrow)),
    (":>", Sym::Tok(Token::Coerce)),
    ("+=", Sym::Unsupported("`+=`-style update sugar")),
    ("-=", Sym::Unsupported("`-=`-style update sugar")),
    ("*=", Sym::Unsupported("`*=`-style update sugar")),
    ("/=", Sym::Unsupported("`/=`-style update sugar")),
    ("+", Sym::Op(BinOpKind::Add)),
    ("-", Sym::Op(BinOpKind::Sub)),
    ("*", Sym::Op(BinOpKind::Mul)),
    ("/", Sym::Op(BinOpKind::Div)),
    ("%", Sym::Op(BinOpKind::Mod)),
    ("<", Sym::Op(BinOpKind::Lt)),
    (">", Sym::Op(BinOpKind::Gt)),
    ("&", Sym::Op(BinOpKind::BitAnd)),
    ("|", Sym::Op(BinOpKind::BitOr)),
    ("^", Sym::Op(BinOpKind::BitXor)),
    ("!", Sym::Tok(Token::Bang)),
    ("=", Sym::Tok(Token::Eq)),
    (":", Sym::Tok(Token::Colon)),
    (",", Sym::Tok(Token::Comma)),
    ("(", Sym::Tok(Token::LParen)),
    (")", Sym::Tok(Token::RParen)),
    ("]", Sym::Tok(Token::RBracket)),
    ("\\", Sym::Tok(Token::Backslash)),
    ("{", Sym::Tok(Token::LBrace)),
    ("}", Sym::Tok(Token::RBrace)),
    ("`", Sym::Tok(Token::Backtick)),
    ("?", Sym::Tok(Token::Question)),
];

#[derive(Clone)]
enum Sym {
    Op(BinOpKind),
    Tok(Token),
    Unsupported(&'static str),
}

/// Tokenise `text`. Comments are skipped; errors are reported and lexing
/// goes on after them.
pub fn lex(text: &str, file: FileId) -> (Vec<(Token, Span)>, Vec<Diagnostic>) {
    let mut lx = Lexer {
        text,
        bytes: text.as_bytes(),
        pos: 0,
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
                    | Token::Qual(..)
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
                Token::Ident(_)
                | Token::Qual(..)
                | Token::RParen
                | Token::RBracket
                | Token::RBrace => true,
                Token::Int(_, None) => self.int_is_field(),
                _ => false,
            },
            _ => false,
        }
    }

    /// Is the last token (an integer) a field number, i.e. right after a dot?
    fn int_is_field(&self) -> bool {
        let n = self.tokens.len();
        n >= 2
            && matches!(self.tokens[n - 2].0, Token::Dot | Token::ProjDot)
            && self.tokens[n - 2].1.end == self.tokens[n - 1].1.start
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
        if QUALIFIERS.contains(&w.as_str())
            && self.at(self.pos) == Some(b'.')
            && self.at(self.pos + 1).is_some_and(is_ident_start)
        {
            self.pos += 1;
            let name = self.word().to_string();
            self.push(Token::Qual(w.into(), name.into()), start);
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
            (Some('\\'), _) => rest[1..]
                .find(['\'', '\n'])
                .filter(|&i| rest.as_bytes()[1 + i] == b'\'')
                .map(|i| i + 3),
            (Some(c), Some('\'')) if c != '\'' && c != '\n' => Some(c.len_utf8() + 2),
            _ => None,
        };
        if let Some(len) = char_len {
            self.pos += len;
            let t = self.text[start..self.pos].into();
            return self.push(Token::Char(t), start);
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
                    let t = self.text[start..self.pos].into();
                    return self.push(Token::Str(t), start);
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
            if matches!(self.at(self.pos), Some(b'.' | b'<' | b'>')) {
                self.pos += 1;
            }
            let t = self.text[start..self.pos].into();
            return self.push(Token::Unsupported("range expressions", t), start);
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

    fn symbol(&mut self) {
        let start = self.pos;
        let rest = &self.text[start..];
        let found = SYMBOLS.iter().find(|(s, _)| rest.starts_with(s)).cloned();
        match found {
            Some((s, sym)) => {
                self.pos += s.len();
                let tok = match sym {
                    Sym::Op(o) => Token::Op(o),
                    Sym::Tok(t) => t,
                    Sym::Unsupported(what) => Token::Unsupported(what, s.into()),
                };
                self.push(tok, start);
            }
            None => {
                self.skip_char();
                let c = &self.text[start..self.pos];
                self.error(
                    start,
                    format!("unexpected character `{c}`"),
                    "not part of any token",
                );
            }
        }
    }
}

enum Suffix {
    None,
    Int(PrimType),
    Float(PrimType),
    Bad(String),
}
