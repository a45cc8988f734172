//! How the evaluation of a statement stops: a run-time error (in the
//! vocabulary of [`urchin_runtime::error`]), or the internal signal that
//! makes lifted evaluation fall back to per-element evaluation.

use urchin_base::source::Span;
use urchin_prim::PrimError;
use urchin_runtime::{CallFrame, Error, Raise, RuntimeError};

/// Why the evaluation of a statement stopped.
#[derive(Clone, Debug)]
pub(crate) enum Fail {
    /// A genuine error. Its place is filled in by the innermost statement
    /// being evaluated, so it stays `None` only while the error travels up
    /// from the operation that raised it.
    Error(Error, Option<Box<Place>>),
    /// Lifted evaluation met something it cannot represent with one value
    /// per lane of a common shape (an `iota n` whose `n` differs between
    /// lanes, say). Never escapes the evaluator: the outermost lifted map
    /// catches it and evaluates its elements one at a time instead.
    Irregular,
}

pub(crate) type R<T> = Result<T, Fail>;

/// Where an error happened: the span of the statement, and the calls it is
/// inside, innermost first (its own chain of inlined calls, then those of
/// each `Exp::Call` it leaves).
#[derive(Clone, Debug)]
pub(crate) struct Place {
    span: Span,
    calls: Vec<CallFrame>,
}

impl From<Error> for Fail {
    fn from(e: Error) -> Fail {
        Fail::Error(e, None)
    }
}

impl Raise for Fail {}

impl From<PrimError> for Fail {
    fn from(e: PrimError) -> Fail {
        Error::from(e).into()
    }
}

impl Fail {
    /// An array still in a device's memory reached an operation: the
    /// evaluator copies every one a statement reads before running it
    /// (`Interp::fetch`), so this is a bug of the evaluator's.
    pub fn on_device() -> Fail {
        Fail::internal("an array still on the device reached the evaluator")
    }

    pub fn is_interrupt(&self) -> bool {
        matches!(self, Fail::Error(e, _) if e.kind == urchin_runtime::RuntimeErrorKind::Interrupted)
    }

    /// Gives the error the place of the statement that failed, `span`
    /// inside the calls `calls` lists, unless a more precise one is
    /// already there.
    pub fn at(self, span: Span, calls: impl FnOnce() -> Vec<CallFrame>) -> Fail {
        match self {
            Fail::Error(e, None) => Fail::Error(
                e,
                Some(Box::new(Place {
                    span,
                    calls: calls(),
                })),
            ),
            other => other,
        }
    }

    /// The error as it leaves a called function: inside the calls `calls`
    /// lists too (the call statement's). An error without a place is the
    /// call's own, which the call statement places.
    pub fn out_of_call(self, calls: impl FnOnce() -> Vec<CallFrame>) -> Fail {
        match self {
            Fail::Error(e, Some(mut place)) => {
                place.calls.extend(calls());
                Fail::Error(e, Some(place))
            }
            other => other,
        }
    }

    /// The error as reported to the caller of the evaluator.
    pub fn into_runtime_error(self) -> RuntimeError {
        match self {
            Fail::Error(e, None) => e.at(Span::default()),
            Fail::Error(e, Some(place)) => e.at(place.span).within(place.calls),
            Fail::Irregular => {
                Error::internal("an irregular lifted value escaped its map").at(Span::default())
            }
        }
    }
}
