//! Primitive types, scalar values and the semantics of every scalar
//! operation.
//!
//! This is the one place that says what `a / b` means for an `i8`, how a
//! float is rounded, or when division fails. The constant folder, the fast
//! evaluator (scalar and bulk paths) and the small-step reference all call
//! these functions, so they cannot disagree.
//!
//! Integer arithmetic wraps. Integer `/` and `%` round towards negative
//! infinity, `//` and `%%` truncate (Futhark's semantics); integer division
//! by zero is an error. Floats follow IEEE 754.

pub use half::f16;
use std::fmt;

mod native;
pub mod special;

pub use native::{BinResult, Native, float_to_int_bits, native_binop, native_convert, native_unop};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PrimType {
    Bool,
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    F16,
    F32,
    F64,
}

impl PrimType {
    pub const ALL: [PrimType; 12] = [
        PrimType::Bool,
        PrimType::I8,
        PrimType::I16,
        PrimType::I32,
        PrimType::I64,
        PrimType::U8,
        PrimType::U16,
        PrimType::U32,
        PrimType::U64,
        PrimType::F16,
        PrimType::F32,
        PrimType::F64,
    ];

    /// Every type but `bool`, which comes first in [`PrimType::ALL`].
    pub const NUMERIC: [PrimType; 11] = {
        let mut ts = [PrimType::I8; 11];
        let mut i = 0;
        while i < ts.len() {
            ts[i] = PrimType::ALL[i + 1];
            i += 1;
        }
        ts
    };

    pub fn name(self) -> &'static str {
        match self {
            PrimType::Bool => "bool",
            PrimType::I8 => "i8",
            PrimType::I16 => "i16",
            PrimType::I32 => "i32",
            PrimType::I64 => "i64",
            PrimType::U8 => "u8",
            PrimType::U16 => "u16",
            PrimType::U32 => "u32",
            PrimType::U64 => "u64",
            PrimType::F16 => "f16",
            PrimType::F32 => "f32",
            PrimType::F64 => "f64",
        }
    }

    pub fn from_name(s: &str) -> Option<PrimType> {
        PrimType::ALL.into_iter().find(|t| t.name() == s)
    }

    pub fn is_int(self) -> bool {
        !matches!(
            self,
            PrimType::Bool | PrimType::F16 | PrimType::F32 | PrimType::F64
        )
    }

    pub fn is_signed(self) -> bool {
        matches!(
            self,
            PrimType::I8 | PrimType::I16 | PrimType::I32 | PrimType::I64
        )
    }

    pub fn is_float(self) -> bool {
        matches!(self, PrimType::F16 | PrimType::F32 | PrimType::F64)
    }

    pub fn is_numeric(self) -> bool {
        self != PrimType::Bool
    }

    /// Size of one element in bytes (for memory accounting).
    pub fn bytes(self) -> usize {
        match self {
            PrimType::Bool | PrimType::I8 | PrimType::U8 => 1,
            PrimType::I16 | PrimType::U16 | PrimType::F16 => 2,
            PrimType::I32 | PrimType::U32 | PrimType::F32 => 4,
            PrimType::I64 | PrimType::U64 | PrimType::F64 => 8,
        }
    }
}

impl fmt::Display for PrimType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A value of a primitive type.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    Bool(bool),
    I8(i8),
    I16(i16),
    I32(i32),
    I64(i64),
    U8(u8),
    U16(u16),
    U32(u32),
    U64(u64),
    F16(f16),
    F32(f32),
    F64(f64),
}

/// Applies `$body` with `$x` bound to the payload of any numeric or bool
/// variant of `$v`; the payload's Rust type differs per arm.
#[macro_export]
macro_rules! with_scalar {
    ($v:expr, $x:ident => $body:expr) => {
        match $v {
            $crate::Scalar::Bool($x) => $body,
            $crate::Scalar::I8($x) => $body,
            $crate::Scalar::I16($x) => $body,
            $crate::Scalar::I32($x) => $body,
            $crate::Scalar::I64($x) => $body,
            $crate::Scalar::U8($x) => $body,
            $crate::Scalar::U16($x) => $body,
            $crate::Scalar::U32($x) => $body,
            $crate::Scalar::U64($x) => $body,
            $crate::Scalar::F16($x) => $body,
            $crate::Scalar::F32($x) => $body,
            $crate::Scalar::F64($x) => $body,
        }
    };
}

