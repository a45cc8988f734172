//! The element-level semantics of every operation, per Rust type: the
//! [`Native`] trait and its implementations for the integer, float and
//! bool types, which the scalar operations of this crate and the bulk
//! evaluator's element-wise loops share.

use crate::{BinOp, PrimError, PrimType, Scalar, UnOp, f16, special};

/// The element-level semantics of every operation, per Rust type. Both the
/// scalar path ([`binop`], [`unop`]) and the bulk evaluator (element-wise over
/// whole arrays) call these, so the two agree by construction.
pub trait Native: Copy + PartialOrd + 'static {
    const TY: PrimType;
    fn wrap(self) -> Scalar;
    fn unwrap(s: Scalar) -> Option<Self>;
    /// The value inside a scalar of this type, in place.
    fn unwrap_ref(s: &Scalar) -> Option<&Self>;
    fn add(self, o: Self) -> Self;
    fn sub(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
    fn div(self, o: Self) -> Result<Self, PrimError>;
    fn modulo(self, o: Self) -> Result<Self, PrimError>;
    fn quot(self, o: Self) -> Result<Self, PrimError>;
    fn rem(self, o: Self) -> Result<Self, PrimError>;
    /// `self ** o`; a negative integer exponent is an error.
    fn pow(self, o: Self) -> Result<Self, PrimError>;
    fn min(self, o: Self) -> Self;
    fn max(self, o: Self) -> Self;
    fn neg(self) -> Self;
    fn abs(self) -> Self;
    fn sgn(self) -> Self;
    fn eq(self, o: Self) -> bool {
        self == o
    }
    fn lt(self, o: Self) -> bool {
        self < o
    }
    fn le(self, o: Self) -> bool {
        self <= o
    }
    /// Bitwise and logical operations (`None` for floats).
    fn bits(op: BinOp, a: Self, b: Self) -> Option<Self>;
    fn not(self) -> Option<Self>;
    /// Float-only unary operations (`None` for integers and bool).
    fn float_op(op: UnOp, a: Self) -> Option<Self> {
        Self::float_fn(op).map(|f| f(a))
    }
    /// The function of a float-only unary operation, chosen once for a
    /// loop over many elements: matching the operation per element cost
    /// the MLP's `tanh` layer as much as `tanh` itself.
    fn float_fn(_op: UnOp) -> Option<fn(Self) -> Self> {
        None
    }
    /// Float-only binary operations (`atan2`, `hypot`, ...).
    fn float_bin(_op: BinOp, _a: Self, _b: Self) -> Option<Self> {
        None
    }
    /// The unary operations whose result has another type
    /// ([`UnOp::changes_type`]); `None` where the type has none.
    fn other_unop(_op: UnOp, _a: Self) -> Option<Scalar> {
        None
    }
    /// Only a float can be NaN or infinite.
    fn is_nan(self) -> bool {
        false
    }
    fn is_inf(self) -> bool {
        false
    }
    fn to_f64(self) -> f64;
    fn to_i64(self) -> i64;
    fn to_u64(self) -> u64;
    fn from_f64(x: f64) -> Self;
    fn from_i64(x: i64) -> Self;
    fn from_u64(x: u64) -> Self;
}

/// The conversions through Rust's `as`, alike for every native type
/// (wrapping between integers, as Futhark's; from floats to integers
/// `native_convert` goes through `float_to_int_bits` instead).
macro_rules! native_casts {
    ($t:ty) => {
        fn to_f64(self) -> f64 {
            self as f64
        }
        fn to_i64(self) -> i64 {
            self as i64
        }
        fn to_u64(self) -> u64 {
            self as u64
        }
        fn from_f64(x: f64) -> Self {
            x as $t
        }
        fn from_i64(x: i64) -> Self {
            x as $t
        }
        fn from_u64(x: u64) -> Self {
            x as $t
        }
    };
}

