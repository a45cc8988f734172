//! What the two evaluators share at run time: the values that enter and
//! leave a program (`value`), accesses and Futhark's slice rules
//! (`index`), the run-time errors (`error`), and breakpoints (`breaks`). The fast evaluator
//! (`eval`) and the reference semantics (`semantics`) both build on this
//! layer and on nothing of each other, so the reference stays an
//! independent definition that the fast evaluator is tested against.

pub mod breaks;
pub mod error;
pub mod index;
pub mod value;
pub mod values;

pub use error::{CallFrame, Error, Raise, RuntimeError, RuntimeErrorKind};
