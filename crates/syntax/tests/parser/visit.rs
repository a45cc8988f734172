//! The source AST's traversal: children and the names bound in them.

use std::convert::Infallible;
use urchin_base::source::FileId;
use urchin_syntax::ast::*;
use urchin_syntax::parse_expr;
use urchin_syntax::visit::*;

fn parse(text: &str) -> Expr {
    parse_expr(text, FileId(0)).expect("parses")
}

/// Each child, printed, with the names bound in it.
fn children(text: &str) -> Vec<(String, Vec<String>)> {
    let e = parse(text);
    let mut out = Vec::new();
    for_each_child(&e, |c, b| {
        let names = b.binders().into_iter().map(|(n, _)| n.to_string());
        out.push((urchin_syntax::pretty::expr(c), names.collect()));
    });
    out
}

fn own(v: &[(&str, &[&str])]) -> Vec<(String, Vec<String>)> {
    v.iter()
        .map(|(c, ns)| (c.to_string(), ns.iter().map(|n| n.to_string()).collect()))
        .collect()
}

#[test]
fn children_in_source_order_with_their_binders() {
    assert_eq!(
        children("loop (a, b) = (0, 1) for i < n do a + b + i"),
        own(&[("(0, 1)", &[]), ("n", &[]), ("a + b + i", &["a", "b", "i"])])
    );
    assert_eq!(
        children("loop acc = 0 for x in xs do acc + x"),
        own(&[("0", &[]), ("xs", &[]), ("acc + x", &["acc", "x"])])
    );
    assert_eq!(
        children("loop x while x < 9 do x * 2"),
        own(&[("x < 9", &["x"]), ("x * 2", &["x"])])
    );
    assert_eq!(
        children("let [n] (xs: [n]i32) = ys in n"),
        own(&[("ys", &[]), ("n", &["n", "xs"])])
    );
    assert_eq!(
        children("let f (y: i32) = y + z in f 1"),
        own(&[("y + z", &["y"]), ("f 1", &["f"])])
    );
    assert_eq!(
        children("match v case #some w -> w case _ -> 0"),
        own(&[("v", &[]), ("w", &["w"]), ("0", &[])])
    );
    assert_eq!(
        children("a[i:j, k] with [0] = b"),
        own(&[("a[i:j, k]", &[]), ("0", &[]), ("b", &[])])
    );
}

#[test]
fn binds_looks_at_every_kind_of_binder() {
    let e = parse("loop s = 0 for i < n do s");
    let mut bound = Vec::new();
    for_each_child(&e, |_, b| {
        bound.push((b.binds("s"), b.binds("i"), b.binds("n")))
    });
    assert_eq!(
        bound,
        [
            (false, false, false),
            (false, false, false),
            (true, true, false)
        ]
    );
}

#[test]
fn patterns_and_types_of_a_node() {
    let e = parse("\\(x: i32) (y, z) : i32 -> x");
    let written: Vec<String> = pats(&e).map(urchin_syntax::pretty::pat).collect();
    assert_eq!(written, ["(x: i32)", "(y, z)"]);
    assert_eq!(
        type_exp(&e).map(urchin_syntax::pretty::type_exp).as_deref(),
        Some("i32")
    );
    let e = parse("(xs :> [n]i32)");
    assert_eq!(pats(&e).count(), 0);
    assert!(type_exp(&e).is_some());
}

/// Maps every sub-expression to a hole and every type to `bool`.
struct Holes;

impl Mapper for Holes {
    type Error = Infallible;
    fn map_expr(&mut self, e: &Expr) -> Result<Expr, Infallible> {
        Ok(Expr::unchecked(ExprKind::Hole, e.span))
    }
    fn map_type(&mut self, t: &TypeExp) -> Result<TypeExp, Infallible> {
        Ok(TypeExp::Prim(urchin_prim::PrimType::Bool, t.span()))
    }
}

#[test]
fn mapping_rebuilds_the_node_from_its_mapped_parts() {
    let mapped = |text: &str| {
        let e = parse(text);
        urchin_syntax::pretty::expr(&Expr::unchecked(map_children(&e, &mut Holes), e.span))
    };
    assert_eq!(mapped("f (x + 1) y"), "??? ??? ???");
    assert_eq!(mapped("(x : i32)"), "??? : bool");
    assert_eq!(mapped("{a = 1, b}"), "{a = ???, b = ???}");
    assert_eq!(mapped("xs[1:2]"), "(???)[???:???]");
}

#[test]
fn the_first_error_is_the_leftmost() {
    struct FirstVar;
    impl Mapper for FirstVar {
        type Error = String;
        fn map_expr(&mut self, e: &Expr) -> Result<Expr, String> {
            match &e.kind {
                ExprKind::Var(q) => Err(q.name.to_string()),
                _ => Ok(e.clone()),
            }
        }
    }
    let e = parse("if 1 < 2 then a else b");
    assert_eq!(
        try_map_children(&e, &mut FirstVar).err().as_deref(),
        Some("a")
    );
}

#[test]
fn sub_patterns_and_pattern_types() {
    let p = match &parse("\\(a, {b = (c: i32), d}) -> a").kind {
        ExprKind::Lambda(ps, _, _) => ps[0].clone(),
        _ => unreachable!("a lambda"),
    };
    assert_eq!(sub_pats(&p).count(), 2);
    let r: Result<Pat, Infallible> = try_map_pat_types(&p, &mut |t| {
        Ok(TypeExp::Prim(urchin_prim::PrimType::F64, t.span()))
    });
    assert_eq!(
        urchin_syntax::pretty::pat(&r.unwrap_or_else(|n| match n {})),
        "(a, {b = c: f64, d})"
    );
}
