//! One test per construct: the shape each snippet parses to.

use super::sexp::{parse_d as d, parse_e as e, parse_t as t};
use urchin_base::source::FileId;
use urchin_syntax::ast::*;
use urchin_syntax::*;

#[track_caller]
fn check(cases: &[(&str, &str)]) {
    for (src, want) in cases {
        assert_eq!(e(src), *want, "parsing {src:?}");
    }
}

#[test]
fn literals() {
    check(&[
        ("42", "42"),
        ("0xff", "255"),
        ("0xffi64", "255i64"),
        ("0b101", "5"),
        ("1_000_000i64", "1000000i64"),
        ("7u8", "7u8"),
        ("1.5", "1.5=1.5"),
        ("1e-3", "1e-3=0.001"),
        ("2.0f32", "2.0f32=2"),
        ("3f64", "3f64=3"),
        ("1.5e3f64", "1.5e3f64=1500"),
        ("true", "true"),
        ("false", "false"),
        ("-1", "(neg 1)"),
        (
            "340282366920938463463374607431768211455",
            "340282366920938463463374607431768211455",
        ),
    ]);
}

#[test]
fn names() {
    check(&[
        ("x", "x"),
        ("x'", "x'"),
        ("_tmp", "_tmp"),
        // A qualified name parses as a projection: which of the two it is
        // is known once names are resolved.
        ("f32.sqrt", "(. f32 sqrt)"),
        ("i64.sum", "(. i64 sum)"),
        ("f64.inf", "(. f64 inf)"),
        ("bool.i32", "(. bool i32)"),
        ("as", "as"),
    ]);
}

#[test]
fn application() {
    check(&[
        ("f a b c", "(app f a b c)"),
        ("f (g x) y", "(app f (app g x) y)"),
        ("(f a) b", "(app (app f a) b)"),
        ("f xs[0]", "(app f (index xs [0]))"),
        ("f [1, 2]", "(app f [1 2])"),
        ("f -1", "(- f 1)"),
        ("f x.a", "(app f (. x a))"),
        ("f () {a = 1}", "(app f (tuple) {a=1})"),
        ("assert (x > 0) x", "(app assert (> x 0) x)"),
        ("map f32.sqrt xs", "(app map (. f32 sqrt) xs)"),
    ]);
}

#[test]
fn operator_precedence_and_associativity() {
    check(&[
        ("a + b * c", "(+ a (* b c))"),
        ("a * b + c", "(+ (* a b) c)"),
        ("a - b - c", "(- (- a b) c)"),
        ("a ** b ** c", "(** a (** b c))"),
        ("a |> f |> g", "(|> (|> a f) g)"),
        ("f <| g <| x", "(<| f (<| g x))"),
        ("a || b && c", "(|| a (&& b c))"),
        ("a == b && c < d", "(&& (== a b) (< c d))"),
        ("a & b == c", "(== (& a b) c)"),
        ("a << 1 + 2", "(<< a (+ 1 2))"),
        ("a >>> 2 >> 1", "(>> (>>> a 2) 1)"),
        ("xs ++ ys ++ zs", "(++ (++ xs ys) zs)"),
        ("a `f` b + c", "(`f` a (+ b c))"),
        ("a `f` b || c", "(`f` a (|| b c))"),
        ("x |> f >-> g", "(|> x (>-> f g))"),
        ("f <-< g <| x", "(<| (<-< f g) x)"),
        ("a // b %% c", "(%% (// a b) c)"),
        ("a / b % c", "(% (/ a b) c)"),
        ("a != b", "(!= a b)"),
        ("a <= b", "(<= a b)"),
        ("a >= b", "(>= a b)"),
        ("a ^ b | c", "(| (^ a b) c)"),
        ("a `i32.max` b", "(`i32.max` a b)"),
    ]);
}

