//! Lexer tests: adjacency-sensitive tokens, literals, errors.

use urchin_base::source::FileId;
use urchin_prim::PrimType;
use urchin_syntax::ast::{BinOpKind, Liftedness, QualName, RangeKind};
use urchin_syntax::{Keyword, Token, TokenClass, lex};

fn toks(s: &str) -> Vec<Token> {
    let (ts, ds) = lex(s, FileId(0));
    assert!(ds.is_empty(), "{s:?}: {ds:?}");
    ts.into_iter().map(|(t, _)| t).collect()
}

fn id(s: &str) -> Token {
    Token::Ident(s.into())
}

fn int(v: u128) -> Token {
    Token::Int(v, None)
}

#[test]
fn brackets_after_expressions_index() {
    assert_eq!(
        toks("a[i]"),
        [id("a"), Token::IndexBracket, id("i"), Token::RBracket]
    );
    assert_eq!(
        toks("f [1]"),
        [id("f"), Token::LBracket, int(1), Token::RBracket]
    );
    assert_eq!(
        toks("(x)[0]"),
        [
            Token::LParen,
            id("x"),
            Token::RParen,
            Token::IndexBracket,
            int(0),
            Token::RBracket
        ]
    );
    assert_eq!(toks("[[1]]")[..2], [Token::LBracket, Token::LBracket]);
    assert_eq!(toks("[n][m]")[3], Token::IndexBracket);
    assert_eq!(toks("if [1]")[1], Token::LBracket);
}

#[test]
fn dots_after_expressions_project() {
    assert_eq!(toks("p.x"), [id("p"), Token::ProjDot, id("x")]);
    assert_eq!(
        toks("t.0.1"),
        [id("t"), Token::ProjDot, int(0), Token::ProjDot, int(1)]
    );
    assert_eq!(toks("xs[0].1")[4..], [Token::ProjDot, int(1)]);
    assert_eq!(
        toks("(.0)"),
        [Token::LParen, Token::Dot, int(0), Token::RParen]
    );
    assert_eq!(
        toks("(.a.b)"),
        [
            Token::LParen,
            Token::Dot,
            id("a"),
            Token::ProjDot,
            id("b"),
            Token::RParen
        ]
    );
    assert_eq!(toks("p . x"), [id("p"), Token::Dot, id("x")]);
}

#[test]
fn qualified_names() {
    // A qualified name reads as a projection; the module phase tells them
    // apart. A qualified operator is one token, at any depth.
    assert_eq!(toks("f32.sqrt"), [id("f32"), Token::ProjDot, id("sqrt")]);
    assert_eq!(toks("M.N.x")[2], id("N"));
    assert_eq!(toks("xs.f32"), [id("xs"), Token::ProjDot, id("f32")]);
    assert_eq!(toks("f32 . sqrt")[0], id("f32"));
    let op = |quals: &[&str], name: &str| {
        Token::Op(BinOpKind::Symbol(QualName {
            quals: quals.iter().map(|q| (*q).into()).collect(),
            name: name.into(),
            entity: None,
        }))
    };
    assert_eq!(toks("M.N.+"), [op(&["M", "N"], "+")]);
    assert_eq!(toks("x R.* y")[1], op(&["R"], "*"));
}

#[test]
fn numbers() {
    let f = |v: f64, t: &str, s| Token::Float(v, t.into(), s);
    assert_eq!(toks("1_000"), [int(1000)]);
    assert_eq!(toks("0xFF_ff"), [int(0xffff)]);
    assert_eq!(toks("0b1010u8"), [Token::Int(10, Some(PrimType::U8))]);
    assert_eq!(toks("1.5"), [f(1.5, "1.5", None)]);
    assert_eq!(toks("1e-3"), [f(0.001, "1e-3", None)]);
    assert_eq!(toks("2E+2"), [f(200.0, "2E+2", None)]);
    assert_eq!(toks("2.0f32"), [f(2.0, "2.0", Some(PrimType::F32))]);
    assert_eq!(toks("3f64"), [f(3.0, "3", Some(PrimType::F64))]);
    assert_eq!(toks("7i16"), [Token::Int(7, Some(PrimType::I16))]);
    assert_eq!(toks("1.x"), [int(1), Token::Dot, id("x")]);
    assert_eq!(toks("0x1.8p3"), [f(12.0, "0x1.8p3", None)]);
    assert_eq!(toks("0x10p-2f32"), [f(4.0, "0x10p-2", Some(PrimType::F32))]);
    assert_eq!(toks("0xA.Cp0"), [f(10.75, "0xA.Cp0", None)]);
    // An exponent at i32's end, less the fraction's digits (fuzzer find).
    let tiny = "0x.fffffffap-2147483648";
    assert_eq!(toks(tiny), [f(0.0, tiny, None)]);
}

#[test]
fn ranges() {
    let r = Token::Range;
    assert_eq!(toks("1..2"), [int(1), Token::DotDot, int(2)]);
    assert_eq!(toks("0..<n")[1], r(RangeKind::UpTo));
    assert_eq!(toks("n..>0")[1], r(RangeKind::DownTo));
    assert_eq!(toks("1...3"), [int(1), r(RangeKind::Inclusive), int(3)]);
    assert_eq!(
        toks("a..b...c"),
        [
            id("a"),
            Token::DotDot,
            id("b"),
            r(RangeKind::Inclusive),
            id("c")
        ]
    );
    assert_eq!(
        toks("x.0..<2")[1..4],
        [Token::ProjDot, int(0), r(RangeKind::UpTo)]
    );
    assert_eq!(toks("???"), [Token::Hole]);
}