impl Scalar {
    pub fn ty(self) -> PrimType {
        match self {
            Scalar::Bool(_) => PrimType::Bool,
            Scalar::I8(_) => PrimType::I8,
            Scalar::I16(_) => PrimType::I16,
            Scalar::I32(_) => PrimType::I32,
            Scalar::I64(_) => PrimType::I64,
            Scalar::U8(_) => PrimType::U8,
            Scalar::U16(_) => PrimType::U16,
            Scalar::U32(_) => PrimType::U32,
            Scalar::U64(_) => PrimType::U64,
            Scalar::F16(_) => PrimType::F16,
            Scalar::F32(_) => PrimType::F32,
            Scalar::F64(_) => PrimType::F64,
        }
    }

    /// The zero of a type (`false` for bool).
    pub fn zero(t: PrimType) -> Scalar {
        Scalar::from_i64(t, 0)
    }

    pub fn one(t: PrimType) -> Scalar {
        Scalar::from_i64(t, 1)
    }

    /// Conversion from an integer, wrapping as Futhark's `t.i64` does.
    pub fn from_i64(t: PrimType, v: i64) -> Scalar {
        convert(Scalar::I64(v), t)
    }

    pub fn from_f64(t: PrimType, v: f64) -> Scalar {
        convert(Scalar::F64(v), t)
    }

    /// From an unsigned literal value that may not fit in an i64.
    pub fn from_u128(t: PrimType, v: u128) -> Scalar {
        match t {
            PrimType::F16 => Scalar::F16(f16::from_f64(v as f64)),
            PrimType::F32 => Scalar::F32(v as f32),
            PrimType::F64 => Scalar::F64(v as f64),
            PrimType::Bool => Scalar::Bool(v != 0),
            _ => convert(Scalar::U64(v as u64), t),
        }
    }

    pub fn as_f64(self) -> f64 {
        match convert(self, PrimType::F64) {
            Scalar::F64(x) => x,
            _ => unreachable!("convert to f64 yields f64"),
        }
    }

    pub fn as_i64(self) -> i64 {
        match convert(self, PrimType::I64) {
            Scalar::I64(x) => x,
            _ => unreachable!("convert to i64 yields i64"),
        }
    }

    /// The value without a type suffix (`10` for `10i64`), as Futhark
    /// prints values in error messages.
    pub fn plain(self) -> String {
        if self.ty().is_float() {
            format_float(self.as_f64(), self.ty())
        } else {
            with_scalar!(self, x => x.to_string())
        }
    }

    pub fn as_bool(self) -> bool {
        match self {
            Scalar::Bool(b) => b,
            other => other.as_i64() != 0,
        }
    }

    /// Bitwise equality: unlike `==`, NaN equals NaN. Used when comparing
    /// results in tests and when deduplicating constants.
    pub fn same(self, other: Scalar) -> bool {
        match (self, other) {
            (Scalar::F16(a), Scalar::F16(b)) => {
                a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
            }
            (Scalar::F32(a), Scalar::F32(b)) => {
                a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
            }
            (Scalar::F64(a), Scalar::F64(b)) => {
                a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
            }
            (a, b) => a == b,
        }
    }
}

/// Formats a float so that it reads back as a float of the same value:
/// always with a `.` or exponent, and Futhark's names for non-finite values.
pub fn format_float(x: f64, ty: PrimType) -> String {
    let t = ty.name();
    if x.is_nan() {
        return format!("{t}.nan");
    }
    if x.is_infinite() {
        return if x > 0.0 {
            format!("{t}.inf")
        } else {
            format!("-{t}.inf")
        };
    }
    let s = match ty {
        PrimType::F16 => shortest_f16(x),
        PrimType::F32 => format!("{:?}", x as f32),
        _ => format!("{x:?}"),
    };
    if s.contains(['.', 'e', 'E']) {
        s
    } else {
        format!("{s}.0")
    }
}

/// The shortest decimal that reads back as the `f16` nearest to `x`
/// (Rust prints the shortest form of `f32` and `f64` only).
fn shortest_f16(x: f64) -> String {
    let h = f16::from_f64(x);
    (0..8)
        .map(|p| format!("{x:.p$e}").parse::<f64>().unwrap_or(x))
        .find(|y| f16::from_f64(*y) == h)
        .map_or_else(|| format!("{x:?}"), |y| format!("{y:?}"))
}

