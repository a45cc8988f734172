//! Run-time values: what entry points take and return, what the REPL
//! binds, and what the fast evaluator computes with (the reference
//! semantics converts them to and from its own term values).
//!
//! Arrays are `ndarray` arrays of one primitive type behind a reference
//! count (`ArcArray`): cloning a value is cheap, and writing to an array that
//! is not shared happens in place (copy-on-write), which is what makes
//! `a with [i] = v` O(1) in a loop. Tuples do not exist at this level (the
//! core IR flattens them), so an array of tuples is several arrays.

use ndarray::{ArcArray, IxDyn};
use std::any::Any;
use std::cell::RefCell;
use std::fmt;
use std::rc::Rc;
use std::sync::{Arc, OnceLock};
use urchin_prim::{Native, PrimType, Scalar};

pub type Shape = Vec<usize>;

/// A dense array of one primitive type.
#[derive(Clone, PartialEq)]
pub enum Array {
    Bool(ArcArray<bool, IxDyn>),
    I8(ArcArray<i8, IxDyn>),
    I16(ArcArray<i16, IxDyn>),
    I32(ArcArray<i32, IxDyn>),
    I64(ArcArray<i64, IxDyn>),
    U8(ArcArray<u8, IxDyn>),
    U16(ArcArray<u16, IxDyn>),
    U32(ArcArray<u32, IxDyn>),
    U64(ArcArray<u64, IxDyn>),
    F16(ArcArray<half::f16, IxDyn>),
    F32(ArcArray<f32, IxDyn>),
    F64(ArcArray<f64, IxDyn>),
}

/// Applies `$body` with `$a` bound to the `ArcArray` inside any variant.
#[macro_export]
macro_rules! with_array {
    ($v:expr, $a:ident => $body:expr) => {
        match $v {
            $crate::value::Array::Bool($a) => $body,
            $crate::value::Array::I8($a) => $body,
            $crate::value::Array::I16($a) => $body,
            $crate::value::Array::I32($a) => $body,
            $crate::value::Array::I64($a) => $body,
            $crate::value::Array::U8($a) => $body,
            $crate::value::Array::U16($a) => $body,
            $crate::value::Array::U32($a) => $body,
            $crate::value::Array::U64($a) => $body,
            $crate::value::Array::F16($a) => $body,
            $crate::value::Array::F32($a) => $body,
            $crate::value::Array::F64($a) => $body,
        }
    };
}

/// Conversion between a native element type and its `Array` variant.
pub trait Element: Native + Default + Send + Sync {
    fn wrap_array(a: ArcArray<Self, IxDyn>) -> Array;
    fn unwrap_array(a: &Array) -> Option<&ArcArray<Self, IxDyn>>;
    fn unwrap_array_mut(a: &mut Array) -> Option<&mut ArcArray<Self, IxDyn>>;
}

macro_rules! element {
    ($t:ty, $var:ident) => {
        impl Element for $t {
            fn wrap_array(a: ArcArray<Self, IxDyn>) -> Array {
                Array::$var(a)
            }
            fn unwrap_array(a: &Array) -> Option<&ArcArray<Self, IxDyn>> {
                match a {
                    Array::$var(x) => Some(x),
                    _ => None,
                }
            }
            fn unwrap_array_mut(a: &mut Array) -> Option<&mut ArcArray<Self, IxDyn>> {
                match a {
                    Array::$var(x) => Some(x),
                    _ => None,
                }
            }
        }
    };
}

element!(bool, Bool);
element!(i8, I8);
element!(i16, I16);
element!(i32, I32);
element!(i64, I64);
element!(u8, U8);
element!(u16, U16);
element!(u32, U32);
element!(u64, U64);
element!(half::f16, F16);
element!(f32, F32);
element!(f64, F64);

impl Array {
    pub fn elem(&self) -> PrimType {
        match self {
            Array::Bool(_) => PrimType::Bool,
            Array::I8(_) => PrimType::I8,
            Array::I16(_) => PrimType::I16,
            Array::I32(_) => PrimType::I32,
            Array::I64(_) => PrimType::I64,
            Array::U8(_) => PrimType::U8,
            Array::U16(_) => PrimType::U16,
            Array::U32(_) => PrimType::U32,
            Array::U64(_) => PrimType::U64,
            Array::F16(_) => PrimType::F16,
            Array::F32(_) => PrimType::F32,
            Array::F64(_) => PrimType::F64,
        }
    }

