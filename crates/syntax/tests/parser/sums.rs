//! The shapes of sum types, `match`, size expressions, coercions,
//! existential sizes and lifted abbreviations.

use super::sexp::{parse_d, parse_e as e, parse_t as t};

fn d(src: &str) -> String {
    parse_d(src).join("\n")
}

#[test]
fn constructors() {
    for (src, want) in [
        ("#none", "(#none)"),
        ("#some 1", "(#some 1)"),
        ("#some (f x) y", "(#some (app f x) y)"),
        // The payload is what follows, as for a function's arguments.
        ("#foo #bar", "(#foo (#bar))"),
        ("f #mouse", "(app f (#mouse))"),
        ("#some 1 + 2", "(+ (#some 1) 2)"),
        ("[#a, #b 1]", "[(#a) (#b 1)]"),
        ("(#foo : t) == #bar", "(== (: (#foo) t) (#bar))"),
    ] {
        assert_eq!(e(src), want, "{src}");
    }
}

#[test]
fn sum_types() {
    for (src, want) in [
        ("#foo | #bar", "(sum (#foo) (#bar))"),
        ("#foo i32 | #bar", "(sum (#foo i32) (#bar))"),
        (
            "#foo ([]i32) (i32, f32) | #bar t",
            "(sum (#foo ([] i32) (tuple i32 f32)) (#bar t))",
        ),
        // Dimensions and `*` take the whole sum.
        ("[]#foo | #bar", "([] (sum (#foo) (#bar)))"),
        ("*[n]#a", "(* ([n] (sum (#a))))"),
        ("#a | #b -> i32", "(-> (sum (#a) (#b)) i32)"),
        ("opt (#a | #b)", "(opt (sum (#a) (#b)))"),
    ] {
        assert_eq!(t(src), want, "{src}");
    }
}

#[test]
fn matches() {
    for (src, want) in [
        (
            "match x case 1 -> 2 case _ -> 3",
            "(match x (case 1 2) (case _ 3))",
        ),
        (
            "match x case -1 -> true case _ -> false",
            "(match x (case -1 true) (case _ false))",
        ),
        (
            "match x case #some y -> y case #none -> 0",
            "(match x (case (#some y) y) (case (#none) 0))",
        ),
        (
            "match (1, #a) case (_, #a) -> 1 case {x = 2f32} -> 2",
            "(match (tuple 1 (#a)) (case (tuple _ (#a)) 1) (case {x=2f32=2} 2))",
        ),
        ("match x : t case y -> y", "(match (: x t) (case y y))"),
        // A case's type ends at its `->`.
        ("match x case y: i32 -> y", "(match x (case (: y i32) y))"),
        // The last case extends as far as it can.
        (
            "match x case 1 -> match y case 2 -> 3 case _ -> 4",
            "(match x (case 1 (match y (case 2 3) (case _ 4))))",
        ),
        (
            "f (match x case _ -> 1) 2",
            "(app f (match x (case _ 1)) 2)",
        ),
        ("#foo (#bar x) y", "(#foo (#bar x) y)"),
    ] {
        assert_eq!(e(src), want, "{src}");
    }
}

#[test]
fn sizes() {
    for (src, want) in [
        ("[n * 2]i32", "([(* n 2)] i32)"),
        ("[i64.i32 n]f32", "([(app (. i64 i32) n)] f32)"),
        ("[(n)]i32", "([n] i32)"),
        ("?[n].[n]i32", "(? [n] ([n] i32))"),
        (
            "?[n][m].([n]i32, [m]i32)",
            "(? [n m] (tuple ([n] i32) ([m] i32)))",
        ),
        ("a -> ?[k].[k]b", "(-> a (? [k] ([k] b)))"),
        ("vec [n + 1]", "(vec [(+ n 1)])"),
    ] {
        assert_eq!(t(src), want, "{src}");
    }
    for (src, want) in [
        ("xs :> [n]i32", "(:> xs ([n] i32))"),
        ("xs ++ ys :> [n]i32", "(:> (++ xs ys) ([n] i32))"),
        ("x : t :> u", "(:> (: x t) u)"),
        (
            "let [n] (xs: [n]i32) = e in n",
            "(let [n] (: xs ([n] i32)) e n)",
        ),
        (
            "let [n][m] (xss: [n][m]i32) = e in n",
            "(let [n m] (: xss ([n] ([m] i32))) e n)",
        ),
    ] {
        assert_eq!(e(src), want, "{src}");
    }
}

#[test]
fn lifted_abbreviations() {
    assert_eq!(d("type^ f = i32 -> i32"), "(type^ f (-> i32 i32))");
    assert_eq!(d("type~ v = []i32"), "(type~ v ([] i32))");
    assert_eq!(
        d("type^ two '~b = #foo b | #bar b"),
        "(type^ two '~b (sum (#foo b) (#bar b)))"
    );
    assert_eq!(d("type t = i32"), "(type t i32)");
}

#[test]
fn patterns_in_bindings_and_parameters() {
    assert_eq!(
        d("def f (#some x) #none = x"),
        "(def f ((#some x) (#none)) x)"
    );
    assert_eq!(e("let #p x y = v in x"), "(let (#p x y) v x)");
}