impl fmt::Display for Scalar {
    /// Futhark's value syntax with an explicit type suffix, except for the
    /// default types `i32` and `f64` and for `bool`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Scalar::Bool(b) => write!(f, "{b}"),
            Scalar::I32(x) => write!(f, "{x}"),
            Scalar::F64(x) => f.write_str(&format_float(x, PrimType::F64)),
            Scalar::F32(x) => suffixed_float(f, x as f64, PrimType::F32),
            Scalar::F16(x) => suffixed_float(f, x.to_f64(), PrimType::F16),
            other => with_scalar!(other, x => write!(f, "{}{}", x, other.ty().name())),
        }
    }
}

/// A float of a non-default type: with its suffix when finite (the names
/// of non-finite values carry the type already).
fn suffixed_float(f: &mut fmt::Formatter<'_>, x: f64, t: PrimType) -> fmt::Result {
    let s = format_float(x, t);
    if x.is_finite() {
        write!(f, "{s}{t}")
    } else {
        f.write_str(&s)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrimError {
    DivisionByZero,
    /// An integer raised to a negative power.
    NegativeExponent,
    /// Operand types do not fit the operation; the type checker rules this
    /// out, so it indicates a bug in a transformation.
    TypeMismatch,
}

impl fmt::Display for PrimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PrimError::DivisionByZero => write!(f, "division by zero"),
            PrimError::NegativeExponent => write!(f, "negative exponent"),
            PrimError::TypeMismatch => write!(
                f,
                "internal error: operand types do not match the operation"
            ),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    /// `/`: floor division on integers.
    Div,
    /// `%`: floor modulus on integers (sign of the divisor).
    Mod,
    /// `//`: truncating division.
    Quot,
    /// `%%`: truncating remainder.
    Rem,
    Pow,
    Min,
    Max,
    Eq,
    Neq,
    Lt,
    Le,
    Gt,
    Ge,
    LogAnd,
    LogOr,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    /// `>>`: arithmetic shift for signed types.
    Shr,
    /// `>>>`: logical shift.
    UShr,
    Atan2,
    Hypot,
    /// The next float after `x` in the direction of `y`.
    NextAfter,
    /// `|x|` with the sign of `y`.
    CopySign,
    /// The upper half of the double-width product (integers).
    MulHi,
}

impl BinOp {
    /// Every operation, for tables that must cover them all.
    pub const ALL: [BinOp; 29] = [
        BinOp::Add,
        BinOp::Sub,
        BinOp::Mul,
        BinOp::Div,
        BinOp::Mod,
        BinOp::Quot,
        BinOp::Rem,
        BinOp::Pow,
        BinOp::Min,
        BinOp::Max,
        BinOp::Eq,
        BinOp::Neq,
        BinOp::Lt,
        BinOp::Le,
        BinOp::Gt,
        BinOp::Ge,
        BinOp::LogAnd,
        BinOp::LogOr,
        BinOp::BitAnd,
        BinOp::BitOr,
        BinOp::BitXor,
        BinOp::Shl,
        BinOp::Shr,
        BinOp::UShr,
        BinOp::Atan2,
        BinOp::Hypot,
        BinOp::NextAfter,
        BinOp::CopySign,
        BinOp::MulHi,
    ];

    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinOp::Eq | BinOp::Neq | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
        )
    }

    /// Infix spelling, or the function name for those without one.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Mod => "%",
            BinOp::Quot => "//",
            BinOp::Rem => "%%",
            BinOp::Pow => "**",
            BinOp::Min => "min",
            BinOp::Max => "max",
            BinOp::Eq => "==",
            BinOp::Neq => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::LogAnd => "&&",
            BinOp::LogOr => "||",
            BinOp::BitAnd => "&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::UShr => ">>>",
            BinOp::Atan2 => "atan2",
            BinOp::Hypot => "hypot",
            BinOp::NextAfter => "nextafter",
            BinOp::CopySign => "copysign",
            BinOp::MulHi => "mul_hi",
        }
    }

    /// Whether the operator is written infix in source and core IR: its
    /// spelling is a symbol, not a function's name.
    pub fn is_infix(self) -> bool {
        !self.symbol().starts_with(|c: char| c.is_ascii_alphabetic())
    }

    /// Operations defined only on floats.
    pub fn float_only(self) -> bool {
        matches!(
            self,
            BinOp::Atan2 | BinOp::Hypot | BinOp::NextAfter | BinOp::CopySign
        )
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum UnOp {
    Neg,
    /// Logical not on bool, bitwise complement on integers.
    Not,
    Abs,
    Sgn,
    Sqrt,
    Exp,
    Log,
    Log2,
    Log10,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Tanh,
    Floor,
    Ceil,
    Round,
    Trunc,
    IsNan,
    IsInf,
    Cbrt,
    Log1p,
    Asinh,
    Acosh,
    Atanh,
    Gamma,
    Lgamma,
    Erf,
    Erfc,
    /// `sin(πx)`, exact at integers and half-integers (as `cospi`).
    SinPi,
    CosPi,
    TanPi,
    /// The derivatives of `lgamma`: ψ and ψ′ (used by AD, not in the
    /// prelude, as in Futhark).
    Digamma,
    Trigamma,
    /// Population count, leading and trailing zeros of an integer: `i32`.
    Popc,
    Clz,
    Ctz,
    /// A float's bits as the unsigned integer of its width, and back.
    ToBits,
    FromBits,
}

impl UnOp {
    /// Every operation, for tables that must cover them all.
    pub const ALL: [UnOp; 43] = [
        UnOp::Neg,
        UnOp::Not,
        UnOp::Abs,
        UnOp::Sgn,
        UnOp::Sqrt,
        UnOp::Exp,
        UnOp::Log,
        UnOp::Log2,
        UnOp::Log10,
        UnOp::Sin,
        UnOp::Cos,
        UnOp::Tan,
        UnOp::Asin,
        UnOp::Acos,
        UnOp::Atan,
        UnOp::Sinh,
        UnOp::Cosh,
        UnOp::Tanh,
        UnOp::Floor,
        UnOp::Ceil,
        UnOp::Round,
        UnOp::Trunc,
        UnOp::IsNan,
        UnOp::IsInf,
        UnOp::Cbrt,
        UnOp::Log1p,
        UnOp::Asinh,
        UnOp::Acosh,
        UnOp::Atanh,
        UnOp::Gamma,
        UnOp::Lgamma,
        UnOp::Erf,
        UnOp::Erfc,
        UnOp::SinPi,
        UnOp::CosPi,
        UnOp::TanPi,
        UnOp::Digamma,
        UnOp::Trigamma,
        UnOp::Popc,
        UnOp::Clz,
        UnOp::Ctz,
        UnOp::ToBits,
        UnOp::FromBits,
    ];

    pub fn name(self) -> &'static str {
        match self {
            UnOp::Neg => "neg",
            UnOp::Not => "not",
            UnOp::Abs => "abs",
            UnOp::Sgn => "sgn",
            UnOp::Sqrt => "sqrt",
            UnOp::Exp => "exp",
            UnOp::Log => "log",
            UnOp::Log2 => "log2",
            UnOp::Log10 => "log10",
            UnOp::Sin => "sin",
            UnOp::Cos => "cos",
            UnOp::Tan => "tan",
            UnOp::Asin => "asin",
            UnOp::Acos => "acos",
            UnOp::Atan => "atan",
            UnOp::Sinh => "sinh",
            UnOp::Cosh => "cosh",
            UnOp::Tanh => "tanh",
            UnOp::Floor => "floor",
            UnOp::Ceil => "ceil",
            UnOp::Round => "round",
            UnOp::Trunc => "trunc",
            UnOp::IsNan => "isnan",
            UnOp::IsInf => "isinf",
            UnOp::Cbrt => "cbrt",
            UnOp::Log1p => "log1p",
            UnOp::Asinh => "asinh",
            UnOp::Acosh => "acosh",
            UnOp::Atanh => "atanh",
            UnOp::Gamma => "gamma",
            UnOp::Lgamma => "lgamma",
            UnOp::Erf => "erf",
            UnOp::Erfc => "erfc",
            UnOp::SinPi => "sinpi",
            UnOp::CosPi => "cospi",
            UnOp::TanPi => "tanpi",
            UnOp::Digamma => "digamma",
            UnOp::Trigamma => "trigamma",
            UnOp::Popc => "popc",
            UnOp::Clz => "clz",
            UnOp::Ctz => "ctz",
            UnOp::ToBits => "to_bits",
            UnOp::FromBits => "from_bits",
        }
    }

    /// Operations defined only on floats.
    pub fn float_only(self) -> bool {
        !matches!(
            self,
            UnOp::Neg
                | UnOp::Not
                | UnOp::Abs
                | UnOp::Sgn
                | UnOp::Popc
                | UnOp::Clz
                | UnOp::Ctz
                | UnOp::FromBits
        )
    }

    /// The result type for an operand of type `t`.
    pub fn result_type(self, t: PrimType) -> PrimType {
        match (self, t) {
            (UnOp::IsNan | UnOp::IsInf, _) => PrimType::Bool,
            (UnOp::Popc | UnOp::Clz | UnOp::Ctz, _) => PrimType::I32,
            (UnOp::ToBits, PrimType::F16) => PrimType::U16,
            (UnOp::ToBits, PrimType::F32) => PrimType::U32,
            (UnOp::ToBits, PrimType::F64) => PrimType::U64,
            (UnOp::FromBits, PrimType::U16) => PrimType::F16,
            (UnOp::FromBits, PrimType::U32) => PrimType::F32,
            (UnOp::FromBits, PrimType::U64) => PrimType::F64,
            _ => t,
        }
    }

    /// Whether the result has another type than the operand and is not a
    /// `bool` (these go through [`Native::other_unop`]).
    pub fn changes_type(self) -> bool {
        matches!(
            self,
            UnOp::Popc | UnOp::Clz | UnOp::Ctz | UnOp::ToBits | UnOp::FromBits
        )
    }
}