/// The members of [`Native`] that tie a type to its [`Scalar`] variant.
macro_rules! scalar_variant {
    ($var:ident) => {
        const TY: PrimType = PrimType::$var;
        fn wrap(self) -> Scalar {
            Scalar::$var(self)
        }
        fn unwrap(s: Scalar) -> Option<Self> {
            match s {
                Scalar::$var(x) => Some(x),
                _ => None,
            }
        }
        fn unwrap_ref(s: &Scalar) -> Option<&Self> {
            match s {
                Scalar::$var(x) => Some(x),
                _ => None,
            }
        }
    };
}

macro_rules! int_native {
    ($t:ty, $var:ident, $signed:expr) => {
        impl Native for $t {
            scalar_variant!($var);
            #[inline]
            fn add(self, o: Self) -> Self {
                self.wrapping_add(o)
            }
            #[inline]
            fn sub(self, o: Self) -> Self {
                self.wrapping_sub(o)
            }
            #[inline]
            fn mul(self, o: Self) -> Self {
                self.wrapping_mul(o)
            }
            fn div(self, o: Self) -> Result<Self, PrimError> {
                if o == 0 {
                    return Err(PrimError::DivisionByZero);
                }
                let q = self.wrapping_div(o);
                // Round towards negative infinity: adjust when the signs
                // differ and the division was inexact.
                if $signed && (self.wrapping_rem(o) != 0) && ((self < (0 as $t)) != (o < (0 as $t)))
                {
                    Ok(q.wrapping_sub(1))
                } else {
                    Ok(q)
                }
            }
            fn modulo(self, o: Self) -> Result<Self, PrimError> {
                if o == 0 {
                    return Err(PrimError::DivisionByZero);
                }
                let r = self.wrapping_rem(o);
                if $signed && r != 0 && ((r < (0 as $t)) != (o < (0 as $t))) {
                    Ok(r.wrapping_add(o))
                } else {
                    Ok(r)
                }
            }
            fn quot(self, o: Self) -> Result<Self, PrimError> {
                if o == 0 {
                    Err(PrimError::DivisionByZero)
                } else {
                    Ok(self.wrapping_div(o))
                }
            }
            fn rem(self, o: Self) -> Result<Self, PrimError> {
                if o == 0 {
                    Err(PrimError::DivisionByZero)
                } else {
                    Ok(self.wrapping_rem(o))
                }
            }
            fn pow(self, o: Self) -> Result<Self, PrimError> {
                // Exponentiation by squaring with wrapping. A negative
                // exponent has no integer result: Futhark's safety checks
                // reject it.
                if o < (0 as $t) {
                    return Err(PrimError::NegativeExponent);
                }
                let mut base = self;
                let mut e = o;
                let mut acc: $t = 1;
                while e > (0 as $t) {
                    if e & (1 as $t) == (1 as $t) {
                        acc = acc.wrapping_mul(base);
                    }
                    base = base.wrapping_mul(base);
                    e >>= 1;
                }
                Ok(acc)
            }
            #[inline]
            fn min(self, o: Self) -> Self {
                Ord::min(self, o)
            }
            #[inline]
            fn max(self, o: Self) -> Self {
                Ord::max(self, o)
            }
            #[inline]
            fn neg(self) -> Self {
                (0 as $t).wrapping_sub(self)
            }
            #[inline]
            fn abs(self) -> Self {
                if self < (0 as $t) { self.neg() } else { self }
            }
            #[inline]
            fn sgn(self) -> Self {
                if self > (0 as $t) {
                    1
                } else if self == (0 as $t) {
                    0
                } else {
                    (0 as $t).wrapping_sub(1)
                }
            }
            fn bits(op: BinOp, a: Self, b: Self) -> Option<Self> {
                let width = <$t>::BITS;
                Some(match op {
                    BinOp::BitAnd => a & b,
                    BinOp::BitOr => a | b,
                    BinOp::BitXor => a ^ b,
                    BinOp::Shl => a.wrapping_shl((b as u64 % width as u64) as u32),
                    BinOp::Shr => a.wrapping_shr((b as u64 % width as u64) as u32),
                    BinOp::UShr => {
                        let s = (b as u64 % width as u64) as u32;
                        ((a as u64 & (u64::MAX >> (64 - width))) >> s) as $t
                    }
                    // The double-width product fits in 128 bits.
                    BinOp::MulHi if $signed => ((a as i128 * b as i128) >> width) as $t,
                    BinOp::MulHi => ((a as u128 * b as u128) >> width) as $t,
                    _ => return None,
                })
            }
            fn not(self) -> Option<Self> {
                Some(!self)
            }
            fn other_unop(op: UnOp, a: Self) -> Option<Scalar> {
                Some(match op {
                    UnOp::Popc => Scalar::I32(a.count_ones() as i32),
                    UnOp::Clz => Scalar::I32(a.leading_zeros() as i32),
                    UnOp::Ctz => Scalar::I32(a.trailing_zeros() as i32),
                    UnOp::FromBits => match Self::TY {
                        PrimType::U16 => Scalar::F16(f16::from_bits(a as u16)),
                        PrimType::U32 => Scalar::F32(f32::from_bits(a as u32)),
                        PrimType::U64 => Scalar::F64(f64::from_bits(a as u64)),
                        _ => return None,
                    },
                    _ => return None,
                })
            }
            native_casts!($t);
        }
    };
}

