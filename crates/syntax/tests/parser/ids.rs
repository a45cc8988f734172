//! Expression ids: numbered per source, never shared between sources or
//! with the nodes a session makes.

use std::collections::HashSet;
use urchin_base::source::{FileId, Span};
use urchin_syntax::ast::{Dec, Expr, NodeId, NodeIds};
use urchin_syntax::parse_program;

fn ids(text: &str, file: FileId) -> Vec<NodeId> {
    let prog = parse_program(text, file).expect("parses");
    let mut out = Vec::new();
    fn walk(e: &Expr, out: &mut Vec<NodeId>) {
        out.push(e.id);
        for c in e.children() {
            walk(c, out);
        }
    }
    for d in &prog.decs {
        if let Dec::Val(v) = d {
            walk(&v.body, &mut out);
        }
    }
    out
}

const TEXT: &str = "def f (x: i32) = let y = x + 1 in (y, [x, y], \\z -> z * 2)\n\
                    def g = (.[1]) [1, 2] with [0] = 3";

#[test]
fn a_source_numbers_its_nodes_the_same_way_each_time() {
    let first = ids(TEXT, FileId(3));
    assert_eq!(first, ids(TEXT, FileId(3)));
    let distinct: HashSet<_> = first.iter().collect();
    assert_eq!(distinct.len(), first.len(), "an id given twice: {first:?}");
    assert!(!first.contains(&NodeId::default()));
}

#[test]
fn sources_and_made_nodes_have_ids_of_their_own() {
    let a: HashSet<_> = ids(TEXT, FileId(1)).into_iter().collect();
    let b: HashSet<_> = ids(TEXT, FileId(2)).into_iter().collect();
    assert!(a.is_disjoint(&b));
    let made = NodeIds::made();
    let m: HashSet<_> = (0..100)
        .map(|_| {
            made.expr(urchin_syntax::ast::ExprKind::Hole, Span::default())
                .id
        })
        .collect();
    assert_eq!(m.len(), 100);
    assert!(a.is_disjoint(&m) && b.is_disjoint(&m));
}
