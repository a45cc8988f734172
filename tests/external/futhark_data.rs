//! Cross-checks urchin's binary value format with the `futhark-data`
//! Python package (PyPI), which implements Futhark's format: values of
//! every element type and of ranks 0 to 3, empty arrays included, written
//! by urchin are read by futhark-data as the same numbers, and what
//! futhark-data writes back reads in urchin as the original values.
//!
//! Needs `python3` with `futhark_data` (`pip install futhark-data`). When
//! they are missing the test is ignored, unless `URCHIN_REQUIRE_DATA` is
//! set (as CI does), when it fails.

use libtest_mimic::Trial;
use std::path::{Path, PathBuf};
use std::process::Command;
use urchin_base::source::FileId;
use urchin_prim::{PrimType, Scalar};
use urchin_runtime::value::{Array, Value};
use urchin_runtime::values::{ValueType, read_values, write_binary};
use urchin_test_env::harness::{Need, case};

/// Reads the values written by urchin, prints each as a line
/// `TYPE SHAPE ELEMENTS` (shape `d,d`, elements in row-major order: ints
/// in decimal, floats by `repr` of their exact `float`), and writes them
/// back with futhark-data's own writer.
const SCRIPT: &str = r#"
import sys, numpy as np, futhark_data
names = {'int8': 'i8', 'int16': 'i16', 'int32': 'i32', 'int64': 'i64',
         'uint8': 'u8', 'uint16': 'u16', 'uint32': 'u32', 'uint64': 'u64',
         'float16': 'f16', 'float32': 'f32', 'float64': 'f64', 'bool': 'bool'}
with open(sys.argv[1], 'rb') as f:
    values = list(futhark_data.load(f))
with open(sys.argv[2], 'w') as out:
    for v in values:
        a = np.asarray(v)
        if a.dtype == np.bool_:
            elems = ['true' if x else 'false' for x in a.flat]
        elif a.dtype.kind == 'f':
            elems = [repr(float(x)) for x in a.flat]
        else:
            elems = [str(int(x)) for x in a.flat]
        shape = ','.join(str(d) for d in a.shape)
        out.write(' '.join([names[a.dtype.name], shape or '-'] + elems) + '\n')
with open(sys.argv[3], 'wb') as f:
    for v in values:
        futhark_data.dump(np.asarray(v) if np.ndim(v) else v, f, binary=True)
"#;

