//! How the evaluation of a statement stops: a run-time error (in the
//! vocabulary of [`crate::runtime::error`]), or the internal signal that
//! makes lifted evaluation fall back to per-element evaluation.

use crate::prim::PrimError;
use crate::runtime::{Error, Raise, RuntimeError};
use crate::source::Span;

/// Why the evaluation of a statement stopped.
#[derive(Clone, Debug)]
pub(crate) enum Fail {
    /// A genuine error. The span is filled in by the innermost statement
    /// being evaluated, so it stays `None` only while the error travels up
    /// from the operation that raised it.
    Error(Error, Option<Span>),
    /// Lifted evaluation met something it cannot represent with one value
    /// per lane of a common shape (an `iota n` whose `n` differs between
    /// lanes, say). Never escapes the evaluator: the outermost lifted map
    /// catches it and evaluates its elements one at a time instead.
    Irregular,
}

pub(crate) type R<T> = Result<T, Fail>;

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
    pub fn is_interrupt(&self) -> bool {
        matches!(self, Fail::Error(e, _) if e.kind == crate::runtime::RuntimeErrorKind::Interrupted)
    }

    /// Attaches `span` unless a more precise one is already there.
    pub fn at(self, at: Span) -> Fail {
        match self {
            Fail::Error(e, None) => Fail::Error(e, Some(at)),
            other => other,
        }
    }

    /// The error as reported to the caller of the evaluator.
    pub fn into_runtime_error(self) -> RuntimeError {
        match self {
            Fail::Error(e, span) => e.at(span.unwrap_or_default()),
            Fail::Irregular => {
                Error::internal("an irregular lifted value escaped its map").at(Span::default())
            }
        }
    }
}
