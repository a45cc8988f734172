//! `#[break]`: Futhark's interpreter pauses before an expression so marked.
//! urchin's evaluator runs whole arrays at once and cannot pause inside
//! one, so the REPL says where breakpoints are ignored, rather than letting
//! a user wait for a stop that never comes.

use crate::diag::Diagnostic;
use crate::source::Span;
use crate::syntax::ast::{Attr, Expr, ExprKind};

/// The spans of the `#[break]` attributes in `e` (an explicit stack, so
/// that deep expressions do not recurse).
pub fn find(e: &Expr, out: &mut Vec<Span>) {
    let mut todo = vec![e];
    while let Some(e) = todo.pop() {
        if let ExprKind::Attr(Attr::Atom(a), _) = &e.kind {
            if &**a == "break" {
                out.push(e.span);
            }
        }
        todo.extend(e.children());
    }
}

/// The warning for each breakpoint, in source order.
pub fn warnings(mut spans: Vec<Span>) -> Vec<Diagnostic> {
    spans.sort_by_key(|s| (s.file, s.start));
    spans
        .into_iter()
        .map(|s| {
            let mut d = Diagnostic::ty(
                "`#[break]` is ignored: urchin does not stop at breakpoints",
                s,
            )
            .with_label("evaluation does not pause here")
            .with_help(
                "to see values as they are computed use `#[trace]` (prints the value) \
                     or `#[trace(tag)]`; `:step EXPR` shows every reduction step",
            );
            d.warning = true;
            d
        })
        .collect()
}