int_native!(i8, I8, true);
int_native!(i16, I16, true);
int_native!(i32, I32, true);
int_native!(i64, I64, true);
int_native!(u8, U8, false);
int_native!(u16, U16, false);
int_native!(u32, U32, false);
int_native!(u64, U64, false);

macro_rules! float_native {
    ($t:ty, $var:ident) => {
        impl Native for $t {
            scalar_variant!($var);
            #[inline]
            fn add(self, o: Self) -> Self {
                self + o
            }
            #[inline]
            fn sub(self, o: Self) -> Self {
                self - o
            }
            #[inline]
            fn mul(self, o: Self) -> Self {
                self * o
            }
            fn div(self, o: Self) -> Result<Self, PrimError> {
                Ok(self / o)
            }
            fn modulo(self, o: Self) -> Result<Self, PrimError> {
                Ok(self % o)
            }
            fn quot(self, o: Self) -> Result<Self, PrimError> {
                Ok((self / o).trunc())
            }
            fn rem(self, o: Self) -> Result<Self, PrimError> {
                Ok(self % o)
            }
            fn pow(self, o: Self) -> Result<Self, PrimError> {
                Ok(self.powf(o))
            }
            #[inline]
            fn min(self, o: Self) -> Self {
                <$t>::min(self, o)
            }
            #[inline]
            fn max(self, o: Self) -> Self {
                <$t>::max(self, o)
            }
            #[inline]
            fn neg(self) -> Self {
                -self
            }
            #[inline]
            fn abs(self) -> Self {
                <$t>::abs(self)
            }
            #[inline]
            fn sgn(self) -> Self {
                if self.is_nan() || self == 0.0 {
                    self
                } else {
                    self.signum()
                }
            }
            fn bits(_op: BinOp, _a: Self, _b: Self) -> Option<Self> {
                None
            }
            fn not(self) -> Option<Self> {
                None
            }
            fn float_fn(op: UnOp) -> Option<fn(Self) -> Self> {
                Some(match op {
                    UnOp::Sqrt => |a: $t| a.sqrt(),
                    UnOp::Exp => |a: $t| a.exp(),
                    UnOp::Log => |a: $t| a.ln(),
                    UnOp::Log2 => |a: $t| a.log2(),
                    UnOp::Log10 => |a: $t| a.log10(),
                    UnOp::Sin => |a: $t| a.sin(),
                    UnOp::Cos => |a: $t| a.cos(),
                    UnOp::Tan => |a: $t| a.tan(),
                    UnOp::Asin => |a: $t| a.asin(),
                    UnOp::Acos => |a: $t| a.acos(),
                    UnOp::Atan => |a: $t| a.atan(),
                    UnOp::Sinh => |a: $t| a.sinh(),
                    UnOp::Cosh => |a: $t| a.cosh(),
                    UnOp::Tanh => |a: $t| a.tanh(),
                    UnOp::Floor => |a: $t| a.floor(),
                    UnOp::Ceil => |a: $t| a.ceil(),
                    UnOp::Round => |a: $t| a.round_ties_even(),
                    UnOp::Trunc => |a: $t| a.trunc(),
                    UnOp::Cbrt => |a: $t| a.cbrt(),
                    UnOp::Log1p => |a: $t| a.ln_1p(),
                    UnOp::Asinh => |a: $t| a.asinh(),
                    UnOp::Acosh => |a: $t| a.acosh(),
                    UnOp::Atanh => |a: $t| a.atanh(),
                    UnOp::Gamma => |a: $t| special::gamma(a as f64) as $t,
                    UnOp::Lgamma => |a: $t| special::lgamma(a as f64) as $t,
                    UnOp::Erf => |a: $t| special::erf(a as f64) as $t,
                    UnOp::Erfc => |a: $t| special::erfc(a as f64) as $t,
                    UnOp::SinPi => |a: $t| special::sinpi(a as f64) as $t,
                    UnOp::CosPi => |a: $t| special::cospi(a as f64) as $t,
                    UnOp::TanPi => |a: $t| special::tanpi(a as f64) as $t,
                    UnOp::Digamma => |a: $t| special::digamma(a as f64) as $t,
                    UnOp::Trigamma => |a: $t| special::trigamma(a as f64) as $t,
                    _ => return None,
                })
            }
            fn float_bin(op: BinOp, a: Self, b: Self) -> Option<Self> {
                Some(match op {
                    BinOp::Atan2 => a.atan2(b),
                    BinOp::Hypot => a.hypot(b),
                    BinOp::CopySign => a.copysign(b),
                    BinOp::NextAfter => special::next_after(a, b),
                    _ => return None,
                })
            }
            fn other_unop(op: UnOp, a: Self) -> Option<Scalar> {
                match op {
                    UnOp::ToBits => Some(Scalar::from_u128(
                        PrimType::from_name(&format!("u{}", 8 * std::mem::size_of::<$t>()))?,
                        a.to_bits() as u128,
                    )),
                    _ => None,
                }
            }
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
            fn is_inf(self) -> bool {
                <$t>::is_infinite(self)
            }
            native_casts!($t);
        }
    };
}

