//! Automatic differentiation on the core IR: `jvp` (forward mode) and
//! `vjp` (reverse mode by redundant execution).

use crate::core::ir::{Body, Exp, Program};
use crate::core::visit::nested;
use crate::diag::Diagnostic;

fn contains_ad(b: &Body) -> Option<crate::source::Span> {
    b.stms.iter().find_map(|s| match &s.exp {
        Exp::Jvp { .. } | Exp::Vjp { .. } => Some(s.span),
        e => nested(e).into_iter().find_map(|(_, b)| contains_ad(b)),
    })
}

/// Replaces every `jvp`/`vjp` of a program by its derivative code; returns
/// whether there was any.
pub fn transform_program(p: &mut Program) -> Result<bool, Diagnostic> {
    for f in &p.functions {
        if let Some(span) = contains_ad(&f.body) {
            return Err(Diagnostic::ty("automatic differentiation is not available yet", span));
        }
    }
    Ok(false)
}