fn lift<T: Native>(r: BinResult<T>) -> Scalar {
    match r {
        BinResult::Same(x) => x.wrap(),
        BinResult::Bool(b) => Scalar::Bool(b),
    }
}

/// Applies `$f::<T>` where `T` is the native type of `$t`.
#[macro_export]
macro_rules! dispatch_prim {
    ($t:expr, $f:ident ( $($arg:expr),* )) => {
        match $t {
            $crate::PrimType::Bool => $f::<bool>($($arg),*),
            $crate::PrimType::I8 => $f::<i8>($($arg),*),
            $crate::PrimType::I16 => $f::<i16>($($arg),*),
            $crate::PrimType::I32 => $f::<i32>($($arg),*),
            $crate::PrimType::I64 => $f::<i64>($($arg),*),
            $crate::PrimType::U8 => $f::<u8>($($arg),*),
            $crate::PrimType::U16 => $f::<u16>($($arg),*),
            $crate::PrimType::U32 => $f::<u32>($($arg),*),
            $crate::PrimType::U64 => $f::<u64>($($arg),*),
            $crate::PrimType::F16 => $f::<$crate::f16>($($arg),*),
            $crate::PrimType::F32 => $f::<f32>($($arg),*),
            $crate::PrimType::F64 => $f::<f64>($($arg),*),
        }
    };
}

