//! Run-time errors: one vocabulary for both evaluators.
//!
//! An operation raises an [`Error`] (what went wrong); the evaluator gives
//! it the span of the statement or redex that failed, which makes it a
//! [`RuntimeError`], and then the calls it happened inside ([`CallFrame`]). The messages are built here and nowhere else, so the
//! fast evaluator and the reference semantics report a failure in the same
//! words. Where Futhark's own test programs check a message (`error:`
//! blocks), the wording is Futhark's: `Index [3] out of bounds for array of
//! shape [3]`, `Assertion is false: ...`, `Range 0..1..<-2 is invalid`,
//! `division by zero`, `... cannot match shape ...`.

use super::index::{Ix, fmt_index};
use std::fmt;
use std::sync::Arc;
use urchin_base::diag::Diagnostic;
use urchin_base::shape::{Dim, fmt_shape};
use urchin_base::source::Span;
use urchin_prim::PrimError;

/// What went wrong, so that a test runner can classify errors without
/// parsing messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RuntimeErrorKind {
    IndexOutOfBounds,
    DivisionByZero,
    /// An integer raised to a negative power.
    NegativeExponent,
    ShapeMismatch,
    /// The length of a `rep` was needed but it was never mapped together
    /// with an array that would give it one.
    RepLength,
    AssertionFailed,
    NegativeSize,
    Interrupted,
    /// An allocation over the memory limit, or one the system refused.
    OutOfMemory,
    /// Calls nested deeper than the evaluator allows (a stack overflow).
    RecursionDepth,
    /// Something this engine does not define although the program is
    /// valid (reverse-mode AD in the reference semantics): another engine
    /// runs it, so a test runner counts it as skipped, not failed.
    Unsupported,
    /// A device could not give back an array it computed (it was lost,
    /// or the copy failed): the program is not at fault.
    Device,
    /// A bug in a transformation or in an evaluator (ill-typed IR, an AD
    /// operator that was not eliminated, ...).
    Internal,
}

/// A call that a run-time error happened inside: the function called and
/// the call site.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallFrame {
    pub callee: Arc<str>,
    pub site: Span,
}

/// A run-time error at its place in the source: what an evaluator reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuntimeError {
    pub kind: RuntimeErrorKind,
    pub message: String,
    /// The span of the statement or redex that failed.
    pub span: Span,
    /// The calls it failed inside, innermost first (empty at the top of an
    /// entry point or REPL expression).
    pub calls: Vec<CallFrame>,
}

impl RuntimeError {
    /// The error inside more calls, outside those it has (innermost
    /// first).
    pub fn within(mut self, calls: impl IntoIterator<Item = CallFrame>) -> RuntimeError {
        self.calls.extend(calls);
        self
    }

    pub fn to_diagnostic(&self) -> Diagnostic {
        let d = Diagnostic::runtime(self.message.clone(), self.span).with_calls(
            self.calls
                .iter()
                .map(|c| (c.callee.to_string(), c.site))
                .collect(),
        );
        use RuntimeErrorKind as K;
        match self.kind {
            // The `rep` is AUTOMAP's, not the user's: say what it did.
            K::RepLength => d
                .with_label("a value is used here as an array (AUTOMAP replicates it), but nothing says how long that array is")
                .with_help("pass an array, or build one of the length you mean: `replicate n x`"),
            K::IndexOutOfBounds => d.with_label("this index is out of bounds"),
            K::DivisionByZero => d.with_label("this divides by zero"),
            K::NegativeExponent => d.with_label("this raises an integer to a negative power"),
            K::ShapeMismatch => d.with_label("the shapes of these arrays differ"),
            K::AssertionFailed => d.with_label("this assertion failed"),
            K::NegativeSize => d.with_label("this size is negative"),
            K::Interrupted => d.with_label("evaluation was here"),
            K::OutOfMemory => d.with_label("this allocation did not fit"),
            K::RecursionDepth => d.with_label("calls nested too deeply here"),
            K::Unsupported => d.with_label("this engine stops here"),
            K::Device => d
                .with_label("this reads an array the device computed")
                .with_help("run it again, or without the device (`:device none`, `--device none`)"),
            K::Internal => d.with_label("urchin failed here (a bug in urchin, not in the program)"),
        }
    }
}

impl fmt::Display for RuntimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for RuntimeError {}

/// A run-time error that has not been given its place yet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub kind: RuntimeErrorKind,
    pub message: String,
}