#[test]
fn unary_operators() {
    check(&[
        ("-x * 3", "(* (neg x) 3)"),
        ("-f x", "(neg (app f x))"),
        ("!a && b", "(&& (not a) b)"),
        ("- -x", "(neg (neg x))"),
        ("a - -b", "(- a (neg b))"),
        ("x ** -1", "(** x (neg 1))"),
        ("! -x", "(not (neg x))"),
        ("-x.0", "(neg (. x 0))"),
    ]);
}

#[test]
fn prefix_forms_extend_right() {
    check(&[
        ("1 + if c then 2 else 3 + 4", "(+ 1 (if c 2 (+ 3 4)))"),
        ("x |> \\y -> y + 1", "(|> x (\\ (y) (+ y 1)))"),
        ("\\x -> \\y -> x y", "(\\ (x) (\\ (y) (app x y)))"),
        ("if a then b else if c then d else e", "(if a b (if c d e))"),
        (
            "loop x = 0 for i < n do x + 1 + 2",
            "(loop x 0 (for i < n) (+ (+ x 1) 2))",
        ),
    ]);
}

#[test]
fn parens_tuples_records_arrays() {
    check(&[
        ("()", "(tuple)"),
        ("(a)", "a"),
        ("((a))", "a"),
        ("(a, b)", "(tuple a b)"),
        ("((a, b), c)", "(tuple (tuple a b) c)"),
        // A pun is the field of the variable of its name.
        ("{a = 1, b}", "{a=1 b=b}"),
        ("{}", "{}"),
        ("{x = {y = 2}}", "{x={y=2}}"),
        ("[1, 2, 3]", "[1 2 3]"),
        ("[]", "[]"),
        ("[[1], [2]]", "[[1] [2]]"),
        ("[1, 2][0]", "(index [1 2] [0])"),
    ]);
}

#[test]
fn sections() {
    check(&[
        ("(+)", "(op +)"),
        ("(++)", "(op ++)"),
        ("(|>)", "(op |>)"),
        ("(-)", "(op -)"),
        ("(`f`)", "f"),
        ("(+^)", "+^"),
        ("(i32.+)", "i32.+"),
        ("(`f` x)", "(rsec `f` x)"),
        ("(x `f`)", "(lsec `f` x)"),
        ("(+^ 1)", "(rsec +^ 1)"),
        ("(-^ 1)", "(rsec -^ 1)"),
        ("(i32.- 1)", "(rsec i32.- 1)"),
        ("(.[0])", "(\\ (x) (index x [0]))"),
        ("(.[i:])", "(\\ (x) (index x [i:]))"),
        ("(.[x].a)", "(\\ (y) (. (index y [x]) a))"),
        ("(.0.a[1])", "(\\ (x) (index (. (. x 0) a) [1]))"),
        ("(x+)", "(lsec + x)"),
        ("(+x)", "(rsec + x)"),
        ("(2*)", "(lsec * 2)"),
        ("(> 3)", "(rsec > 3)"),
        ("(0-)", "(lsec - 0)"),
        ("(-x)", "(neg x)"),
        ("(-1)", "(neg 1)"),
        ("(x `f`)", "(lsec `f` x)"),
        ("(`f` x)", "(rsec `f` x)"),
        ("(a + b *)", "(lsec * (+ a b))"),
        ("(.0)", "(.0)"),
        ("(.a.b)", "(.a.b)"),
        ("(.0.1)", "(.0.1)"),
    ]);
}

#[test]
fn projection() {
    check(&[
        ("p.x", "(. p x)"),
        ("t.0", "(. t 0)"),
        ("t.0.1", "(. (. t 0) 1)"),
        ("r.a.b", "(. (. r a) b)"),
        ("(f x).1", "(. (app f x) 1)"),
        ("xs[0].1", "(. (index xs [0]) 1)"),
        ("{a = 1}.a", "(. {a=1} a)"),
    ]);
}