fn scalar_binop<T: Native>(op: BinOp, a: Scalar, b: Scalar) -> Result<Scalar, PrimError> {
    let (Some(x), Some(y)) = (T::unwrap(a), T::unwrap(b)) else {
        return Err(PrimError::TypeMismatch);
    };
    native_binop(op, x, y).map(lift)
}

fn scalar_unop<T: Native>(op: UnOp, a: Scalar) -> Result<Scalar, PrimError> {
    let x = T::unwrap(a).ok_or(PrimError::TypeMismatch)?;
    if op.changes_type() {
        return T::other_unop(op, x).ok_or(PrimError::TypeMismatch);
    }
    native_unop(op, x).map(lift)
}

/// A binary operation on two scalars of the same type.
pub fn binop(op: BinOp, a: Scalar, b: Scalar) -> Result<Scalar, PrimError> {
    dispatch_prim!(a.ty(), scalar_binop(op, a, b))
}

pub fn unop(op: UnOp, a: Scalar) -> Result<Scalar, PrimError> {
    dispatch_prim!(a.ty(), scalar_unop(op, a))
}

fn convert_from<A: Native>(a: Scalar, to: PrimType) -> Scalar {
    let x = A::unwrap(a).expect("convert_from is dispatched on the scalar's own type");
    fn to_native<A: Native, B: Native>(x: A) -> Scalar {
        native_convert::<A, B>(x).wrap()
    }
    match to {
        PrimType::Bool => to_native::<A, bool>(x),
        PrimType::I8 => to_native::<A, i8>(x),
        PrimType::I16 => to_native::<A, i16>(x),
        PrimType::I32 => to_native::<A, i32>(x),
        PrimType::I64 => to_native::<A, i64>(x),
        PrimType::U8 => to_native::<A, u8>(x),
        PrimType::U16 => to_native::<A, u16>(x),
        PrimType::U32 => to_native::<A, u32>(x),
        PrimType::U64 => to_native::<A, u64>(x),
        PrimType::F16 => to_native::<A, f16>(x),
        PrimType::F32 => to_native::<A, f32>(x),
        PrimType::F64 => to_native::<A, f64>(x),
    }
}

