//! Failed parses: chumsky's errors turned into diagnostics that say what
//! was expected in the words of the language, where a bracket is left
//! open, and what the user probably meant.

use crate::ast::NodeIds;
use crate::parser::{OPERATOR, P, PErr};
use crate::token::{Keyword, Token};
use chumsky::input::Input as _;
use chumsky::inspector::SimpleState;
use chumsky::prelude::*;
use urchin_base::diag::Diagnostic;
use urchin_base::source::{FileId, Span};

/// A failed parse: the diagnostics, and where it failed (for the REPL's
/// "needs another line" test and for choosing between alternatives).
pub(crate) struct Failure {
    pub diags: Vec<Diagnostic>,
    /// The parse ran out of input (as opposed to meeting a wrong token).
    pub at_eof: bool,
    /// Byte offset of the failure.
    pub pos: usize,
}

impl Failure {
    pub fn from_diag(d: Diagnostic) -> Failure {
        let pos = d.span.map(|s| s.start as usize).unwrap_or(0);
        Failure {
            diags: vec![d],
            at_eof: false,
            pos,
        }
    }
}

/// Run one entry point of the grammar over a token stream.
pub(crate) fn run<'a, O>(
    parser: &P<'a, O>,
    tokens: &'a [(Token, Span)],
    file: FileId,
    text_len: usize,
) -> Result<O, Failure> {
    let eoi = Span::new(file, text_len, text_len);
    // Nodes are numbered in their source: the same text parsed as the
    // same source gets the same ids.
    let mut ids = SimpleState(NodeIds::of_source(file));
    let (out, errs) = parser
        .parse_with_state(tokens.split_token_span(eoi), &mut ids)
        .into_output_errors();
    match (out, errs.first()) {
        (Some(o), None) => Ok(o),
        (_, Some(err)) => Err(convert(err, tokens, file)),
        (None, None) => Err(Failure {
            diags: vec![Diagnostic::parse("syntax error", eoi)],
            at_eof: false,
            pos: text_len,
        }),
    }
}

/// Tokens that close a construct; when one of them is expected it is the
/// most useful thing to mention.
fn structural_rank(t: &Token) -> Option<u8> {
    Some(match t {
        Token::Kw(Keyword::Then) => 0,
        Token::Kw(Keyword::Else) => 1,
        Token::Kw(Keyword::In) => 2,
        Token::Kw(Keyword::Do) => 3,
        Token::Kw(Keyword::For) => 4,
        Token::Kw(Keyword::While) => 5,
        Token::Kw(Keyword::Case) => 6,
        Token::Eq => 7,
        Token::Arrow => 8,
        Token::RParen => 9,
        Token::RBracket => 10,
        Token::RBrace => 11,
        Token::Comma => 12,
        _ => return None,
    })
}

fn word_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [a] => a.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

fn is_opener(t: &Token) -> bool {
    matches!(
        t,
        Token::LParen | Token::LBracket | Token::IndexBracket | Token::LBrace | Token::HashBracket
    )
}

fn closes(opener: &Token, closer: &Token) -> bool {
    matches!(
        (opener, closer),
        (Token::LParen, Token::RParen)
            | (
                Token::LBracket | Token::IndexBracket | Token::HashBracket,
                Token::RBracket
            )
            | (Token::LBrace, Token::RBrace)
    )
}

/// Bracket matching over the whole stream: the openers that are never
/// closed, and the closers that close nothing.
pub(crate) fn unbalanced(tokens: &[(Token, Span)]) -> (Vec<(Token, Span)>, Vec<Span>) {
    let mut stack: Vec<(Token, Span)> = Vec::new();
    let mut unclosed = Vec::new();
    let mut stray = Vec::new();
    for (t, s) in tokens {
        if is_opener(t) {
            stack.push((t.clone(), *s));
        } else if matches!(t, Token::RParen | Token::RBracket | Token::RBrace) {
            match stack.iter().rposition(|(o, _)| closes(o, t)) {
                Some(i) => unclosed.extend(stack.drain(i..).skip(1)),
                None => stray.push(*s),
            }
        }
    }
    unclosed.extend(stack);
    unclosed.sort_by_key(|(_, s)| s.start);
    (unclosed, stray)
}