#[test]
fn indexing_and_slicing() {
    check(&[
        ("a[i]", "(index a [i])"),
        ("a[i, j]", "(index a [i j])"),
        ("a[i:j]", "(index a [i:j])"),
        ("a[i:j:s]", "(index a [i:j:s])"),
        ("a[:, 0]", "(index a [: 0])"),
        ("a[i:]", "(index a [i:])"),
        ("a[::2]", "(index a [::2])"),
        ("a[::-1]", "(index a [::(neg 1)])"),
        ("a[:]", "(index a [:])"),
        ("a[i][j]", "(index (index a [i]) [j])"),
        ("a[i + 1]", "(index a [(+ i 1)])"),
        ("a [i]", "(app a [i])"),
        ("(f x)[0]", "(index (app f x) [0])"),
    ]);
}

#[test]
fn lambdas() {
    check(&[
        ("\\x -> x", "(\\ (x) x)"),
        (
            "\\x (y, z) {a, b} (w: f32) -> e",
            "(\\ (x (tuple y z) {a b} (: w f32)) e)",
        ),
        ("\\x : i32 -> x", "(\\ (x) : i32 x)"),
        ("\\_ -> 0", "(\\ (_) 0)"),
        ("\\() -> 0", "(\\ ((tuple)) 0)"),
        ("\\{a = (x, y)} -> x", "(\\ ({a=(tuple x y)}) x)"),
    ]);
}

#[test]
fn conditionals() {
    check(&[
        ("if c then a else b", "(if c a b)"),
        ("if x == 1 then 2 else 3", "(if (== x 1) 2 3)"),
    ]);
}

#[test]
fn lets() {
    check(&[
        ("let x = 1 in x + 1", "(let x 1 (+ x 1))"),
        (
            "let a = 1 let b = a + 1 in b",
            "(let a 1 (let b (+ a 1) b))",
        ),
        ("let a = 1 in let b = a in b", "(let a 1 (let b a b))"),
        ("let (a, b) = p in a", "(let (tuple a b) p a)"),
        ("let {a, b = c} = r in a", "(let {a b=c} r a)"),
        ("let _ = 1 in 2", "(let _ 1 2)"),
        ("let x: i32 = 5 in x", "(let (: x i32) 5 x)"),
        ("let (x: i32) = 5 in x", "(let (: x i32) 5 x)"),
        (
            "let f x y = x + y in f 1 2",
            "(letfun f (x y) (+ x y) (app f 1 2))",
        ),
        (
            "let f 'a (x: a) : a = x in f",
            "(letfun f 'a ((: x a)) : a x f)",
        ),
        (
            "let f [n] (xs: [n]i32) = xs in f",
            "(letfun f [n] ((: xs ([n] i32))) xs f)",
        ),
        ("let a[i] = v in a", "(let a (with a [i] v) a)"),
        ("let a[i, j:] = v in a", "(let a (with a [i j:] v) a)"),
        ("let x = let y = 1 in y in x", "(let x (let y 1 y) x)"),
        ("let x = 1 in x : i32", "(let x 1 (: x i32))"),
    ]);
}

#[test]
fn loops() {
    check(&[
        (
            "loop acc = 0 for i < n do acc + i",
            "(loop acc 0 (for i < n) (+ acc i))",
        ),
        (
            "loop acc = 0 for x in xs do acc + x",
            "(loop acc 0 (for x in xs) (+ acc x))",
        ),
        (
            "loop x = 1 while x < 100 do x * 2",
            "(loop x 1 (while (< x 100)) (* x 2))",
        ),
        ("loop x for i < 3 do x + 1", "(loop x (for i < 3) (+ x 1))"),
        (
            "loop (a, b) = (0, 1) for _i < n do (b, a + b)",
            "(loop (tuple a b) (tuple 0 1) (for _i < n) (tuple b (+ a b)))",
        ),
        (
            "loop (x: i32) = 0 for i < n - 1 do x",
            "(loop (: x i32) 0 (for i < (- n 1)) x)",
        ),
        (
            "loop x = 0 for (a, b) in zip xs ys do x",
            "(loop x 0 (for (tuple a b) in (app zip xs ys)) x)",
        ),
    ]);
}

