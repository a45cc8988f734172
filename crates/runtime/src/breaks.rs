//! Breakpoints: how an evaluator hands a `#[break]` to whoever can stop
//! there (the REPL), without knowing who that is. The REPL installs a
//! handler for the thread while it evaluates; an evaluator meeting an
//! `Exp::Break` calls [`stop`], which asks the handler whether to go on.
//! Without a handler (another thread, or while the handler runs: an
//! expression evaluated at a breakpoint does not stop again) a breakpoint
//! does nothing.

use super::CallFrame;
use super::value::Value;
use std::cell::RefCell;
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

pub type Handler = Box<dyn FnMut(&Stop) -> Resume>;

thread_local! {
    static HANDLER: RefCell<Option<Handler>> = const { RefCell::new(None) };
}

/// Runs `f` with `h` handling the breakpoints this thread meets.
pub fn with_handler<R>(h: Handler, f: impl FnOnce() -> R) -> R {
    /// Puts the previous handler back, also when `f` panics.
    struct Restore(Option<Handler>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let previous = self.0.take();
            HANDLER.with(|c| *c.borrow_mut() = previous);
        }
    }
    let _restore = Restore(HANDLER.with(|c| c.borrow_mut().replace(h)));
    f()
}

/// Whether a handler is installed on this thread (the evaluator then
/// keeps the work of a SOAC on this thread, where breakpoints can stop).
pub fn installed() -> bool {
    HANDLER.with(|c| c.borrow().is_some())
}

/// Hands a breakpoint to the handler, if there is one.
pub fn stop(s: &Stop) -> Resume {
    let Some(mut h) = HANDLER.with(|c| c.borrow_mut().take()) else {
        return Resume::Continue;
    };
    let r = h(s);
    HANDLER.with(|c| *c.borrow_mut() = Some(h));
    r
}