/// What the parser would have accepted at an error, sorted for display.
struct Expected<'t> {
    /// Tokens that close or continue a construct (`then`, `)`, `=`, ...):
    /// when there are any, they are the likely fix and shown alone.
    structural: Vec<&'t Token>,
    /// Labelled alternatives ("an expression", "a type", end of input).
    labels: Vec<String>,
    /// Other tokens.
    others: Vec<String>,
    /// An operator could have continued an expression here.
    in_expression: bool,
}

impl<'t> Expected<'t> {
    fn classify(patterns: &'t [chumsky::error::RichPattern<'_, Token>]) -> Expected<'t> {
        use chumsky::error::RichPattern;
        let mut e = Expected {
            structural: Vec::new(),
            labels: Vec::new(),
            others: Vec::new(),
            in_expression: false,
        };
        for p in patterns {
            match p {
                RichPattern::Label(l) if l == OPERATOR => e.in_expression = true,
                RichPattern::Token(t) if structural_rank(t).is_some() => e.structural.push(t),
                RichPattern::Token(t) => e.others.push(t.to_string()),
                RichPattern::Label(l) => e.labels.push(l.to_string()),
                RichPattern::EndOfInput => e.labels.push("end of input".into()),
                _ => {}
            }
        }
        e.structural.sort_by_key(|t| structural_rank(t));
        e.structural.dedup();
        e.labels.dedup();
        e
    }

    fn has(&self, t: Token) -> bool {
        self.structural.contains(&&t)
    }

    /// "expected `)` or `,`"
    fn label(&self) -> Option<String> {
        let shown: Vec<String> = if !self.structural.is_empty() {
            self.structural.iter().map(|t| t.to_string()).collect()
        } else if !self.labels.is_empty() {
            self.labels.clone()
        } else if self.others.len() <= 4 {
            self.others.clone()
        } else {
            vec![OPERATOR.into()]
        };
        (!shown.is_empty()).then(|| format!("expected {}", word_list(&shown)))
    }
}