#[test]
fn updates() {
    check(&[
        ("a with [i] = v", "(with a [i] v)"),
        ("a with [i, j] = v + 1", "(with a [i j] (+ v 1))"),
        ("r with a.b = v", "(with r a.b v)"),
        ("r with x = 4", "(with r x 4)"),
        ("a with [0] = 1 with [1] = 2", "(with (with a [0] 1) [1] 2)"),
        ("x + a with [i] = v", "(with (+ x a) [i] v)"),
        ("a with [i:j] = v", "(with a [i:j] v)"),
        // `[i][j]` is `[i, j]`; after a slice it is not.
        ("a with [i][j] = v", "(with a [i j] v)"),
        (
            "a with [i:][j] = v",
            "(with a [i:] (with (index a [i:]) [j] v))",
        ),
        // Mixed paths update the outer part with the inner part updated.
        (
            "xs with [1].f = v",
            "(with xs [1] (with (index xs [1]) f v))",
        ),
        (
            "r with a[i].b = v",
            "(with r a (with (. r a) [i] (with (index (. r a) [i]) b v)))",
        ),
        // A base that is not a variable is named first.
        (
            "f x with [0].a = x",
            "(let y (app f x) (with y [0] (with (index y [0]) a x)))",
        ),
        ("r with a.b = 1 ..< 3", "(with r a.b (range 1 ..< 3))"),
    ]);
}

#[test]
fn let_updates() {
    check(&[
        ("let a[i] = v in a", "(let a (with a [i] v) a)"),
        ("let a[i][j] = v in a", "(let a (with a [i j] v) a)"),
        ("let r.a.b = v in r", "(let r (with r a.b v) r)"),
        (
            "let xs[1].f = v in xs",
            "(let xs (with xs [1] (with (index xs [1]) f v)) xs)",
        ),
    ]);
}

#[test]
fn ranges() {
    check(&[
        ("0..<n", "(range 0 ..< n)"),
        ("1...n", "(range 1 ... n)"),
        ("n..>0", "(range n ..> 0)"),
        ("0..2..<n", "(range 0 2 ..< n)"),
        (
            "a + 1..a * 2...b - 1",
            "(range (+ a 1) (* a 2) ... (- b 1))",
        ),
        ("x..<-1", "(range x ..< (neg 1))"),
        ("f (0..<n)", "(app f (range 0 ..< n))"),
        ("xs[0..<2]", "(index xs [(range 0 ..< 2)])"),
        ("0..<n : []i64", "(: (range 0 ..< n) ([] i64))"),
    ]);
}

#[test]
fn character_and_string_literals_and_holes() {
    check(&[
        ("'a'", "97"),
        ("'\\n'", "10"),
        ("'\\''", "39"),
        ("'\\x41'", "65"),
        ("'\\u20AC'", "8364"),
        ("'\\65'", "65"),
        ("'€'", "8364"),
        ("\"ab\"", "(string \"ab\")"),
        ("\"a\\tb\\\\\\\"\"", "(string \"a\\tb\\\\\\\"\")"),
        ("\"\"", "(string \"\")"),
        ("???", "???"),
        ("??? x", "(app ??? x)"),
    ]);
    for bad in ["'ab'", "'\\q'", "\"\\xZZ\"", "'\\u12'"] {
        assert!(parse_expr(bad, FileId(0)).is_err(), "{bad:?}");
    }
}

#[test]
fn user_defined_operators() {
    check(&[
        ("a +^ b * c", "(+^ a (* b c))"),
        ("a *^ b + c", "(+ (*^ a b) c)"),
        ("a >>= b + c", "(>>= a (+ b c))"),
        ("a || b !== c", "(|| a (!== b c))"),
        ("a i32.+ b i32.* c", "(i32.+ a (i32.* b c))"),
        ("a <+> b <+> c", "(<+> (<+> a b) c)"),
    ]);
    assert_eq!(d("def (+^) (x: i32) y = x"), ["(def +^ ((: x i32) y) x)"]);
    assert_eq!(
        d("def (a: i32) +^ (b: i32) : i32 = a"),
        ["(def +^ ((: a i32) (: b i32)) : i32 a)"]
    );
    assert_eq!(d("def x <*> y = x"), ["(def <*> (x y) x)"]);
    assert_eq!(d("def (+) x y = x"), ["(def + (x y) x)"]);
    assert_eq!(d("def f (+) x = x + x"), ["(def f (+ x) (+ x x))"]);
    assert_eq!(
        e("let (+^) a b = a in 1 +^ 2"),
        "(letfun +^ (a b) a (+^ 1 2))"
    );
}

