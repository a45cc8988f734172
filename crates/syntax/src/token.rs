//! Tokens produced by the lexer.

use super::ast::{BinOpKind, Ident, Liftedness, RangeKind};
use std::fmt;
use std::rc::Rc;
use urchin_prim::PrimType;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Keyword {
    Def,
    Let,
    Entry,
    Type,
    In,
    If,
    Then,
    Else,
    Loop,
    For,
    While,
    Do,
    With,
    True,
    False,
    Match,
    Case,
    Module,
    Open,
    Import,
    Local,
    Include,
    Val,
}

impl Keyword {
    pub const ALL: [Keyword; 23] = [
        Keyword::Def,
        Keyword::Let,
        Keyword::Entry,
        Keyword::Type,
        Keyword::In,
        Keyword::If,
        Keyword::Then,
        Keyword::Else,
        Keyword::Loop,
        Keyword::For,
        Keyword::While,
        Keyword::Do,
        Keyword::With,
        Keyword::True,
        Keyword::False,
        Keyword::Match,
        Keyword::Case,
        Keyword::Module,
        Keyword::Open,
        Keyword::Import,
        Keyword::Local,
        Keyword::Include,
        Keyword::Val,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Keyword::Def => "def",
            Keyword::Let => "let",
            Keyword::Entry => "entry",
            Keyword::Type => "type",
            Keyword::In => "in",
            Keyword::If => "if",
            Keyword::Then => "then",
            Keyword::Else => "else",
            Keyword::Loop => "loop",
            Keyword::For => "for",
            Keyword::While => "while",
            Keyword::Do => "do",
            Keyword::With => "with",
            Keyword::True => "true",
            Keyword::False => "false",
            Keyword::Match => "match",
            Keyword::Case => "case",
            Keyword::Module => "module",
            Keyword::Open => "open",
            Keyword::Import => "import",
            Keyword::Local => "local",
            Keyword::Include => "include",
            Keyword::Val => "val",
        }
    }

    pub fn from_name(s: &str) -> Option<Keyword> {
        Keyword::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

/// One token. Spans are kept beside tokens, in `(Token, Span)` pairs.
#[derive(Clone, Debug, PartialEq)]
pub enum Token {
    Ident(Ident),
    Int(u128, Option<PrimType>),
    /// Value, spelling without suffix, suffix.
    Float(f64, Rc<str>, Option<PrimType>),
    Kw(Keyword),
    /// A binary operator symbol (never `Backtick`).
    Op(BinOpKind),
    /// `!`
    Bang,
    /// `=`
    Eq,
    /// `->`
    Arrow,
    /// `\`
    Backslash,
    Colon,
    Comma,
    LParen,
    RParen,
    /// `[` that does not directly follow an expression: an array literal,
    /// an array type or a size parameter.
    LBracket,
    /// `[` directly after an expression (`a[i]`): indexing.
    IndexBracket,
    RBracket,
    LBrace,
    RBrace,
    /// `.` that does not directly follow an expression (`(.0)`).
    Dot,
    /// `.` directly after an expression and before a field (`p.x`).
    ProjDot,
    Backtick,
    /// `#[`, opening an attribute.
    HashBracket,
    /// `'`, `'~`, `'^` before a type parameter.
    Tick(Liftedness),
    /// `_`
    Underscore,
    /// `'a'` (T2).
    Char(Rc<str>),
    /// `"..."` (T2).
    Str(Rc<str>),
    /// `#name`, a sum type constructor.
    Constructor(Ident),
    /// `:>`, a size coercion.
    Coerce,
    /// `?`, opening an existential size `?[n].t`.
    Question,
    /// `^` or `~` directly after `type`: a lifted type abbreviation.
    Lift(Liftedness),
    /// Text that is not a token; the lexer has reported it.
    Error(Rc<str>),
    /// `???`, a typed hole.
    Hole,
    /// `..` between the first and second element of a range.
    DotDot,
    /// `...`, `..<`, `..>` before the end of a range.
    Range(RangeKind),
}

/// What kind of thing a token is, for syntax highlighting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenClass {
    Keyword,
    Literal,
    Operator,
    Identifier,
    Punctuation,
    Error,
}

impl Token {
    pub fn class(&self) -> TokenClass {
        match self {
            Token::Ident(_) | Token::Constructor(_) => TokenClass::Identifier,
            Token::Int(..)
            | Token::Float(..)
            | Token::Char(_)
            | Token::Str(_)
            | Token::Hole
            | Token::Kw(Keyword::True | Keyword::False) => TokenClass::Literal,
            Token::Kw(_) => TokenClass::Keyword,
            Token::Op(_)
            | Token::Bang
            | Token::Eq
            | Token::Arrow
            | Token::Backslash
            | Token::DotDot
            | Token::Range(_)
            | Token::Coerce => TokenClass::Operator,
            Token::Colon
            | Token::Comma
            | Token::LParen
            | Token::RParen
            | Token::LBracket
            | Token::IndexBracket
            | Token::RBracket
            | Token::LBrace
            | Token::RBrace
            | Token::Dot
            | Token::ProjDot
            | Token::Backtick
            | Token::HashBracket
            | Token::Tick(_)
            | Token::Lift(_)
            | Token::Question
            | Token::Underscore => TokenClass::Punctuation,
            Token::Error(_) => TokenClass::Error,
        }
    }

    /// The token as it is written (literals in their canonical spelling).
    pub fn text(&self) -> String {
        match self {
            Token::Ident(x) => x.to_string(),
            Token::Int(v, s) => format!("{v}{}", s.map(|s| s.name()).unwrap_or("")),
            Token::Float(_, t, s) => format!("{t}{}", s.map(|s| s.name()).unwrap_or("")),
            Token::Kw(k) => k.as_str().to_string(),
            Token::Op(o) => o.symbol(),
            Token::Bang => "!".into(),
            Token::Eq => "=".into(),
            Token::Arrow => "->".into(),
            Token::Backslash => "\\".into(),
            Token::Colon => ":".into(),
            Token::Comma => ",".into(),
            Token::LParen => "(".into(),
            Token::RParen => ")".into(),
            Token::LBracket | Token::IndexBracket => "[".into(),
            Token::RBracket => "]".into(),
            Token::LBrace => "{".into(),
            Token::RBrace => "}".into(),
            Token::Dot | Token::ProjDot => ".".into(),
            Token::Backtick => "`".into(),
            Token::HashBracket => "#[".into(),
            Token::Tick(Liftedness::Plain) => "'".into(),
            Token::Tick(Liftedness::SizeLifted) => "'~".into(),
            Token::Tick(Liftedness::Lifted) => "'^".into(),
            Token::Underscore => "_".into(),
            Token::Coerce => ":>".into(),
            Token::Question => "?".into(),
            Token::Lift(Liftedness::Lifted) => "^".into(),
            Token::Lift(_) => "~".into(),
            Token::Char(s) | Token::Str(s) | Token::Error(s) => s.to_string(),
            Token::Constructor(c) => format!("#{c}"),
            Token::Hole => "???".into(),
            Token::DotDot => "..".into(),
            Token::Range(k) => k.symbol().into(),
        }
    }
}

impl fmt::Display for Token {
    /// Quoted for messages: `` `then` ``.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if *self == Token::Backtick {
            return write!(f, "a backtick");
        }
        write!(f, "`{}`", self.text())
    }
}