float_native!(f32, F32);
float_native!(f64, F64);

/// `f16` computes in `f32` and rounds the result to `f16` once. For `+`,
/// `-`, `*`, `/` and `sqrt` that is the correctly rounded `f16` result
/// (`f32` has more than twice `f16`'s precision plus two bits); the other
/// functions are as accurate as their `f32` versions, rounded.
impl Native for f16 {
    scalar_variant!(F16);
    #[inline]
    fn add(self, o: Self) -> Self {
        f16::from_f32(self.to_f32() + o.to_f32())
    }
    #[inline]
    fn sub(self, o: Self) -> Self {
        f16::from_f32(self.to_f32() - o.to_f32())
    }
    #[inline]
    fn mul(self, o: Self) -> Self {
        f16::from_f32(self.to_f32() * o.to_f32())
    }
    fn div(self, o: Self) -> Result<Self, PrimError> {
        self.to_f32().div(o.to_f32()).map(f16::from_f32)
    }
    fn modulo(self, o: Self) -> Result<Self, PrimError> {
        self.to_f32().modulo(o.to_f32()).map(f16::from_f32)
    }
    fn quot(self, o: Self) -> Result<Self, PrimError> {
        self.to_f32().quot(o.to_f32()).map(f16::from_f32)
    }
    fn rem(self, o: Self) -> Result<Self, PrimError> {
        self.to_f32().rem(o.to_f32()).map(f16::from_f32)
    }
    fn pow(self, o: Self) -> Result<Self, PrimError> {
        Ok(f16::from_f32(self.to_f32().powf(o.to_f32())))
    }
    #[inline]
    fn min(self, o: Self) -> Self {
        f16::from_f32(self.to_f32().min(o.to_f32()))
    }
    #[inline]
    fn max(self, o: Self) -> Self {
        f16::from_f32(self.to_f32().max(o.to_f32()))
    }
    #[inline]
    fn neg(self) -> Self {
        -self
    }
    #[inline]
    fn abs(self) -> Self {
        f16::from_bits(self.to_bits() & 0x7fff)
    }
    #[inline]
    fn sgn(self) -> Self {
        f16::from_f32(self.to_f32().sgn())
    }
    fn bits(_op: BinOp, _a: Self, _b: Self) -> Option<Self> {
        None
    }
    fn not(self) -> Option<Self> {
        None
    }
    fn float_op(op: UnOp, a: Self) -> Option<Self> {
        f32::float_op(op, a.to_f32()).map(f16::from_f32)
    }
    fn float_bin(op: BinOp, a: Self, b: Self) -> Option<Self> {
        match op {
            // Steps in f16's own spacing, not f32's.
            BinOp::NextAfter => Some(special::next_after(a, b)),
            BinOp::CopySign => Some(f16::from_bits(
                (a.to_bits() & 0x7fff) | (b.to_bits() & 0x8000),
            )),
            _ => f32::float_bin(op, a.to_f32(), b.to_f32()).map(f16::from_f32),
        }
    }
    fn other_unop(op: UnOp, a: Self) -> Option<Scalar> {
        match op {
            UnOp::ToBits => Some(Scalar::U16(a.to_bits())),
            _ => None,
        }
    }
    fn is_nan(self) -> bool {
        f16::is_nan(self)
    }
    fn is_inf(self) -> bool {
        f16::is_infinite(self)
    }
    fn to_f64(self) -> f64 {
        f16::to_f64(self)
    }
    fn to_i64(self) -> i64 {
        f16::to_f64(self) as i64
    }
    fn to_u64(self) -> u64 {
        f16::to_f64(self) as u64
    }
    fn from_f64(x: f64) -> Self {
        f16::from_f64(x)
    }
    fn from_i64(x: i64) -> Self {
        f16::from_f64(x as f64)
    }
    fn from_u64(x: u64) -> Self {
        f16::from_f64(x as f64)
    }
}