#[test]
fn operators_take_the_longest_known_symbol() {
    let op = Token::Op;
    assert_eq!(toks(">>>"), [op(BinOpKind::UShr)]);
    assert_eq!(toks(">->"), [op(BinOpKind::ComposeRight)]);
    assert_eq!(toks("<-<"), [op(BinOpKind::ComposeLeft)]);
    assert_eq!(toks("\\x->x")[2], Token::Arrow);
    assert_eq!(toks("!x"), [Token::Bang, id("x")]);
    assert_eq!(toks("a = b")[1], Token::Eq);
    assert_eq!(toks("a--comment\nb"), [id("a"), id("b")]);
    assert_eq!(toks("`f`"), [Token::Backtick, id("f"), Token::Backtick]);
}

#[test]
fn operator_characters_are_read_greedily() {
    let sym = |s: &str| Token::Op(BinOpKind::Symbol(QualName::plain(s)));
    // As in Futhark: a run of operator characters is one operator, so
    // `x==-1` is `x ==- 1` (write `x == -1`).
    assert_eq!(toks("x==-1")[1], sym("==-"));
    assert_eq!(toks("a*-1")[1], sym("*-"));
    assert_eq!(toks("a +^ b")[1], sym("+^"));
    assert_eq!(toks("a >>= b")[1], sym(">>="));
    assert_eq!(toks("a *. b")[1], sym("*."));
    assert_eq!(toks("a +-- comment")[1], Token::Op(BinOpKind::Add));
    assert_eq!(
        toks("i32.+ f64.<="),
        [
            Token::Op(BinOpKind::Symbol(QualName::qualified("i32", "+"))),
            Token::Op(BinOpKind::Symbol(QualName::qualified("f64", "<=")))
        ]
    );
    assert_eq!(toks("(+^)"), [Token::LParen, sym("+^"), Token::RParen]);
}

#[test]
fn keywords_ticks_and_attributes() {
    assert_eq!(
        toks("let in"),
        [Token::Kw(Keyword::Let), Token::Kw(Keyword::In)]
    );
    assert_eq!(toks("_"), [Token::Underscore]);
    assert_eq!(toks("'a"), [Token::Tick(Liftedness::Plain), id("a")]);
    assert_eq!(toks("'^a"), [Token::Tick(Liftedness::Lifted), id("a")]);
    assert_eq!(toks("'~a"), [Token::Tick(Liftedness::SizeLifted), id("a")]);
    assert_eq!(toks("'a'"), [Token::Char("'a'".into())]);
    assert_eq!(toks("'\\n'"), [Token::Char("'\\n'".into())]);
    assert_eq!(toks("'\\''"), [Token::Char("'\\''".into())]);
    assert_eq!(toks("'€'"), [Token::Char("'€'".into())]);
    assert_eq!(toks("\"a\\\"b\""), [Token::Str("\"a\\\"b\"".into())]);
    assert_eq!(toks("#[inline]")[0], Token::HashBracket);
    assert_eq!(toks("#foo"), [Token::Constructor("foo".into())]);
}

#[test]
fn lexical_errors_are_reported_and_skipped() {
    for (src, msg) in [
        ("a @ b", "unexpected character `@`"),
        ("3x", "invalid suffix `x`"),
        ("1.5i32", "integer suffix"),
        ("\"abc", "unterminated string"),
        ("99999999999999999999999999999999999999999", "too large"),
        ("0x", "needs digits"),
        ("# x", "unexpected character `#`"),
        ("x ∀ y", "unexpected character `∀`"),
        ("0x1.8", "binary exponent"),
        ("0x1p", "malformed hexadecimal float"),
    ] {
        let (ts, ds) = lex(src, FileId(0));
        assert_eq!(ds.len(), 1, "{src:?}: {ds:?}");
        assert!(ds[0].message.contains(msg), "{src:?}: {}", ds[0].message);
        assert!(ts.iter().any(|(t, _)| matches!(t, Token::Error(_))));
        let span = ds[0].span.expect("lexer errors have spans");
        assert!(span.end as usize <= src.len());
    }
}

#[test]
fn spans_and_classes() {
    let (ts, _) = lex("let x = 1.5 -- c\n  in f32.pi", FileId(3));
    let spans: Vec<_> = ts.iter().map(|(_, s)| (s.start, s.end)).collect();
    assert_eq!(
        spans,
        [
            (0, 3),
            (4, 5),
            (6, 7),
            (8, 11),
            (19, 21),
            (22, 25),
            (25, 26),
            (26, 28)
        ]
    );
    assert!(ts.iter().all(|(_, s)| s.file == FileId(3)));
    let classes: Vec<_> = ts.iter().map(|(t, _)| t.class()).collect();
    use TokenClass::*;
    assert_eq!(
        classes,
        [
            Keyword,
            Identifier,
            Operator,
            Literal,
            Keyword,
            Identifier,
            Punctuation,
            Identifier
        ]
    );
    assert_eq!(Token::Kw(urchin_syntax::Keyword::True).class(), Literal);
    assert_eq!(Token::LParen.class(), Punctuation);
    assert_eq!(Token::Error("@".into()).class(), Error);
}