/// Conversion as Futhark's `t.u8`, `t.f32`, ... functions: integers wrap (a
/// signed value becomes unsigned by zero extension, as in Futhark),
/// floats truncate towards zero and wrap (`float_to_int_bits`; NaN and
/// infinities are 0), bool is 0 or 1.
pub fn convert(a: Scalar, to: PrimType) -> Scalar {
    dispatch_prim!(a.ty(), convert_from(a, to))
}

/// Largest, smallest and other special constants of a type, by the name of
/// the numeric-module member (`f32.highest`, `i64.lowest`, `f64.pi`, ...).
pub fn constant(t: PrimType, name: &str) -> Option<Scalar> {
    let f = |x: f64| Some(Scalar::from_f64(t, x));
    match (name, t) {
        ("highest", PrimType::F32) => Some(Scalar::F32(f32::INFINITY)),
        ("lowest", PrimType::F32) => Some(Scalar::F32(f32::NEG_INFINITY)),
        ("highest", PrimType::F64) => Some(Scalar::F64(f64::INFINITY)),
        ("lowest", PrimType::F64) => Some(Scalar::F64(f64::NEG_INFINITY)),
        ("highest", PrimType::F16) => Some(Scalar::F16(f16::INFINITY)),
        ("lowest", PrimType::F16) => Some(Scalar::F16(f16::NEG_INFINITY)),
        ("inf", _) if t.is_float() => f(f64::INFINITY),
        ("nan", _) if t.is_float() => f(f64::NAN),
        ("pi", _) if t.is_float() => f(std::f64::consts::PI),
        ("e", _) if t.is_float() => f(std::f64::consts::E),
        ("epsilon", PrimType::F16) => Some(Scalar::F16(f16::EPSILON)),
        ("epsilon", PrimType::F32) => Some(Scalar::F32(f32::EPSILON)),
        ("epsilon", PrimType::F64) => Some(Scalar::F64(f64::EPSILON)),
        ("highest", _) => Some(match t {
            PrimType::I8 => Scalar::I8(i8::MAX),
            PrimType::I16 => Scalar::I16(i16::MAX),
            PrimType::I32 => Scalar::I32(i32::MAX),
            PrimType::I64 => Scalar::I64(i64::MAX),
            PrimType::U8 => Scalar::U8(u8::MAX),
            PrimType::U16 => Scalar::U16(u16::MAX),
            PrimType::U32 => Scalar::U32(u32::MAX),
            PrimType::U64 => Scalar::U64(u64::MAX),
            _ => Scalar::Bool(true),
        }),
        ("lowest", _) => Some(match t {
            PrimType::I8 => Scalar::I8(i8::MIN),
            PrimType::I16 => Scalar::I16(i16::MIN),
            PrimType::I32 => Scalar::I32(i32::MIN),
            PrimType::I64 => Scalar::I64(i64::MIN),
            PrimType::Bool => Scalar::Bool(false),
            _ => Scalar::zero(t),
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn i(x: i32) -> Scalar {
        Scalar::I32(x)
    }

    #[test]
    fn floats_convert_to_integers_as_futhark() {
        use PrimType::*;
        let c = |x: f64, t| convert(Scalar::F64(x), t);
        // NaN and infinities are 0 (they saturated), for every width.
        for t in [I8, I16, I32, I64, U8, U16, U32, U64] {
            for x in [f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 1e300] {
                assert_eq!(c(x, t), Scalar::zero(t), "{x} to {t}");
            }
        }
        // Towards zero, then modulo 2^k.
        assert_eq!(c(-2.7, I32), Scalar::I32(-2));
        assert_eq!(c(3e9, I32), Scalar::I32(-1294967296));
        assert_eq!(c(-1.0, U64), Scalar::U64(u64::MAX));
        assert_eq!(c(300.5, U8), Scalar::U8(44));
        assert_eq!(c(-129.9, I8), Scalar::I8(127));
        assert_eq!(c(2f64.powi(70) + 2f64.powi(63), I64), Scalar::I64(i64::MIN));
        assert_eq!(convert(Scalar::F32(f32::INFINITY), I32), Scalar::I32(0));
        assert_eq!(convert(Scalar::F16(f16::NEG_INFINITY), I16), Scalar::I16(0));
        assert_eq!(convert(Scalar::F32(-5.5), U16), Scalar::U16(65531));
        // To floats and bool, unchanged.
        assert_eq!(c(f64::INFINITY, F32), Scalar::F32(f32::INFINITY));
        assert_eq!(c(f64::NAN, Bool), Scalar::Bool(true));
    }

    #[test]
    fn integer_division_rounds_down() {
        assert_eq!(binop(BinOp::Div, i(7), i(2)), Ok(i(3)));
        assert_eq!(binop(BinOp::Div, i(-7), i(2)), Ok(i(-4)));
        assert_eq!(binop(BinOp::Mod, i(-7), i(2)), Ok(i(1)));
        assert_eq!(binop(BinOp::Quot, i(-7), i(2)), Ok(i(-3)));
        assert_eq!(binop(BinOp::Rem, i(-7), i(2)), Ok(i(-1)));
        assert_eq!(binop(BinOp::Mod, i(7), i(-2)), Ok(i(-1)));
        assert_eq!(
            binop(BinOp::Div, i(1), i(0)),
            Err(PrimError::DivisionByZero)
        );
    }

    #[test]
    fn arithmetic_wraps() {
        assert_eq!(
            binop(BinOp::Add, Scalar::I8(127), Scalar::I8(1)),
            Ok(Scalar::I8(-128))
        );
        assert_eq!(unop(UnOp::Neg, Scalar::U8(1)), Ok(Scalar::U8(255)));
        assert_eq!(binop(BinOp::Pow, i(3), i(4)), Ok(i(81)));
        assert_eq!(
            binop(BinOp::Div, Scalar::I32(i32::MIN), i(-1)),
            Ok(Scalar::I32(i32::MIN))
        );
    }

    #[test]
    fn conversions() {
        assert_eq!(convert(Scalar::F64(3.7), PrimType::I64), Scalar::I64(3));
        assert_eq!(convert(Scalar::F64(-3.7), PrimType::I32), i(-3));
        assert_eq!(convert(Scalar::I32(300), PrimType::U8), Scalar::U8(44));
        assert_eq!(convert(Scalar::Bool(true), PrimType::F32), Scalar::F32(1.0));
        assert_eq!(
            convert(Scalar::U64(u64::MAX), PrimType::F64),
            Scalar::F64(u64::MAX as f64)
        );
        // Signed to unsigned zero-extends, as Futhark's `u16.i8`; to a
        // signed type it sign-extends.
        assert_eq!(convert(Scalar::I8(-1), PrimType::U16), Scalar::U16(255));
        assert_eq!(convert(Scalar::I8(-128), PrimType::U64), Scalar::U64(128));
        assert_eq!(
            convert(Scalar::I32(-1), PrimType::U64),
            Scalar::U64(u32::MAX as u64)
        );
        assert_eq!(convert(Scalar::I64(-1), PrimType::U8), Scalar::U8(255));
        assert_eq!(convert(Scalar::I8(-1), PrimType::I64), Scalar::I64(-1));
        assert_eq!(convert(Scalar::U8(255), PrimType::I16), Scalar::I16(255));
    }

    #[test]
    fn float_specials() {
        assert_eq!(unop(UnOp::Sgn, Scalar::F64(0.0)), Ok(Scalar::F64(0.0)));
        assert_eq!(unop(UnOp::Round, Scalar::F64(2.5)), Ok(Scalar::F64(2.0)));
        assert_eq!(
            unop(UnOp::IsNan, Scalar::F32(f32::NAN)),
            Ok(Scalar::Bool(true))
        );
        assert_eq!(
            binop(BinOp::Lt, Scalar::F64(1.0), Scalar::F64(2.0)),
            Ok(Scalar::Bool(true))
        );
    }

    #[test]
    fn shifts() {
        assert_eq!(binop(BinOp::Shr, i(-8), i(1)), Ok(i(-4)));
        assert_eq!(binop(BinOp::UShr, i(-8), i(28)), Ok(i(15)));
        assert_eq!(
            binop(BinOp::Shl, Scalar::U8(1), Scalar::U8(7)),
            Ok(Scalar::U8(128))
        );
    }

    #[test]
    fn bit_operations_and_their_result_types() {
        assert_eq!(unop(UnOp::Popc, Scalar::U8(0xff)), Ok(Scalar::I32(8)));
        assert_eq!(unop(UnOp::Clz, Scalar::I64(1)), Ok(Scalar::I32(63)));
        assert_eq!(unop(UnOp::Ctz, Scalar::I16(0)), Ok(Scalar::I32(16)));
        assert_eq!(unop(UnOp::Popc, Scalar::I8(-1)), Ok(Scalar::I32(8)));
        assert_eq!(
            binop(BinOp::MulHi, Scalar::U64(u64::MAX), Scalar::U64(u64::MAX)),
            Ok(Scalar::U64(u64::MAX - 1))
        );
        assert_eq!(
            binop(BinOp::MulHi, Scalar::I32(-2), Scalar::I32(3)),
            Ok(Scalar::I32(-1))
        );
        assert_eq!(
            unop(UnOp::ToBits, Scalar::F32(1.0)),
            Ok(Scalar::U32(0x3f80_0000))
        );
        assert_eq!(
            unop(UnOp::FromBits, Scalar::U16(0x3c00)),
            Ok(Scalar::F16(f16::ONE))
        );
        assert_eq!(
            unop(UnOp::ToBits, Scalar::I32(1)),
            Err(PrimError::TypeMismatch)
        );
        assert_eq!(UnOp::ToBits.result_type(PrimType::F64), PrimType::U64);
        assert_eq!(UnOp::Clz.result_type(PrimType::U8), PrimType::I32);
    }

    #[test]
    fn special_functions() {
        let f = |op, x: f64| unop(op, Scalar::F64(x)).map(Scalar::as_f64);
        assert_eq!(f(UnOp::Gamma, 5.0), Ok(24.0));
        assert_eq!(f(UnOp::Cbrt, -27.0), Ok(-3.0));
        assert_eq!(f(UnOp::SinPi, 2.0), Ok(0.0));
        assert_eq!(f(UnOp::Erf, 0.0), Ok(0.0));
        assert!(
            f(UnOp::Lgamma, 0.5)
                .is_ok_and(|y| (y - std::f64::consts::PI.sqrt().ln()).abs() < 1e-15)
        );
        assert_eq!(
            binop(BinOp::Hypot, Scalar::F32(3.0), Scalar::F32(4.0)),
            Ok(Scalar::F32(5.0))
        );
        assert_eq!(
            binop(
                BinOp::CopySign,
                Scalar::F16(f16::ONE),
                Scalar::F16(f16::NEG_ONE)
            ),
            Ok(Scalar::F16(f16::NEG_ONE))
        );
        assert_eq!(
            binop(BinOp::Hypot, Scalar::I32(3), Scalar::I32(4)),
            Err(PrimError::TypeMismatch)
        );
    }

    #[test]
    fn f16_arithmetic_rounds_once() {
        let h = |x: f64| Scalar::F16(f16::from_f64(x));
        assert_eq!(binop(BinOp::Add, h(1.0), h(2.0)), Ok(h(3.0)));
        // 2049 is not an f16: 2048 + 1 rounds to even.
        assert_eq!(binop(BinOp::Add, h(2048.0), h(1.0)), Ok(h(2048.0)));
        assert_eq!(binop(BinOp::Mul, h(300.0), h(300.0)), Ok(h(f64::INFINITY)));
        assert_eq!(convert(h(2.5), PrimType::I32), Scalar::I32(2));
        assert_eq!(convert(Scalar::I32(70000), PrimType::F16), h(f64::INFINITY));
        assert_eq!(Scalar::F16(f16::from_f64(0.1)).to_string(), "0.1f16");
        assert_eq!(
            constant(PrimType::F16, "epsilon"),
            Some(Scalar::F16(f16::EPSILON))
        );
    }

    #[test]
    fn display_reads_back() {
        assert_eq!(Scalar::I32(5).to_string(), "5");
        assert_eq!(Scalar::I64(5).to_string(), "5i64");
        assert_eq!(Scalar::F64(2.0).to_string(), "2.0");
        assert_eq!(Scalar::F32(1.5).to_string(), "1.5f32");
        assert_eq!(Scalar::F64(f64::NEG_INFINITY).to_string(), "-f64.inf");
        assert_eq!(Scalar::F32(f32::NAN).to_string(), "f32.nan");
        assert_eq!(Scalar::U8(255).to_string(), "255u8");
    }
}
