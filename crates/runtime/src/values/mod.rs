//! Futhark's values outside programs: the textual value syntax
//! ([`text`]), the binary value format ([`binary`]), data that mixes the
//! two ([`read_values`]) and comparing results with expected values
//! ([`compare`](mod@compare)), shared by the command line, the REPL and
//! the test runner.

pub mod binary;
pub mod compare;
pub mod text;

pub use compare::{Mismatch, Tolerance, compare};
pub use text::{LitValue, format_value, format_value_futhark, parse_values};

use crate::value::Value;
use std::fmt;
use std::path::Path;
use urchin_base::diag::{Diagnostic, Phase};
use urchin_base::mem::Budget;
use urchin_base::source::{FileId, Span};
use urchin_prim::PrimType;

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
            Value::Device(d) => ValueType::new(d.elem(), d.shape().len()),
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

/// Reads the values in `data`, each one text or binary, as Futhark reads
/// a program's input: a value whose first non-blank character is `b` is
/// binary (no text value starts with `b`). Spans are byte offsets into
/// `data` in file `file`.
pub fn read_values(data: &[u8], file: FileId) -> Result<Vec<LitValue>, Diagnostic> {
    let mut values = Vec::new();
    let mut pos = 0;
    loop {
        pos += data[pos..]
            .iter()
            .take_while(|b| b.is_ascii_whitespace())
            .count();
        match data.get(pos) {
            None => return Ok(values),
            Some(b'b') => {
                let (v, end) = binary::read_value(data, pos).map_err(|e| {
                    Diagnostic::new(Phase::Other, e.message)
                        .at(Span::new(file, e.at.start, e.at.end))
                })?;
                values.push(LitValue::typed(v, Span::new(file, pos, end)));
                pos = end;
            }
            Some(_) => {
                let rest = &data[pos..];
                let text = match std::str::from_utf8(rest) {
                    Ok(t) => t,
                    Err(e) => std::str::from_utf8(&rest[..e.valid_up_to()])
                        .expect("the prefix up to `valid_up_to` is UTF-8"),
                };
                let (vs, used) = text::parse_run(text, file, pos, true)?;
                if used == 0 && vs.is_empty() {
                    return Err(Diagnostic::new(
                        Phase::Other,
                        "the data is neither text values nor binary values",
                    )
                    .at(Span::new(file, pos, pos + 1))
                    .with_help("a binary value starts with `b`; text must be UTF-8"));
                }
                values.extend(vs);
                pos += used;
            }
        }
    }
}

/// Text to show `data` in diagnostics: the data itself when it is UTF-8,
/// else with every byte outside printable ASCII shown as `.`, so that the
/// byte offsets of [`read_values`]' spans still point at the same place.
pub fn display_text(data: &[u8]) -> String {
    match std::str::from_utf8(data) {
        Ok(t) => t.to_string(),
        Err(_) => data
            .iter()
            .map(|&b| {
                if b.is_ascii_graphic() || b.is_ascii_whitespace() {
                    char::from(b)
                } else {
                    '.'
                }
            })
            .collect(),
    }
}

/// The contents of a data file, decompressed when its name ends in `.gz`
/// (Futhark's test suites keep large datasets gzipped), within `budget`.
pub fn read_data_file(path: &Path, budget: Budget) -> std::io::Result<Vec<u8>> {
    // Data may be as large as memory allows (the limit), no larger: a
    // small gzipped file can unpack to gigabytes.
    let file = std::fs::File::open(path)?;
    if path.extension().is_none_or(|e| e != "gz") {
        return urchin_base::mem::read_bounded(file, usize::MAX, budget, "the data file");
    }
    let unpacked = flate2::read::GzDecoder::new(std::io::BufReader::new(file));
    urchin_base::mem::read_bounded(unpacked, usize::MAX, budget, "the unpacked data file")
}

/// The binary encoding of several values, one after the other.
pub fn write_binary(values: &[Value]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    for v in values {
        binary::write_value(v, &mut out)?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Array;
    use urchin_prim::Scalar;

    fn binary(v: Value) -> Vec<u8> {
        write_binary(&[v]).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn text_and_binary_values_mix() {
        let xs = Array::from_scalars(PrimType::I64, vec![2], &[Scalar::I64(7), Scalar::I64(-1)]);
        let mut data = b"  1.5f32 -- a comment\n".to_vec();
        data.extend(binary(Value::Array(xs.clone())));
        data.extend(b"\n [true, false] ");
        data.extend(binary(Value::Scalar(Scalar::U8(200))));
        data.extend(binary(Value::Scalar(Scalar::Bool(true))));
        let vs = read_values(&data, FileId(0)).unwrap_or_else(|d| panic!("{d}"));
        let types: Vec<String> = vs.iter().map(|v| v.value_type().to_string()).collect();
        assert_eq!(types, ["f32", "[]i64", "[]bool", "u8", "bool"]);
        assert_eq!(
            vs[1].to_value(None).ok().and_then(|v| v.array().cloned()),
            Some(xs)
        );
        // A binary value is read only at its own type, as in Futhark.
        assert!(!vs[1].accepts(ValueType::new(PrimType::I32, 1)));
        assert_eq!(
            vs[3]
                .to_value(Some(ValueType::new(PrimType::I32, 0)))
                .err()
                .as_deref(),
            Some("expected i32, got u8")
        );
        assert_eq!(vs[1].span(), Span::new(FileId(0), 22, 22 + 7 + 8 + 16));
        assert_eq!(vs[1].shape(), &[2]);
    }

    #[test]
    fn malformed_data_is_a_diagnostic() {
        let mut data = b"1 ".to_vec();
        data.extend(b"b\x02\x00 i64\x01");
        let d = read_values(&data, FileId(3)).err();
        assert!(
            d.as_ref().is_some_and(|d| d.message.contains("ends early")),
            "{d:?}"
        );
        let d = read_values(b"1 \xff\xfe", FileId(3)).err();
        assert_eq!(d.and_then(|d| d.span), Some(Span::new(FileId(3), 2, 3)));
        assert_eq!(display_text(b"a\xffb"), "a.b");
        assert_eq!(display_text("\u{e9}".as_bytes()), "\u{e9}");
    }

    #[test]
    fn gzipped_data_files() {
        use std::io::Write;
        let dir = std::env::temp_dir().join(format!("urchin-values-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
        let plain = binary(Value::Scalar(Scalar::F64(2.5)));
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(&plain).unwrap_or_else(|e| panic!("{e}"));
        let packed = gz.finish().unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(dir.join("x.out.gz"), &packed).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(dir.join("x.out"), &packed).unwrap_or_else(|e| panic!("{e}"));
        let unpacked = read_data_file(&dir.join("x.out.gz"), Budget::default()).ok();
        let raw = read_data_file(&dir.join("x.out"), Budget::default()).ok();
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(unpacked, Some(plain));
        assert_eq!(raw, Some(packed));
    }
}
