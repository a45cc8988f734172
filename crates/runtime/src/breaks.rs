//! Breakpoints: how an evaluator hands a `#[break]` to whoever can stop
//! there (the REPL), without knowing who that is. The REPL passes a
//! [`Handler`] to the evaluation it runs; an evaluator meeting an
//! `Exp::Break` asks it whether to go on. Without a handler (another
//! evaluation, such as one of an expression typed at a breakpoint, which
//! does not stop again) a breakpoint does nothing.

use super::CallFrame;
use super::value::Value;
use urchin_base::source::Span;
use urchin_core::ir::BreakLocal;

/// Where evaluation stopped and what was in scope there.
pub struct Stop<'a> {
    /// The expression marked `#[break]`.
    pub span: Span,
    /// The calls it is inside, innermost first.
    pub calls: Vec<CallFrame>,
    /// The source variables in scope, in the order they were bound.
    pub locals: &'a [BreakLocal],
    /// Their leaves, in order (`core::lower::leaf_types` of each type).
    pub values: Vec<Value>,
}

/// What the handler decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resume {
    Continue,
    /// Abandon the evaluation (it ends as if interrupted).
    Abort,
}

/// Who decides at a breakpoint: the REPL passes one to the evaluation it
/// runs (`urchin_eval::run_prepared`), which calls it at every
/// `Exp::Break` it meets on the calling thread.
pub type Handler<'h> = dyn FnMut(&Stop) -> Resume + 'h;
