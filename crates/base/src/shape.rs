//! Shapes in messages: the one way a shape is written, for the resource
//! model's refusals and every run-time error alike.

/// A dimension in a message: known, or unknown (`[]`: the rows of a `rep`,
/// or of an empty array whose rows the reference semantics never saw). A
/// size expected by a type may be negative.
pub trait Dim: Copy {
    fn known(self) -> Option<i64>;
}

impl Dim for usize {
    fn known(self) -> Option<i64> {
        Some(self as i64)
    }
}

impl Dim for Option<usize> {
    fn known(self) -> Option<i64> {
        self.map(|d| d as i64)
    }
}

impl Dim for Option<i64> {
    fn known(self) -> Option<i64> {
        self
    }
}

/// A shape as Futhark prints it: `[3][4]`.
pub fn fmt_shape(shape: &[impl Dim]) -> String {
    shape
        .iter()
        .map(|d| match d.known() {
            Some(n) => format!("[{n}]"),
            None => "[]".to_string(),
        })
        .collect()
}