impl Error {
    pub fn at(self, span: Span) -> RuntimeError {
        RuntimeError {
            kind: self.kind,
            message: self.message,
            span,
            calls: Vec::new(),
        }
    }
}

impl From<PrimError> for Error {
    fn from(e: PrimError) -> Error {
        match e {
            PrimError::DivisionByZero => Error::division_by_zero(),
            PrimError::NegativeExponent => Error::negative_exponent(),
            PrimError::TypeMismatch => Error::internal("operand types do not match the operation"),
        }
    }
}

fn raise(kind: RuntimeErrorKind, message: impl Into<String>) -> Error {
    Error {
        kind,
        message: message.into(),
    }
}

fn mismatch(message: fmt::Arguments) -> Error {
    raise(
        RuntimeErrorKind::ShapeMismatch,
        format!("shape mismatch: {message}"),
    )
}

/// The vocabulary: one constructor per run-time error. Every type that can
/// carry an [`Error`] (each evaluator's own failure type, and `Error`
/// itself) speaks it, so `Fail::rep_length()` in the evaluator and
/// `Error::rep_length()` in the reference build
/// the same error.
pub trait Raise: From<Error> {
    /// A bug in urchin, not in the program.
    fn internal(message: impl fmt::Display) -> Self {
        raise(
            RuntimeErrorKind::Internal,
            format!("internal error: {message}"),
        )
        .into()
    }

    /// Valid, but not defined by the engine running it; `message` says
    /// what, and which engine to use instead.
    fn unsupported(message: impl fmt::Display) -> Self {
        raise(RuntimeErrorKind::Unsupported, message.to_string()).into()
    }

    /// An array a device computed could not be copied back (`why`).
    fn device_lost(why: impl fmt::Display) -> Self {
        raise(
            RuntimeErrorKind::Device,
            format!("the device could not give back an array it computed: {why}"),
        )
        .into()
    }

    /// Stopped by the user (Ctrl-C).
    fn interrupted() -> Self {
        raise(RuntimeErrorKind::Interrupted, "interrupted").into()
    }

    /// A call of the recursive function `name` nested `depth` calls deep,
    /// beyond what the evaluator allows (a stack overflow).
    fn recursion_too_deep(name: &str, depth: usize) -> Self {
        raise(
            RuntimeErrorKind::RecursionDepth,
            format!(
                "stack overflow: the call of `{name}` is {depth} calls deep; \
                 does its recursion reach a base case?"
            ),
        )
        .into()
    }

    /// The reference semantics' form of [`Raise::recursion_too_deep`]: the
    /// term being reduced is nested `depth` deep.
    fn term_too_deep(depth: usize) -> Self {
        raise(
            RuntimeErrorKind::RecursionDepth,
            format!(
                "stack overflow: the expression being evaluated is nested {depth} deep; \
                 does a recursion reach its base case?"
            ),
        )
        .into()
    }

    /// Integer division or remainder by zero.
    fn division_by_zero() -> Self {
        raise(RuntimeErrorKind::DivisionByZero, "division by zero").into()
    }

    /// An integer raised to a negative power (Futhark's safety check).
    fn negative_exponent() -> Self {
        raise(
            RuntimeErrorKind::NegativeExponent,
            "negative exponent: an integer cannot be raised to a negative power",
        )
        .into()
    }

    /// An index or slice outside the array: `xs[3]` of an array of shape
    /// `[3]`.
    fn index_out_of_bounds(index: &[Ix], shape: &[impl Dim]) -> Self {
        raise(
            RuntimeErrorKind::IndexOutOfBounds,
            format!(
                "Index {} out of bounds for array of shape {}",
                fmt_index(index),
                fmt_shape(shape)
            ),
        )
        .into()
    }

    /// `assert c e` with `c` false; `condition` says what was asserted.
    fn assertion_failed(condition: &str) -> Self {
        raise(
            RuntimeErrorKind::AssertionFailed,
            format!("Assertion is false: {condition}"),
        )
        .into()
    }

    /// A failed check whose message is complete as it stands: a range's,
    /// or an assertion message with its values filled in (a size
    /// coercion's, a `#[trace]`d check's).
    fn check_failed(message: impl Into<String>) -> Self {
        raise(RuntimeErrorKind::AssertionFailed, message).into()
    }