#[test]
fn trailing_lambda_and_local() {
    check(&[
        ("map \\x -> x + 1", "(app map (\\ (x) (+ x 1)))"),
        ("map2 f xs \\y -> y", "(app map2 f xs (\\ (y) y))"),
    ]);
    assert_eq!(d("local def f x = x"), ["local def f x = x"]);
    assert_eq!(d("local type t = i32"), ["local type t = i32"]);
}

#[test]
fn ascription_and_attributes() {
    check(&[
        ("x : i32", "(: x i32)"),
        ("(x : [n]f32)", "(: x ([n] f32))"),
        ("f x : i32", "(: (app f x) i32)"),
        ("a + b : t", "(: (+ a b) t)"),
        ("(x : i32) + 1", "(+ (: x i32) 1)"),
        (
            "#[stripmine(2)] loop x = 0 for i < n do x",
            "(#[stripmine(2)] (loop x 0 (for i < n) x))",
        ),
        ("#[unsafe] x + 1", "(#[unsafe] (+ x 1))"),
        ("#[a(b, 1)] x", "(#[a(b, 1)] x)"),
    ]);
}

#[test]
fn types() {
    let cases = [
        ("i32", "i32"),
        ("bool", "bool"),
        ("vec f32", "(vec f32)"),
        ("[n]f32", "([n] f32)"),
        ("[]i32", "([] i32)"),
        ("[3]i32", "([3] i32)"),
        ("[n][m]f64", "([n] ([m] f64))"),
        ("(i32, f32)", "(tuple i32 f32)"),
        ("()", "(tuple)"),
        ("(i32)", "i32"),
        ("{x: f32, y: f32}", "{x:f32 y:f32}"),
        ("a -> b -> c", "(-> a (-> b c))"),
        ("(a -> b) -> c", "(-> (-> a b) c)"),
        ("(x: i32) -> [x]f32", "(-> (x: i32) ([x] f32))"),
        ("*[]i32", "(* ([] i32))"),
        ("mat [n] f32", "(mat [n] f32)"),
        ("[]vec f32", "([] (vec f32))"),
        ("vec ([n]f32)", "(vec ([n] f32))"),
        ("[n]a -> [n]b", "(-> ([n] a) ([n] b))"),
    ];
    for (src, want) in cases {
        assert_eq!(t(src), want, "parsing {src:?}");
    }
}

#[test]
fn declarations() {
    assert_eq!(
        d("def f [n] 'a (x: t) (y: [n]t) : t = e"),
        ["(def f [n] 'a ((: x t) (: y ([n] t))) : t e)"]
    );
    assert_eq!(d("def main = 1"), ["(def main () 1)"]);
    assert_eq!(d("let x = 5"), ["(let x () 5)"]);
    assert_eq!(d("let x : i32 = 5"), ["(let x () : i32 5)"]);
    assert_eq!(
        d("entry main (xs: []i32) = xs"),
        ["(entry main ((: xs ([] i32))) xs)"]
    );
    assert_eq!(
        d("#[noinline] #[inline] def f x = x"),
        ["(def #[noinline] #[inline] f (x) x)"]
    );
    assert_eq!(
        d("def g [n][m] 'a '^b '~c = 0"),
        ["(def g [n] [m] 'a '^b '~c () 0)"]
    );
    assert_eq!(
        d("def swap 'a 'b ((x, y): (a, b)) : (b, a) = (y, x)"),
        ["(def swap 'a 'b ((: (tuple x y) (tuple a b))) : (tuple b a) (tuple y x))"]
    );
    assert_eq!(
        d("def f = let x = 1 in x\nlet y = 2\nentry z = y"),
        ["(def f () (let x 1 x))", "(let y () 2)", "(entry z () y)"]
    );
    assert_eq!(d(""), Vec::<String>::new());
    assert_eq!(d("-- only a comment\n"), Vec::<String>::new());
}