impl Native for bool {
    scalar_variant!(Bool);
    // Arithmetic on bool is rejected by the type checker; these are total
    // only so that `bool` fits the trait.
    #[inline]
    fn add(self, o: Self) -> Self {
        self ^ o
    }
    #[inline]
    fn sub(self, o: Self) -> Self {
        self ^ o
    }
    #[inline]
    fn mul(self, o: Self) -> Self {
        self & o
    }
    fn div(self, _o: Self) -> Result<Self, PrimError> {
        Err(PrimError::TypeMismatch)
    }
    fn modulo(self, _o: Self) -> Result<Self, PrimError> {
        Err(PrimError::TypeMismatch)
    }
    fn quot(self, _o: Self) -> Result<Self, PrimError> {
        Err(PrimError::TypeMismatch)
    }
    fn rem(self, _o: Self) -> Result<Self, PrimError> {
        Err(PrimError::TypeMismatch)
    }
    fn pow(self, _o: Self) -> Result<Self, PrimError> {
        Ok(self)
    }
    #[inline]
    fn min(self, o: Self) -> Self {
        self & o
    }
    #[inline]
    fn max(self, o: Self) -> Self {
        self | o
    }
    #[inline]
    fn neg(self) -> Self {
        self
    }
    #[inline]
    fn abs(self) -> Self {
        self
    }
    #[inline]
    fn sgn(self) -> Self {
        self
    }
    fn bits(op: BinOp, a: Self, b: Self) -> Option<Self> {
        Some(match op {
            BinOp::LogAnd | BinOp::BitAnd => a & b,
            BinOp::LogOr | BinOp::BitOr => a | b,
            BinOp::BitXor => a ^ b,
            _ => return None,
        })
    }
    fn not(self) -> Option<Self> {
        Some(!self)
    }
    fn to_f64(self) -> f64 {
        self as u8 as f64
    }
    fn to_i64(self) -> i64 {
        self as i64
    }
    fn to_u64(self) -> u64 {
        self as u64
    }
    fn from_f64(x: f64) -> Self {
        x != 0.0
    }
    fn from_i64(x: i64) -> Self {
        x != 0
    }
    fn from_u64(x: u64) -> Self {
        x != 0
    }
}

/// The result of a binary operation on two native values: comparisons yield
/// `bool`, everything else the operand type.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BinResult<T> {
    Same(T),
    Bool(bool),
}