    pub fn shape(&self) -> &[usize] {
        with_array!(self, a => a.shape())
    }

    pub fn rank(&self) -> usize {
        self.shape().len()
    }

    /// Length of the outer dimension.
    pub fn len(&self) -> usize {
        self.shape().first().copied().unwrap_or(0)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Total number of elements.
    pub fn size(&self) -> usize {
        self.shape().iter().product()
    }

    /// Bytes of element data (for memory accounting).
    pub fn bytes(&self) -> usize {
        self.size() * self.elem().bytes()
    }

    /// An array of the given shape from elements in row-major order.
    /// `data.len()` must equal the product of `shape`, and every element
    /// must have type `elem`.
    pub fn from_scalars(elem: PrimType, shape: Shape, data: &[Scalar]) -> Array {
        fn build<T: Element>(shape: Shape, data: &[Scalar]) -> Array {
            let v: Vec<T> = data
                .iter()
                .map(|s| T::unwrap(*s).unwrap_or_default())
                .collect();
            T::wrap_array(
                ArcArray::from_shape_vec(IxDyn(&shape), v)
                    .expect("from_scalars: shape and data length agree"),
            )
        }
        urchin_prim::dispatch_prim!(elem, build(shape, data))
    }

    /// An array of the given shape filled with `x` (of type `elem`).
    pub fn filled(shape: Shape, x: Scalar) -> Array {
        fn build<T: Element>(shape: Shape, x: Scalar) -> Array {
            T::wrap_array(ArcArray::from_elem(
                IxDyn(&shape),
                T::unwrap(x).unwrap_or_default(),
            ))
        }
        urchin_prim::dispatch_prim!(x.ty(), build(shape, x))
    }

    /// Element `i` in row-major order.
    pub fn get_flat(&self, i: usize) -> Scalar {
        with_array!(self, a => {
            let shape = a.shape();
            let mut idx = vec![0usize; shape.len()];
            let mut rest = i;
            for d in (0..shape.len()).rev() {
                idx[d] = rest % shape[d].max(1);
                rest /= shape[d].max(1);
            }
            a[IxDyn(&idx)].wrap()
        })
    }

    /// All elements in row-major order.
    pub fn to_scalars(&self) -> Vec<Scalar> {
        with_array!(self, a => a.iter().map(|x| x.wrap()).collect())
    }
}

impl fmt::Debug for Array {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Array<{}>{:?}{:?}",
            self.elem(),
            self.shape(),
            self.to_scalars()
        )
    }
}

/// Shared, mutable storage behind an accumulator (reverse-mode AD): updates
/// write straight into the array; the type system ensures nobody reads it
/// meanwhile.
pub type AccCell = Rc<RefCell<Array>>;

#[derive(Clone)]
pub enum Value {
    Scalar(Scalar),
    Array(Array),
    /// `rep v`: `v` at every index of an outer dimension of no fixed length.
    Rep(Rc<Value>),
    Acc(AccCell),
    /// An array in a device's memory (see [`DeviceArray`]).
    Device(DeviceArray),
}

/// An array that offload produced in a device's own memory. The host
/// copies it only when it reads it (printing it, or a statement the
/// evaluator runs), like JAX's device arrays: a result passed from one
/// device computation to the next never crosses the bus, and a benchmark
/// that drops its results copies none. The copy is made once and kept.
#[derive(Clone)]
pub struct DeviceArray {
    elem: PrimType,
    shape: Shape,
    data: Arc<dyn DeviceData>,
    host: Arc<OnceLock<Array>>,
}

/// The device side of a [`DeviceArray`] (the OpenCL crate's buffer).
pub trait DeviceData: Send + Sync {
    /// Copies the array, of `like`'s type and shape, to the host.
    fn fetch(&self, like: Array) -> Result<Array, String>;
    /// For the device that made it to find its own buffer.
    fn as_any(&self) -> &dyn Any;
}

