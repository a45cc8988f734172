//! Futhark's binary value format: `b`, the format version (2), the rank
//! as one byte, the element type as four ASCII bytes (`" i32"`, `"bool"`,
//! ...), each dimension as a little-endian `u64`, then the elements in
//! row-major order, little-endian (a `bool` is one byte, 0 or 1). A scalar
//! is an array of rank 0.

use crate::value::{Array, Element, Value};
use ndarray::{ArcArray, IxDyn};
use std::ops::Range;
use urchin_prim::PrimType;

/// The version of the format this module reads and writes.
pub const VERSION: u8 = 2;

/// The four-byte name of an element type in the format.
pub fn type_tag(t: PrimType) -> &'static [u8; 4] {
    match t {
        PrimType::Bool => b"bool",
        PrimType::I8 => b"  i8",
        PrimType::I16 => b" i16",
        PrimType::I32 => b" i32",
        PrimType::I64 => b" i64",
        PrimType::U8 => b"  u8",
        PrimType::U16 => b" u16",
        PrimType::U32 => b" u32",
        PrimType::U64 => b" u64",
        PrimType::F16 => b" f16",
        PrimType::F32 => b" f32",
        PrimType::F64 => b" f64",
    }
}

/// The little-endian encoding of one element.
trait LittleEndian: Element {
    fn put(self, out: &mut Vec<u8>);
    /// Decodes `bytes`, which has the element's size; `None` for a byte
    /// that is not a `bool`.
    fn get(bytes: &[u8]) -> Option<Self>;
}

