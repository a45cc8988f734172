//! Futhark's values outside programs: the textual value syntax ([`text`])
//! and comparing results with expected values ([`compare`](mod@compare)),
//! shared by the command line, the REPL and the test runner.

pub mod compare;
pub mod text;

pub use compare::{Mismatch, Tolerance, compare};
pub use text::{LitValue, format_value, parse_values};

use crate::eval::value::Value;
use crate::prim::PrimType;
use std::fmt;

/// The type of a value outside a program: arrays of primitives and scalars (rank 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ValueType {
    pub elem: PrimType,
    pub rank: usize,
}

impl ValueType {
    pub fn new(elem: PrimType, rank: usize) -> ValueType {
        ValueType { elem, rank }
    }

    /// The type of a run-time value; a `rep` counts as one more dimension.
    pub fn of(v: &Value) -> ValueType {
        match v {
            Value::Scalar(s) => ValueType::new(s.ty(), 0),
            Value::Array(a) => ValueType::new(a.elem(), a.rank()),
            Value::Rep(inner) => {
                let t = ValueType::of(inner);
                ValueType::new(t.elem, t.rank + 1)
            }
            Value::Acc(a) => {
                let a = a.borrow();
                ValueType::new(a.elem(), a.rank())
            }
        }
    }
}

impl fmt::Display for ValueType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for _ in 0..self.rank {
            f.write_str("[]")?;
        }
        write!(f, "{}", self.elem)
    }
}

/// A shape as written in types, `[2][3]`, or "a scalar".
fn shape_text(shape: &[usize]) -> String {
    if shape.is_empty() {
        "a scalar".to_string()
    } else {
        shape.iter().map(|d| format!("[{d}]")).collect()
    }
}