impl DeviceArray {
    pub fn new(elem: PrimType, shape: Shape, data: Arc<dyn DeviceData>) -> DeviceArray {
        DeviceArray {
            elem,
            shape,
            data,
            host: Arc::default(),
        }
    }

    pub fn elem(&self) -> PrimType {
        self.elem
    }

    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    pub fn bytes(&self) -> usize {
        self.shape.iter().product::<usize>() * self.elem.bytes()
    }

    pub fn data(&self) -> &dyn DeviceData {
        &*self.data
    }

    /// Whether the host has its copy already.
    pub fn fetched(&self) -> bool {
        self.host.get().is_some()
    }

    /// The host's copy, made on the first call.
    pub fn to_host(&self) -> Result<Array, String> {
        if let Some(a) = self.host.get() {
            return Ok(a.clone());
        }
        let like = Array::filled(self.shape.clone(), Scalar::zero(self.elem));
        let a = self.data.fetch(like)?;
        Ok(self.host.get_or_init(|| a).clone())
    }
}

impl Value {
    /// The value with its device arrays copied to the host (a no-op for
    /// every other value).
    pub fn on_host(self) -> Result<Value, String> {
        match self {
            Value::Device(d) => d.to_host().map(Value::Array),
            v => Ok(v),
        }
    }

    /// The same value bit for bit (NaN is NaN; `-0.0` is not `0.0`), of
    /// the same type; accumulators by identity.
    pub fn same(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Scalar(x), Value::Scalar(y)) => x.same(*y) && x.ty() == y.ty(),
            (Value::Array(x), Value::Array(y)) => {
                x.elem() == y.elem()
                    && x.shape() == y.shape()
                    && (x.to_scalars().iter())
                        .zip(y.to_scalars())
                        .all(|(p, q)| p.same(q))
            }
            (Value::Rep(x), Value::Rep(y)) => x.same(y),
            (Value::Acc(x), Value::Acc(y)) => Rc::ptr_eq(x, y),
            (Value::Device(d), v) | (v, Value::Device(d)) => {
                d.to_host().is_ok_and(|a| Value::Array(a).same(v))
            }
            _ => false,
        }
    }

    pub fn scalar(&self) -> Option<Scalar> {
        match self {
            Value::Scalar(s) => Some(*s),
            _ => None,
        }
    }

    pub fn array(&self) -> Option<&Array> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The shape of an array, on the host or on a device.
    pub fn array_shape(&self) -> Option<&[usize]> {
        match self {
            Value::Array(a) => Some(a.shape()),
            Value::Device(d) => Some(d.shape()),
            _ => None,
        }
    }

    /// Bytes of array data held (a scalar or rep counts as its element).
    pub fn bytes(&self) -> usize {
        match self {
            Value::Scalar(s) => s.ty().bytes(),
            Value::Array(a) => a.bytes(),
            Value::Rep(v) => v.bytes(),
            Value::Acc(a) => a.borrow().bytes(),
            Value::Device(d) => d.bytes(),
        }
    }
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Scalar(s) => write!(f, "{s}"),
            Value::Array(a) => write!(f, "{a:?}"),
            Value::Rep(v) => write!(f, "rep({v:?})"),
            Value::Acc(a) => write!(f, "acc({:?})", a.borrow()),
            Value::Device(d) => write!(f, "device({}{:?})", d.elem, d.shape),
        }
    }
}

impl From<Scalar> for Value {
    fn from(s: Scalar) -> Value {
        Value::Scalar(s)
    }
}

impl From<Array> for Value {
    fn from(a: Array) -> Value {
        Value::Array(a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_scalars_round_trips() {
        let data = [
            Scalar::I32(1),
            Scalar::I32(2),
            Scalar::I32(3),
            Scalar::I32(4),
        ];
        let a = Array::from_scalars(PrimType::I32, vec![2, 2], &data);
        assert_eq!(a.shape(), &[2, 2]);
        assert_eq!(a.get_flat(3), Scalar::I32(4));
        assert_eq!(a.to_scalars(), data.to_vec());
    }
}