/// Help for a common slip, and optionally a second place to point at (the
/// `let` that lacks its `in`, ...).
fn slip_help(
    exp: &Expected,
    found: Option<&Token>,
    tokens: &[(Token, Span)],
    pos: usize,
) -> Option<(&'static str, Option<(Span, &'static str)>)> {
    // The construct the error is in, judged by the last keyword before it
    // that opens one.
    let last_kw = |ks: &[Keyword]| {
        tokens
            .iter()
            .rev()
            .filter(|(_, s)| (s.start as usize) < pos)
            .find_map(|(t, s)| match t {
                Token::Kw(k) if ks.contains(k) => Some((*k, *s)),
                _ => None,
            })
    };
    let at = |k: Keyword, msg: &'static str| last_kw(&[k]).map(|(_, s)| (s, msg));
    if found == Some(&Token::Eq) && !exp.has(Token::Eq) && exp.in_expression {
        return Some((
            "to compare for equality use `==`; a single `=` only appears in definitions, bindings and updates",
            None,
        ));
    }
    if exp.has(Token::Kw(Keyword::In)) {
        return Some((
            "a `let` must be followed by `in` and the body it scopes over: `let x = e in body` (in a chain of `let`s only the last one needs `in`)",
            at(Keyword::Let, "this `let` has no `in`"),
        ));
    }
    if exp.has(Token::Kw(Keyword::Then)) {
        return Some((
            "write a conditional as `if c then a else b`",
            at(Keyword::If, "the condition of this `if`"),
        ));
    }
    if exp.has(Token::Kw(Keyword::Else)) {
        return Some((
            "every `if` needs an `else` branch: `if c then a else b`",
            at(Keyword::If, "this `if` has no `else`"),
        ));
    }
    // Right after `match e`, before any case.
    let in_scrutinee = matches!(
        last_kw(&[Keyword::Match, Keyword::Case]),
        Some((Keyword::Match, _))
    );
    if exp.has(Token::Kw(Keyword::Case)) && in_scrutinee {
        return Some((
            "a `match` needs at least one case: `match e case p -> e1 case _ -> e2`",
            at(Keyword::Match, "this `match`"),
        ));
    }
    if exp.has(Token::Kw(Keyword::Do)) {
        return Some((
            "write a loop as `loop p = init for i < n do body` (or `for x in xs`, `while c`)",
            None,
        ));
    }
    if exp.has(Token::Arrow) {
        // In a lambda or a case, whichever began last.
        let in_case = tokens
            .iter()
            .rev()
            .filter(|(_, s)| (s.start as usize) < pos)
            .find_map(|(t, _)| match t {
                Token::Kw(Keyword::Case) => Some(true),
                Token::Backslash => Some(false),
                _ => None,
            })
            .unwrap_or(false);
        return Some(if in_case {
            (
                "a case needs `->` between its pattern and its result: `case #some x -> x`",
                at(Keyword::Case, "this case"),
            )
        } else {
            (
                "a lambda needs `->` between its parameters and its body: `\\x y -> x + y`",
                None,
            )
        });
    }
    if exp.has(Token::Eq) {
        use Keyword::*;
        let help = match last_kw(&[Def, Entry, Let, Type, Loop, With]) {
            Some((With, _)) => "an update is written `a with [i] = v` or `r with field = v`",
            Some((Loop, _)) => "write a loop as `loop p = init for i < n do body`",
            Some((Type, _)) => "a type abbreviation is written `type name = t`",
            _ => "a definition needs `=` before its body: `def f x = x + 1`",
        };
        return Some((help, None));
    }
    None
}

fn convert(err: &PErr<'_>, tokens: &[(Token, Span)], file: FileId) -> Failure {
    use chumsky::error::RichReason;
    let found = err.found();
    let at_eof = matches!(err.reason(), RichReason::ExpectedFound { found: None, .. });
    let span = if at_eof {
        // Point just after the last token rather than at trailing blanks.
        tokens
            .last()
            .map(|(_, s)| s.end_point())
            .unwrap_or(Span::new(file, 0, 0))
    } else {
        *err.span()
    };
    let pos = err.span().start as usize;
    let mut diag = match err.reason() {
        RichReason::Custom(msg) => Diagnostic::parse(msg.clone(), span),
        RichReason::ExpectedFound { expected, .. } => {
            let message = match found {
                // Futhark's wording, so that a message reads the same in both.
                Some(t) => format!("Unexpected token: '{}'", t.text()),
                None => "Unexpected end of input".to_string(),
            };
            let exp = Expected::classify(expected);
            let mut d = Diagnostic::parse(message, span);
            if let Some(label) = exp.label() {
                d = d.with_label(label);
            }
            if let Some((help, secondary)) = slip_help(&exp, found, tokens, pos) {
                if let Some((s, msg)) = secondary {
                    d = d.with_secondary(s, msg);
                }
                d = d.with_help(help);
            }
            d
        }
    };
    let (unclosed, stray) = unbalanced(tokens);
    if let Some((t, s)) = unclosed
        .iter()
        .rev()
        .find(|(_, s)| (s.start as usize) < pos)
    {
        diag = diag.with_secondary(*s, format!("this {t} is never closed"));
    } else if found.is_some() && stray.contains(&span) && diag.help.is_none() {
        diag = diag.with_help("this closing bracket has no matching opening bracket");
    }
    Failure {
        diags: vec![diag],
        at_eof,
        pos,
    }
}