    /// `iota n` with `n < 0` (Futhark's `0..1..<n`).
    fn iota_negative(n: i64) -> Self {
        raise(
            RuntimeErrorKind::NegativeSize,
            format!("Range 0..1..<{n} is invalid"),
        )
        .into()
    }

    /// A negative size given to an operation that builds an array.
    fn negative_size(n: i64, what: &str) -> Self {
        raise(
            RuntimeErrorKind::NegativeSize,
            format!("negative size {n} in {what}"),
        )
        .into()
    }

    /// An array over the memory limit (`urchin_base::mem`), or one the system
    /// refused.
    fn too_large(e: urchin_base::mem::TooLarge) -> Self {
        raise(RuntimeErrorKind::OutOfMemory, e.to_string()).into()
    }

    /// The length of a `rep` is needed but nothing gives it one.
    fn rep_length() -> Self {
        raise(
            RuntimeErrorKind::RepLength,
            "the length of a rep is needed here but it has no length",
        )
        .into()
    }

    /// A SOAC (`map`, `reduce`, ...) over arrays of different lengths.
    fn lengths_differ(what: &str, m: usize, n: usize) -> Self {
        mismatch(format_args!("{what} over arrays of lengths {m} and {n}")).into()
    }

    /// A value whose shape contradicts the sizes of a type: a sized
    /// parameter or result, a type ascription, the arguments of `zip`.
    /// `what` names the value (`parameter `xs` of `f``).
    fn cannot_match(what: &str, got: &[impl Dim], expected: &[impl Dim]) -> Self {
        raise(
            RuntimeErrorKind::ShapeMismatch,
            format!(
                "Value of shape {} cannot match shape {} ({what})",
                fmt_shape(got),
                fmt_shape(expected)
            ),
        )
        .into()
    }

    /// `unflatten` (or another reshape) to a shape of another size.
    fn cannot_reshape(from: &[impl Dim], to: &[impl Dim]) -> Self {
        mismatch(format_args!(
            "cannot reshape an array of shape {} to {}",
            fmt_shape(from),
            fmt_shape(to)
        ))
        .into()
    }

    /// `concat` of arrays whose rows differ in shape.
    fn cannot_concat(a: &[impl Dim], b: &[impl Dim]) -> Self {
        mismatch(format_args!(
            "cannot concatenate arrays of shapes {} and {}",
            fmt_shape(a),
            fmt_shape(b)
        ))
        .into()
    }

    /// An array literal whose elements differ in shape.
    fn irregular_literal(a: &[impl Dim], b: &[impl Dim]) -> Self {
        mismatch(format_args!(
            "array literal with elements of shapes {} and {}",
            fmt_shape(a),
            fmt_shape(b)
        ))
        .into()
    }

    /// A `map` whose function returned arrays of different shapes.
    fn irregular_map(a: &[impl Dim], b: &[impl Dim]) -> Self {
        mismatch(format_args!(
            "map produced elements of shapes {} and {}",
            fmt_shape(a),
            fmt_shape(b)
        ))
        .into()
    }

    /// `a with [i] = v` where `v` does not have the shape of `a[i]`.
    fn cannot_write(got: &[impl Dim], slice: &[impl Dim]) -> Self {
        mismatch(format_args!(
            "cannot write a value of shape {} to a slice of shape {}",
            fmt_shape(got),
            fmt_shape(slice)
        ))
        .into()
    }

    /// An accumulator update whose value does not fit the slice.
    fn cannot_accumulate(got: &[impl Dim], slice: &[impl Dim]) -> Self {
        mismatch(format_args!(
            "cannot add a value of shape {} to an accumulator slice of shape {}",
            fmt_shape(got),
            fmt_shape(slice)
        ))
        .into()
    }
}

impl Raise for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_use_futharks_wording() {
        let e = Error::index_out_of_bounds(&[Ix::Fix(3)], &[3usize]);
        assert_eq!(e.message, "Index [3] out of bounds for array of shape [3]");
        let e = Error::iota_negative(-2);
        assert_eq!(e.message, "Range 0..1..<-2 is invalid");
        let e = Error::cannot_match("the annotated expression", &[4usize], &[Some(3i64), None]);
        assert_eq!(
            e.message,
            "Value of shape [4] cannot match shape [3][] (the annotated expression)"
        );
        assert_eq!(
            Error::from(PrimError::DivisionByZero).kind,
            RuntimeErrorKind::DivisionByZero
        );
    }
}