macro_rules! little_endian {
    ($($t:ty),*) => {$(
        impl LittleEndian for $t {
            fn put(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn get(bytes: &[u8]) -> Option<Self> {
                bytes.try_into().ok().map(<$t>::from_le_bytes)
            }
        }
    )*};
}

little_endian!(i8, i16, i32, i64, u8, u16, u32, u64, half::f16, f32, f64);

impl LittleEndian for bool {
    fn put(self, out: &mut Vec<u8>) {
        out.push(u8::from(self));
    }
    fn get(bytes: &[u8]) -> Option<Self> {
        match bytes {
            [0] => Some(false),
            [1] => Some(true),
            _ => None,
        }
    }
}

/// Appends the binary encoding of `v`. A `rep` has no length to write, so
/// it is an error.
pub fn write_value(v: &Value, out: &mut Vec<u8>) -> Result<(), String> {
    fn elements<T: LittleEndian>(a: &Array, out: &mut Vec<u8>) {
        let a = T::unwrap_array(a).expect("dispatched on the array's own element type");
        for x in a.iter() {
            x.put(out);
        }
    }
    let array = match v {
        Value::Scalar(s) => Array::filled(Vec::new(), *s),
        Value::Array(a) => a.clone(),
        Value::Acc(a) => a.borrow().clone(),
        Value::Device(d) => d.to_host()?,
        Value::Rep(_) => {
            return Err("a `rep` value has no length, so it cannot be written in binary".into());
        }
    };
    let shape = array.shape();
    out.push(b'b');
    out.push(VERSION);
    // Arrays of rank above 255 cannot be written by any type checker.
    out.push(u8::try_from(shape.len()).map_err(|_| "an array of rank above 255")?);
    out.extend_from_slice(type_tag(array.elem()));
    for d in shape {
        out.extend_from_slice(&(*d as u64).to_le_bytes());
    }
    urchin_prim::dispatch_prim!(array.elem(), elements(&array, out));
    Ok(())
}

/// Why a binary value could not be read, and which bytes are at fault.
#[derive(Clone, Debug, PartialEq)]
pub struct ReadError {
    pub message: String,
    pub at: Range<usize>,
}

fn fail<T>(message: impl Into<String>, at: Range<usize>) -> Result<T, ReadError> {
    Err(ReadError {
        message: message.into(),
        at,
    })
}

/// Reads the binary value that starts at `data[start]` (a `b`), returning
/// it and the offset just after it. Sizes are checked against the data
/// before anything is allocated, so a corrupt header is an error, never a
/// huge allocation.
pub fn read_value(data: &[u8], start: usize) -> Result<(Value, usize), ReadError> {
    let header = start..(start + 7).min(data.len());
    let truncated = |what: &str, at: Range<usize>| {
        fail(
            format!("the binary value ends early: {what} is missing"),
            at,
        )
    };
    let Some(&[b'b', version, rank, t0, t1, t2, t3]) = data.get(start..start + 7) else {
        return truncated("its header", header);
    };
    if version != VERSION {
        return fail(
            format!(
                "binary format version {version} is not supported (urchin reads version {VERSION})"
            ),
            start + 1..start + 2,
        );
    }
    let tag = [t0, t1, t2, t3];
    let Some(elem) = PrimType::ALL.into_iter().find(|t| *type_tag(*t) == tag) else {
        return fail(
            format!(
                "`{}` is not an element type of the binary format",
                String::from_utf8_lossy(&tag)
            ),
            start + 3..start + 7,
        );
    };
    let mut pos = start + 7;
    let mut shape = Vec::with_capacity(usize::from(rank));
    for _ in 0..rank {
        let Some(d) = data.get(pos..pos + 8) else {
            return truncated("a dimension", pos..data.len());
        };
        let d = u64::from_le_bytes(d.try_into().expect("8 bytes"));
        shape.push(usize::try_from(d).unwrap_or(usize::MAX));
        pos += 8;
    }
    let bytes = shape
        .iter()
        .try_fold(elem.bytes(), |n, d| n.checked_mul(*d))
        .filter(|n| *n <= data.len() - pos);
    let Some(bytes) = bytes else {
        let dims: String = shape.iter().map(|d| format!("[{d}]")).collect();
        return truncated(
            &format!("the elements of a {dims}{elem} array"),
            start..data.len(),
        );
    };
    fn elements<T: LittleEndian>(data: &[u8], shape: Vec<usize>) -> Result<Array, Option<usize>> {
        let size = std::mem::size_of::<T>();
        let v = data
            .chunks_exact(size)
            .enumerate()
            .map(|(i, c)| T::get(c).ok_or(Some(i * size)))
            .collect::<Result<Vec<T>, _>>()?;
        ArcArray::from_shape_vec(IxDyn(&shape), v)
            .map(T::wrap_array)
            .map_err(|_| None)
    }
    let body = &data[pos..pos + bytes];
    let array =
        urchin_prim::dispatch_prim!(elem, elements(body, shape)).or_else(|bad| match bad {
            Some(i) => fail(
                format!("byte {} is not a `bool` (0 or 1)", body[i]),
                pos + i..pos + i + 1,
            ),
            None => fail("the shape does not fit in memory", start..pos),
        })?;
    let value = if rank == 0 {
        Value::Scalar(array.get_flat(0))
    } else {
        Value::Array(array)
    };
    Ok((value, pos + bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use urchin_prim::Scalar;

    fn encode(v: &Value) -> Vec<u8> {
        let mut out = Vec::new();
        write_value(v, &mut out).unwrap_or_else(|e| panic!("{e}"));
        out
    }

    fn decode(data: &[u8]) -> Result<Value, ReadError> {
        let (v, end) = read_value(data, 0)?;
        assert_eq!(end, data.len());
        Ok(v)
    }

    #[test]
    fn the_layout_of_the_format() {
        assert_eq!(
            encode(&Value::Scalar(Scalar::I32(-2))),
            b"b\x02\x00 i32\xfe\xff\xff\xff"
        );
        let a = Array::from_scalars(
            PrimType::Bool,
            vec![2, 1],
            &[Scalar::Bool(true), Scalar::Bool(false)],
        );
        assert_eq!(
            encode(&Value::Array(a)),
            b"b\x02\x02bool\x02\0\0\0\0\0\0\0\x01\0\0\0\0\0\0\0\x01\x00"
        );
        let e = Array::from_scalars(PrimType::F64, vec![0, 3], &[]);
        assert_eq!(
            encode(&Value::Array(e)),
            b"b\x02\x02 f64\0\0\0\0\0\0\0\0\x03\0\0\0\0\0\0\0"
        );
    }

    #[test]
    fn values_read_back() {
        let a = Array::from_scalars(
            PrimType::U16,
            vec![2, 2],
            &[
                Scalar::U16(1),
                Scalar::U16(65535),
                Scalar::U16(3),
                Scalar::U16(4),
            ],
        );
        let back = decode(&encode(&Value::Array(a.clone())));
        assert_eq!(back.ok().and_then(|v| v.array().cloned()), Some(a));
        let s = decode(&encode(&Value::Scalar(Scalar::F32(1.5))));
        assert_eq!(s.ok().and_then(|v| v.scalar()), Some(Scalar::F32(1.5)));
    }

    #[test]
    fn malformed_data_is_an_error() {
        let msg = |data: &[u8]| decode(data).err().map(|e| e.message).unwrap_or_default();
        assert!(msg(b"b\x02\x00 i3").contains("its header"));
        assert!(msg(b"b\x01\x00 i32\0\0\0\0").contains("version 1"));
        assert!(msg(b"b\x02\x00 i31\0\0\0\0").contains("` i31` is not an element type"));
        assert!(msg(b"b\x02\x01 i32\x02\0\0\0").contains("a dimension"));
        assert!(msg(b"b\x02\x01 i32\x02\0\0\0\0\0\0\0\x01\0\0\0").contains("[2]i32"));
        assert!(msg(b"b\x02\x00bool\x07").contains("byte 7"));
        // A shape whose size overflows is reported, not allocated.
        let huge = b"b\x02\x02 i64\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff";
        assert!(msg(huge).contains("ends early"));
        let err = decode(b"b\x02\x00 i31\0\0\0\0").err();
        assert_eq!(err.map(|e| e.at), Some(3..7));
    }

    #[test]
    fn rep_cannot_be_written() {
        let rep = Value::Rep(std::rc::Rc::new(Value::Scalar(Scalar::I32(1))));
        assert!(write_value(&rep, &mut Vec::new()).is_err());
    }
}
