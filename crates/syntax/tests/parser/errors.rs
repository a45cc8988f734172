//! Parse errors: rendered snapshots of the common slips, and properties of
//! every diagnostic.

use urchin_base::diag::Diagnostic;
use urchin_base::source::SourceMap;
use urchin_syntax::parse_program;

fn errors(src: &str) -> (SourceMap, Vec<Diagnostic>) {
    let mut sm = SourceMap::new();
    let f = sm.add("t.fut", src);
    let ds = parse_program(src, f).expect_err("should not parse");
    (sm, ds)
}

fn render(src: &str) -> String {
    let (sm, ds) = errors(src);
    urchin_base::diag::render_all(&ds, &sm, false)
}

macro_rules! snap {
    ($name:ident, $src:expr) => {
        #[test]
        fn $name() {
            insta::with_settings!({snapshot_path => "../../../../snapshots"}, {
                insta::assert_snapshot!(stringify!($name), render($src), $src);
            });
        }
    };
}

snap!(
    parse_error_eq_instead_of_eqeq,
    "def f x = if x = 1 then 2 else 3\n"
);
snap!(
    parse_error_missing_in,
    "def f x =\n  let a = x + 1\n  let b = a * 2\n\ndef g = 1\n"
);
snap!(parse_error_missing_then, "def f x = if x > 1 x else 0\n");
snap!(
    parse_error_missing_else,
    "def f x = if x > 1 then x\n\ndef g = 2\n"
);
snap!(
    parse_error_unbalanced_paren,
    "def f x = (x + (1 * 2)\n\ndef g = 3\n"
);
snap!(
    parse_error_case_without_arrow,
    "def f x =\n  match x\n  case 0 1\n  case _ -> 2\n"
);
snap!(parse_error_bad_escape, "def greeting = \"hello\\q\"\n");
snap!(
    parse_error_lambda_without_arrow,
    "def f xs = map (\\x x + 1) xs\n"
);
snap!(parse_error_def_without_eq, "def f x\ndef g = 1\n");
snap!(parse_error_trailing_operator, "def f x = x +\n");
snap!(parse_error_update_without_eq, "def f a = a with [0] 1\n");

#[test]
fn help_for_common_slips() {
    let help = |src: &str| errors(src).1[0].help.clone().unwrap_or_default();
    assert!(help("def f x = if x = 1 then 2 else 3").contains("`==`"));
    assert!(help("def f = (a = b)").contains("`==`"));
    assert!(!help("def f (x: i32 = x").contains("`==`"));
    assert!(!help("def f [n = 1").contains("`==`"));
    assert!(help("def f = let x = 1").contains("`in`"));
    assert!(help("def f = if c 1 else 2").contains("then"));
    assert!(help("def f = if c then 1").contains("else"));
    assert!(help("def f = \\x x").contains("`->`"));
    assert!(help("def f x\n").contains("`=`"));
    assert!(help("def f = loop x = 0 for i < 3 x").contains("do"));
}

#[test]
fn errors_at_the_end_say_so() {
    for src in [
        "def f = 1 +",
        "def f = (1",
        "def f =",
        "def f = let x = 1 in",
    ] {
        let (_, ds) = errors(src);
        assert_eq!(ds[0].message, "Unexpected end of input", "{src:?}");
        let span = ds[0].span.expect("span");
        assert_eq!(span.start as usize, src.trim_end().len(), "{src:?}");
    }
}

#[test]
fn unclosed_openers_are_pointed_at() {
    for (src, opener) in [
        ("def f = (1 + 2", 8),
        ("def f = [1, 2\ndef g = 1", 8),
        ("def f = xs[0", 10),
    ] {
        let (_, ds) = errors(src);
        let l = ds[0]
            .labels
            .first()
            .unwrap_or_else(|| panic!("{src:?}: {ds:?}"));
        assert_eq!(l.span.start, opener, "{src:?}");
        assert!(l.message.contains("never closed"), "{src:?}");
    }
}

#[test]
fn expected_lists_are_in_words() {
    let label = |src: &str| errors(src).1[0].label.clone().unwrap_or_default();
    assert_eq!(label("def f = 1 +"), "expected an expression");
    assert_eq!(label("def f = (1, 2"), "expected `)` or `,`");
    assert_eq!(label("def 5 = 1"), "expected an infix operator");
    assert_eq!(label("def = 1"), "expected a pattern or a name");
    assert_eq!(label("def f (x: ) = 1"), "expected a type");
    assert_eq!(label("def f = let x = 1"), "expected `in`");
    assert_eq!(label("def f = \\ -> 1"), "expected a pattern");
}

#[test]
fn later_declarations_are_checked_too() {
    let (_, ds) = errors("def f = (1\ndef g = 2\ndef h = if x then 1\ndef i = 3\nentry j = let\n");
    let msgs: Vec<_> = ds
        .iter()
        .map(|d| (d.message.as_str(), d.span.map(|s| s.start)))
        .collect();
    assert_eq!(
        msgs,
        [
            ("Unexpected token: 'def'", Some(11)),
            ("Unexpected token: 'def'", Some(41)),
            ("Unexpected end of input", Some(64)),
        ]
    );
    let many = "def f = (\n".repeat(20);
    assert_eq!(errors(&many).1.len(), 5);
}

#[test]
fn absurd_nesting_is_an_error_not_a_crash() {
    use urchin_syntax::{parse_expr, pretty};
    let deep = format!("{}x{}", "f (".repeat(20_000), ")".repeat(20_000));
    let Err(ds) = parse_expr(&deep, urchin_base::source::FileId(0)) else {
        panic!("20,000 nested applications parsed");
    };
    assert!(ds[0].message.contains("nested too deeply"));
    // An operator chain is long, not deep (syntax::depth).
    let long = format!("x{}", " + x".repeat(20_000));
    assert!(parse_expr(&long, urchin_base::source::FileId(0)).is_ok());
    let brackets = format!("{}1{}", "[".repeat(5_000), "]".repeat(5_000));
    assert!(
        parse_program(
            &format!("def x = {brackets}"),
            urchin_base::source::FileId(0)
        )
        .is_err()
    );
    let fine = format!("x{}", " + x".repeat(900));
    let e = parse_expr(&fine, urchin_base::source::FileId(0)).expect("900 levels are fine");
    assert_eq!(pretty::expr(&e), fine);
}