#[test]
fn type_declarations() {
    assert_eq!(d("type t = i32"), ["(type t i32)"]);
    assert_eq!(d("type vec 'a = []a"), ["(type vec 'a ([] a))"]);
    assert_eq!(
        d("type mat [n] = [n][n]f32"),
        ["(type mat [n] ([n] ([n] f32)))"]
    );
    assert_eq!(
        d("type point = {x: f64, y: f64}"),
        ["(type point {x:f64 y:f64})"]
    );
}

#[test]
fn doc_comments() {
    assert_eq!(
        d("-- | Adds one.\n-- More text.\ndef f x = x + 1"),
        ["(def f (x) (+ x 1)) doc=\"Adds one.\\nMore text.\""]
    );
    assert_eq!(d("-- Not a doc.\ndef f x = x"), ["(def f (x) x)"]);
    // Found by fuzzing: trailing blanks and no blank after the bar.
    assert_eq!(
        d("-- |Tight. \t\r\n--  two  \ndef f x = x"),
        ["(def f (x) x) doc=\"Tight.\\n two\""]
    );
    let text = "-- | One.\n--|two\n-- |three\ndef f x = x";
    assert_eq!(d(text), ["(def f (x) x) doc=\"three\""]);
    let text = "-- | One.\n--|two\ndef f x = x";
    assert_eq!(d(text), ["(def f (x) x) doc=\"One.\\n|two\""]);
    let p = parse_program(text, FileId(0)).expect("parses");
    let printed = pretty::program(&p);
    assert_eq!(d(&printed), d(text), "printed as:\n{printed}");
    assert_eq!(d("-- | Far away.\n\ndef f x = x"), ["(def f (x) x)"]);
    assert_eq!(
        d("-- ==\n-- input { 1 }\n-- | The doc.\n#[inline]\nentry f x = x"),
        ["(entry #[inline] f (x) x) doc=\"The doc.\""]
    );
    assert_eq!(
        d("def a = 1\n  -- |  indented\n  --\ndef b = 2"),
        ["(def a () 1)", "(def b () 2) doc=\" indented\\n\""]
    );
}

#[test]
fn repl_inputs() {
    let r = |s: &str| parse_repl(s, FileId(0)).map_err(|d| format!("{s:?}: {d:?}"));
    assert!(matches!(r("def f x = x"), Ok(ReplInput::Decs(ds)) if ds.len() == 1));
    assert!(matches!(r("let x = 5"), Ok(ReplInput::Decs(ds)) if ds.len() == 1));
    assert!(matches!(r("let f x = x + 1"), Ok(ReplInput::Decs(ds)) if ds.len() == 1));
    assert!(matches!(r("type t = i32"), Ok(ReplInput::Decs(_))));
    assert!(matches!(r("def a = 1 def b = 2"), Ok(ReplInput::Decs(ds)) if ds.len() == 2));
    assert!(matches!(r("let (a, b) = (1, 2)"), Ok(ReplInput::Bind(..))));
    assert!(matches!(r("let {a, b} = r"), Ok(ReplInput::Bind(..))));
    assert!(matches!(r("let _ = 1"), Ok(ReplInput::Bind(..))));
    assert!(matches!(r("x + 1"), Ok(ReplInput::Expr(_))));
    assert!(matches!(r("let x = 1 in x"), Ok(ReplInput::Expr(_))));
    assert!(matches!(r("#[unsafe] x"), Ok(ReplInput::Expr(_))));
    assert!(matches!(r(""), Ok(ReplInput::Decs(ds)) if ds.is_empty()));
    assert!(matches!(r("  -- just a comment"), Ok(ReplInput::Decs(ds)) if ds.is_empty()));
    let err = r("let x = 1 in").unwrap_err();
    assert!(err.contains("Unexpected end of input"), "{err}");
    assert!(matches!(r("open m"), Ok(ReplInput::Decs(ds)) if matches!(ds[..], [Dec::Open(..)])));
    assert!(
        matches!(r("import \"f\""), Ok(ReplInput::Decs(ds)) if matches!(ds[..], [Dec::Import(..)]))
    );
    assert!(matches!(
        r("match x case 1 -> 2 case _ -> 3"),
        Ok(ReplInput::Expr(_))
    ));
}

