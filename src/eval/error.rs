//! Run-time errors, and the internal signal that makes lifted evaluation
//! fall back to per-element evaluation.

use crate::diag::Diagnostic;
use crate::prim::PrimError;
use crate::source::Span;
use std::fmt;

/// What went wrong, so that a test runner can classify errors without
/// parsing messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RuntimeErrorKind {
    IndexOutOfBounds,
    DivisionByZero,
    ShapeMismatch,
    /// The length of a `rep` was needed but it was never mapped together
    /// with an array that would give it one.
    RepLength,
    AssertionFailed,
    NegativeSize,
    Interrupted,
    /// An allocation over the memory limit, or one the system refused.
    OutOfMemory,
    /// A bug in a transformation or in the evaluator (ill-typed IR, an AD
    /// operator that was not eliminated, ...).
    Internal,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuntimeError {
    pub kind: RuntimeErrorKind,
    pub message: String,
    /// The span of the statement that failed.
    pub span: Span,
}

impl RuntimeError {
    pub fn to_diagnostic(&self) -> Diagnostic {
        Diagnostic::runtime(self.message.clone(), self.span)
    }
}

impl fmt::Display for RuntimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for RuntimeError {}

/// Why the evaluation of a statement stopped.
#[derive(Clone, Debug)]
pub(crate) enum Fail {
    /// A genuine error. The span is filled in by the innermost statement
    /// being evaluated, so it stays `None` only while the error travels up
    /// from the operation that raised it.
    Error {
        kind: RuntimeErrorKind,
        message: String,
        span: Option<Span>,
    },
    /// Lifted evaluation met something it cannot represent with one value
    /// per lane of a common shape (an `iota n` whose `n` differs between
    /// lanes, say). Never escapes the evaluator: the outermost lifted map
    /// catches it and evaluates its elements one at a time instead.
    Irregular,
}

pub(crate) type R<T> = Result<T, Fail>;

impl Fail {
    pub fn new(kind: RuntimeErrorKind, message: impl Into<String>) -> Fail {
        Fail::Error {
            kind,
            message: message.into(),
            span: None,
        }
    }

    pub fn internal(message: impl fmt::Display) -> Fail {
        Fail::new(
            RuntimeErrorKind::Internal,
            format!("internal error: {message}"),
        )
    }

    pub fn shape(message: impl fmt::Display) -> Fail {
        Fail::new(
            RuntimeErrorKind::ShapeMismatch,
            format!("shape mismatch: {message}"),
        )
    }

    pub fn rep_length() -> Fail {
        Fail::new(
            RuntimeErrorKind::RepLength,
            "the length of a rep is needed here but it has no length",
        )
    }

    pub fn negative_size(n: i64, what: &str) -> Fail {
        Fail::new(
            RuntimeErrorKind::NegativeSize,
            format!("negative size {n} in {what}"),
        )
    }

    pub fn too_large(e: crate::mem::TooLarge) -> Fail {
        Fail::new(RuntimeErrorKind::OutOfMemory, e.to_string())
    }

    pub fn interrupted() -> Fail {
        Fail::new(RuntimeErrorKind::Interrupted, "interrupted")
    }

    pub fn is_interrupt(&self) -> bool {
        matches!(
            self,
            Fail::Error {
                kind: RuntimeErrorKind::Interrupted,
                ..
            }
        )
    }

    /// Attaches `span` unless a more precise one is already there.
    pub fn at(self, at: Span) -> Fail {
        match self {
            Fail::Error {
                kind,
                message,
                span: None,
            } => Fail::Error {
                kind,
                message,
                span: Some(at),
            },
            other => other,
        }
    }

    /// The error as reported to the caller of the evaluator.
    pub fn into_runtime_error(self) -> RuntimeError {
        match self {
            Fail::Error {
                kind,
                message,
                span,
            } => RuntimeError {
                kind,
                message,
                span: span.unwrap_or_default(),
            },
            Fail::Irregular => RuntimeError {
                kind: RuntimeErrorKind::Internal,
                message: "internal error: an irregular lifted value escaped its map".into(),
                span: Span::default(),
            },
        }
    }
}

impl From<PrimError> for Fail {
    fn from(e: PrimError) -> Fail {
        match e {
            PrimError::DivisionByZero => {
                Fail::new(RuntimeErrorKind::DivisionByZero, "division by zero")
            }
            PrimError::TypeMismatch => Fail::internal("operand types do not match the operation"),
        }
    }
}

/// A shape as Futhark prints it: `[3][4]`.
pub(crate) fn fmt_shape(shape: &[usize]) -> String {
    shape.iter().map(|d| format!("[{d}]")).collect()
}