/// Element-level binary operation, generic over the operand type.
#[inline]
pub fn native_binop<T: Native>(op: BinOp, a: T, b: T) -> Result<BinResult<T>, PrimError> {
    use BinResult::*;
    Ok(match op {
        BinOp::Add => Same(a.add(b)),
        BinOp::Sub => Same(a.sub(b)),
        BinOp::Mul => Same(a.mul(b)),
        BinOp::Div => Same(a.div(b)?),
        BinOp::Mod => Same(a.modulo(b)?),
        BinOp::Quot => Same(a.quot(b)?),
        BinOp::Rem => Same(a.rem(b)?),
        BinOp::Pow => Same(a.pow(b)?),
        BinOp::Min => Same(Native::min(a, b)),
        BinOp::Max => Same(Native::max(a, b)),
        BinOp::Eq => Bool(a.eq(b)),
        BinOp::Neq => Bool(!a.eq(b)),
        BinOp::Lt => Bool(a.lt(b)),
        BinOp::Le => Bool(a.le(b)),
        BinOp::Gt => Bool(b.lt(a)),
        BinOp::Ge => Bool(b.le(a)),
        BinOp::Atan2 | BinOp::Hypot | BinOp::NextAfter | BinOp::CopySign => {
            Same(T::float_bin(op, a, b).ok_or(PrimError::TypeMismatch)?)
        }
        BinOp::MulHi
        | BinOp::LogAnd
        | BinOp::LogOr
        | BinOp::BitAnd
        | BinOp::BitOr
        | BinOp::BitXor
        | BinOp::Shl
        | BinOp::Shr
        | BinOp::UShr => Same(T::bits(op, a, b).ok_or(PrimError::TypeMismatch)?),
    })
}

/// Element-level unary operation; `IsNan`/`IsInf` yield bool.
#[inline]
pub fn native_unop<T: Native>(op: UnOp, a: T) -> Result<BinResult<T>, PrimError> {
    use BinResult::*;
    Ok(match op {
        UnOp::Neg => Same(a.neg()),
        UnOp::Not => Same(a.not().ok_or(PrimError::TypeMismatch)?),
        UnOp::Abs => Same(a.abs()),
        UnOp::Sgn => Same(a.sgn()),
        UnOp::IsNan => Bool(a.is_nan()),
        UnOp::IsInf => Bool(a.is_inf()),
        _ => Same(T::float_op(op, a).ok_or(PrimError::TypeMismatch)?),
    })
}

/// Futhark's conversion of a float to an integer, as the bits of a 64-bit
/// integer that the caller truncates to its width: towards zero, then
/// modulo 2^64 (so modulo 2^k for any narrower width), as Futhark's
/// interpreter computes it; NaN and ±∞ give 0 (`i32.f64 f64.inf` is 0,
/// not 2147483647). `gpu::codegen` writes the same in OpenCL C.
pub fn float_to_int_bits(x: f64) -> u64 {
    // From 2^127 on, every float is a multiple of 2^64.
    const TOO_BIG: f64 = 1.7014118346046923e38;
    if !x.is_finite() || x.abs() >= TOO_BIG {
        return 0;
    }
    (x.trunc() as i128) as u64
}

/// Element-level conversion between native types.
#[inline]
pub fn native_convert<A: Native, B: Native>(a: A) -> B {
    if A::TY.is_float() && B::TY.is_int() {
        B::from_u64(float_to_int_bits(a.to_f64()))
    } else if A::TY.is_float() {
        B::from_f64(a.to_f64())
    } else if A::TY.is_signed() && B::TY.is_int() && !B::TY.is_signed() {
        // Futhark's unsigned modules zero-extend a signed source
        // (`u16.i8 (-128)` is 128): its bits, read as unsigned.
        let bits = 8 * A::TY.bytes() as u32;
        B::from_u64(a.to_i64() as u64 & (u64::MAX >> (64 - bits)))
    } else if A::TY.is_signed() {
        B::from_i64(a.to_i64())
    } else {
        B::from_u64(a.to_u64())
    }
}
