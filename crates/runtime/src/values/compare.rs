//! Comparing a result with the expected value, with Futhark's tolerance
//! for floats.

use super::{ValueType, shape_text};
use crate::value::Value;
use std::fmt;
use urchin_prim::Scalar;

/// How close a float result must be to the expected one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance {
    pub abs: f64,
    pub rel: f64,
}

impl Default for Tolerance {
    /// Futhark's default tolerance.
    fn default() -> Tolerance {
        Tolerance {
            abs: 0.002,
            rel: 0.002,
        }
    }
}

/// Why a result differs from the expected value.
#[derive(Clone, Debug, PartialEq)]
pub enum Mismatch {
    /// The first differing element; `index` is empty for scalars.
    Element {
        index: Vec<usize>,
        expected: Scalar,
        got: Scalar,
    },
    Shape {
        expected: Vec<usize>,
        got: Vec<usize>,
    },
    Type {
        expected: String,
        got: String,
    },
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Mismatch::Element {
                index,
                expected,
                got,
            } if index.is_empty() => {
                write!(f, "expected {expected}, got {got}")
            }
            Mismatch::Element {
                index,
                expected,
                got,
            } => {
                let idx: Vec<String> = index.iter().map(|i| i.to_string()).collect();
                write!(
                    f,
                    "at index [{}]: expected {expected}, got {got}",
                    idx.join(", ")
                )
            }
            Mismatch::Shape { expected, got } => write!(
                f,
                "shape mismatch: expected {} got {}",
                shape_text(expected),
                shape_text(got)
            ),
            Mismatch::Type { expected, got } => {
                write!(f, "type mismatch: expected {expected} got {got}")
            }
        }
    }
}

fn type_text(v: &Value) -> String {
    match v {
        Value::Rep(inner) => format!("rep({})", type_text(inner)),
        _ => ValueType::of(v).to_string(),
    }
}

/// Compares a result with the expected value. Non-floats must be equal.
/// Floats follow Futhark's rule: NaN equals NaN, equal infinities are
/// equal, and otherwise `|e - g| <= t` where `t` is one threshold for the
/// whole value, `max(tol.abs, tol.rel * m)` with `m` the largest magnitude
/// among the finite expected elements (Futhark scales by the largest
/// expected element, not its magnitude; taking the magnitude accepts
/// everything Futhark accepts).
pub fn compare(expected: &Value, got: &Value, tol: Tolerance) -> Result<(), Mismatch> {
    let type_mismatch = || Mismatch::Type {
        expected: type_text(expected),
        got: type_text(got),
    };
    let (e, g) = match (expected, got) {
        (Value::Rep(e), Value::Rep(g)) => return compare(e, g, tol),
        (Value::Rep(_), _) | (_, Value::Rep(_)) => return Err(type_mismatch()),
        (Value::Acc(e), _) => return compare(&Value::Array(e.borrow().clone()), got, tol),
        (_, Value::Acc(g)) => return compare(expected, &Value::Array(g.borrow().clone()), tol),
        (e, g) => (e, g),
    };
    if ValueType::of(e) != ValueType::of(g) {
        return Err(type_mismatch());
    }
    let (shape, es, gs) = match (e, g) {
        (Value::Array(ea), Value::Array(ga)) => {
            if ea.shape() != ga.shape() {
                return Err(Mismatch::Shape {
                    expected: ea.shape().to_vec(),
                    got: ga.shape().to_vec(),
                });
            }
            (ea.shape().to_vec(), ea.to_scalars(), ga.to_scalars())
        }
        (Value::Scalar(es), Value::Scalar(gs)) => (Vec::new(), vec![*es], vec![*gs]),
        _ => return Err(type_mismatch()),
    };
    let threshold = es
        .iter()
        .map(|s| s.as_f64().abs())
        .filter(|x| x.is_finite())
        .fold(tol.abs, |t, m| t.max(tol.rel * m));
    let close = |a: Scalar, b: Scalar| {
        if a.ty().is_float() {
            let (x, y) = (a.as_f64(), b.as_f64());
            a.same(b) || x == y || (x - y).abs() <= threshold
        } else {
            a == b
        }
    };
    match es.iter().zip(&gs).position(|(a, b)| !close(*a, *b)) {
        None => Ok(()),
        Some(i) => Err(Mismatch::Element {
            index: unravel(i, &shape),
            expected: es[i],
            got: gs[i],
        }),
    }
}

/// The multi-dimensional index of row-major position `i`.
fn unravel(mut i: usize, shape: &[usize]) -> Vec<usize> {
    let mut index = vec![0; shape.len()];
    for (d, n) in shape.iter().enumerate().rev() {
        index[d] = i % n;
        i /= n;
    }
    index
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::values::parse_values;
    use urchin_base::source::FileId;

    fn one(text: &str) -> Value {
        match parse_values(text, FileId(0), 0) {
            Ok(vs) => vs[0]
                .to_value(None)
                .unwrap_or_else(|e| panic!("{text}: {e}")),
            Err(d) => panic!("{text:?} failed to parse: {d}"),
        }
    }

    fn cmp(e: &str, g: &str) -> Result<(), String> {
        compare(&one(e), &one(g), Tolerance::default()).map_err(|m| m.to_string())
    }

    #[test]
    fn comparison() {
        assert_eq!(cmp("3", "3"), Ok(()));
        assert_eq!(cmp("3", "4"), Err("expected 3, got 4".into()));
        assert_eq!(cmp("1.0", "1.0019"), Ok(()));
        assert_eq!(cmp("1.0", "1.0021"), Err("expected 1.0, got 1.0021".into()));
        // The threshold scales with the largest expected magnitude.
        assert_eq!(cmp("1000.0", "1001.9"), Ok(()));
        assert_eq!(cmp("[1000.0, 1.0]", "[1000.0, 2.9]"), Ok(()));
        assert!(cmp("-1000.0", "-1002.1").is_err());
        assert_eq!(cmp("f64.nan", "f64.nan"), Ok(()));
        assert!(cmp("f64.nan", "1.0").is_err());
        assert!(cmp("1.0", "f64.nan").is_err());
        assert_eq!(cmp("-f32.inf", "-f32.inf"), Ok(()));
        assert!(cmp("f32.inf", "-f32.inf").is_err());
        assert!(cmp("f32.inf", "1f32").is_err());
        assert_eq!(
            cmp("[[1.0, 2.0], [3.5, 4.0]]", "[[1.0, 2.0], [3.7, 5.0]]"),
            Err("at index [1, 0]: expected 3.5, got 3.7".into())
        );
        assert_eq!(
            cmp("[1, 2, 3]", "[1, 2]"),
            Err("shape mismatch: expected [3] got [2]".into())
        );
        assert_eq!(
            cmp("[1.0]", "[1f32]"),
            Err("type mismatch: expected []f64 got []f32".into())
        );
        assert_eq!(
            cmp("1", "[1]"),
            Err("type mismatch: expected i32 got []i32".into())
        );
        assert_eq!(cmp("empty([0]i32)", "empty([0]i32)"), Ok(()));
        assert_eq!(
            cmp("[true]", "[false]"),
            Err("at index [0]: expected true, got false".into())
        );
        let strict = Tolerance { abs: 0.0, rel: 0.0 };
        assert!(compare(&one("1.0"), &one("1.0000001"), strict).is_err());
    }
}