/// Element `i` of a test array of type `t`: the extremes, zero, signs,
/// and for floats the special values (NaN, infinities, -0, subnormals).
fn element(t: PrimType, i: usize) -> Scalar {
    let floats = [
        1.5,
        -0.0,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        0.1,
        -3.25e-5,
        65504.0,
        1e-7,
        6.1e-5,
        123456.789,
        f64::MAX,
        f64::MIN_POSITIVE / 4.0,
    ];
    let ints: [i128; 7] = [0, -1, 1, 1 << 70, -(1 << 70), 100, -77];
    match t {
        PrimType::Bool => Scalar::Bool(i % 3 == 1),
        _ if t.is_float() => Scalar::from_f64(t, floats[i % floats.len()]),
        _ => {
            // The extremes of the type for the huge entries.
            let x = ints[i % ints.len()];
            let bits = 8 * t.bytes() as u32;
            let (lo, hi) = if t.is_signed() {
                (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
            } else {
                (0, (1i128 << bits) - 1)
            };
            let x = x.clamp(lo, hi);
            if x < 0 {
                Scalar::from_i64(t, x as i64)
            } else {
                Scalar::from_u128(t, x as u128)
            }
        }
    }
}

fn shapes() -> Vec<Vec<usize>> {
    vec![
        vec![],
        vec![13],
        vec![0],
        vec![2, 3],
        vec![0, 4],
        vec![3, 0],
        vec![2, 1, 7],
        vec![1, 0, 2],
    ]
}

fn values() -> Vec<Value> {
    let mut out = Vec::new();
    for t in PrimType::ALL {
        for shape in shapes() {
            let n: usize = shape.iter().product();
            let data: Vec<Scalar> = (0..n).map(|i| element(t, i)).collect();
            out.push(if shape.is_empty() {
                Value::Scalar(element(t, 3))
            } else {
                Value::Array(Array::from_scalars(t, shape, &data))
            });
        }
    }
    out
}

fn elements(v: &Value) -> Vec<Scalar> {
    match v {
        Value::Scalar(s) => vec![*s],
        Value::Array(a) => a.to_scalars(),
        other => panic!("not a plain value: {other:?}"),
    }
}

fn shape(v: &Value) -> Vec<usize> {
    v.array().map(|a| a.shape().to_vec()).unwrap_or_default()
}

/// Whether `text` (a Python-printed element) is exactly `s`.
fn same_element(text: &str, s: Scalar) -> bool {
    match s {
        Scalar::Bool(b) => text == if b { "true" } else { "false" },
        _ if s.ty().is_float() => {
            let x = s.as_f64();
            text.parse::<f64>()
                .is_ok_and(|y| (x.is_nan() && y.is_nan()) || x.to_bits() == y.to_bits())
        }
        _ if s.ty().is_signed() => text.parse::<i64>() == Ok(s.as_i64()),
        _ => text.parse::<u64>() == Ok(s.as_i64() as u64),
    }
}

fn same_value(a: &Value, b: &Value) -> bool {
    ValueType::of(a) == ValueType::of(b)
        && shape(a) == shape(b)
        && elements(a).iter().zip(elements(b)).all(|(x, y)| x.same(y))
}

struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn run_python(dir: &Path) -> (String, Vec<u8>) {
    let out = Command::new("python3")
        .arg("-c")
        .arg(SCRIPT)
        .arg(dir.join("urchin.bin"))
        .arg(dir.join("python.txt"))
        .arg(dir.join("python.bin"))
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "futhark-data failed on urchin's binary data:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(dir.join("python.txt")).expect("python wrote its reading");
    let data = std::fs::read(dir.join("python.bin")).expect("python wrote binary data");
    (text, data)
}

fn binary_values_agree_with_futhark_data() {
    let dir =
        TempDir(std::env::temp_dir().join(format!("urchin-futhark-data-{}", std::process::id())));
    std::fs::create_dir_all(&dir.0).expect("temp dir");
    let originals = values();
    let data = write_binary(&originals).expect("plain values encode");
    std::fs::write(dir.0.join("urchin.bin"), data).expect("write urchin.bin");
    let (reading, back) = run_python(&dir.0);

    // futhark-data reads urchin's data as the same types, shapes, numbers.
    let lines: Vec<&str> = reading.lines().collect();
    assert_eq!(lines.len(), originals.len(), "{reading}");
    for (v, line) in originals.iter().zip(&lines) {
        let mut words = line.split(' ');
        let t = ValueType::of(v);
        assert_eq!(words.next(), Some(t.elem.name()), "{line}");
        let dims = shape(v)
            .iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join(",");
        let dims = if dims.is_empty() {
            "-".to_string()
        } else {
            dims
        };
        assert_eq!(words.next(), Some(dims.as_str()), "{line}");
        let elems: Vec<&str> = words.collect();
        let expected = elements(v);
        assert_eq!(elems.len(), expected.len(), "{line}");
        for (text, s) in elems.iter().zip(&expected) {
            assert!(
                same_element(text, *s),
                "{t}: urchin wrote {s}, futhark-data read {text}"
            );
        }
    }

    // urchin reads what futhark-data writes as the original values.
    let read = read_values(&back, FileId(0)).unwrap_or_else(|d| panic!("{d}"));
    assert_eq!(read.len(), originals.len());
    for (lit, v) in read.iter().zip(&originals) {
        let got = lit
            .to_value(Some(ValueType::of(v)))
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(same_value(&got, v), "wrote {v:?}, read back {got:?}");
    }
}

pub fn trials() -> Vec<Trial> {
    vec![case(
        "futhark_data::binary_values_agree_with_futhark_data",
        vec![Need::python(&["futhark_data", "numpy"], "futhark-data")],
        binary_values_agree_with_futhark_data,
    )]
}