#[test]
fn incomplete_inputs() {
    for s in [
        "def f x =",
        "1 +",
        "(1, 2",
        "let x = 1 in",
        "if c then 1",
        "if c",
        "if c then 1 else",
        "\\x ->",
        "\\x",
        "loop x = 0 for i < 10",
        "loop x = 0 for i < 10 do",
        "let x =",
        "f (",
        "[1,",
        "{a = 1",
        "xs |>",
        "def f (x: i32) : ",
        "match x",
        "match x case #some y ->",
        "x :>",
    ] {
        assert!(is_incomplete(s), "{s:?} should be incomplete");
    }
    for s in [
        "1 + 2",
        "def f x = x",
        "let x = 1",
        "let (a, b) = (1, 2)",
        "1 )",
        "",
        "x y z",
        "\"abc",
        "if then",
        "match x case 1 -> 2",
    ] {
        assert!(!is_incomplete(s), "{s:?} should be complete (or wrong)");
    }
}

#[test]
fn module_declarations() {
    for (src, ok) in [
        (
            "import \"lib\"",
            matches!(d1("import \"lib\""), Dec::Import(..)),
        ),
        (
            "module m = {}",
            matches!(d1("module m = {}"), Dec::Module(_)),
        ),
        (
            "module type s = {}",
            matches!(d1("module type s = {}"), Dec::ModType(_)),
        ),
        ("open m", matches!(d1("open m"), Dec::Open(..))),
        ("local open m", matches!(d1("local open m"), Dec::Local(..))),
    ] {
        assert!(ok, "{src}");
    }
}

/// The one declaration `src` is.
fn d1(src: &str) -> Dec {
    let mut p = parse_program(src, FileId(0)).expect(src);
    assert_eq!(p.decs.len(), 1, "{src}");
    p.decs.remove(0)
}

#[test]
fn spans_cover_the_source() {
    use urchin_syntax::ast::ExprKind;
    let r = |x: &ast::Expr| (x.span.start, x.span.end);
    let x = parse_expr("xs[0].1", FileId(0)).expect("parses");
    assert_eq!(r(&x), (0, 7));
    let ExprKind::Project(inner, _) = &x.kind else {
        panic!("{x:?}")
    };
    assert_eq!(r(inner), (0, 5));
    let x = parse_expr("a + b * c", FileId(0)).expect("parses");
    assert_eq!(r(&x), (0, 9));
    let ExprKind::BinOp(_, op, _, rhs) = &x.kind else {
        panic!("{x:?}")
    };
    assert_eq!(((op.start, op.end), r(rhs)), ((2, 3), (4, 9)));
    let x = parse_expr("f x (g y)", FileId(0)).expect("parses");
    assert_eq!(r(&x), (0, 9));
    let x = parse_expr("let x = 1 in x", FileId(0)).expect("parses");
    assert_eq!(r(&x), (0, 14));
    let p = parse_program("\n#[inline]\ndef f (x: i32) = x\n", FileId(2)).expect("parses");
    let ast::Dec::Val(v) = &p.decs[0] else {
        panic!()
    };
    assert_eq!((v.span.start, v.span.end, v.span.file), (1, 29, FileId(2)));
    assert_eq!((v.name_span.start, v.name_span.end), (15, 16));
    assert_eq!((v.params[0].span().start, v.params[0].span().end), (18, 24));
}
