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

pub mod special;

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

    pub const NUMERIC: [PrimType; 11] = [
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

    /// Whether the operator is written infix in source and core IR.
    pub fn is_infix(self) -> bool {
        !matches!(
            self,
            BinOp::Min
                | BinOp::Max
                | BinOp::Atan2
                | BinOp::Hypot
                | BinOp::NextAfter
                | BinOp::CopySign
                | BinOp::MulHi
        )
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
    fn float_op(op: UnOp, a: Self) -> Option<Self>;
    /// Float-only binary operations (`atan2`, `hypot`, ...).
    fn float_bin(op: BinOp, a: Self, b: Self) -> Option<Self>;
    /// The unary operations whose result has another type
    /// ([`UnOp::changes_type`]); `None` where the type has none.
    fn other_unop(_op: UnOp, _a: Self) -> Option<Scalar> {
        None
    }
    fn is_nan(self) -> bool;
    fn is_inf(self) -> bool;
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

macro_rules! int_native {
    ($t:ty, $var:ident, $signed:expr) => {
        impl Native for $t {
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
            fn add(self, o: Self) -> Self {
                self.wrapping_add(o)
            }
            fn sub(self, o: Self) -> Self {
                self.wrapping_sub(o)
            }
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
            fn min(self, o: Self) -> Self {
                Ord::min(self, o)
            }
            fn max(self, o: Self) -> Self {
                Ord::max(self, o)
            }
            fn neg(self) -> Self {
                (0 as $t).wrapping_sub(self)
            }
            fn abs(self) -> Self {
                if self < (0 as $t) { self.neg() } else { self }
            }
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
            fn float_op(_op: UnOp, _a: Self) -> Option<Self> {
                None
            }
            fn float_bin(_op: BinOp, _a: Self, _b: Self) -> Option<Self> {
                None
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
            fn is_nan(self) -> bool {
                false
            }
            fn is_inf(self) -> bool {
                false
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
            fn add(self, o: Self) -> Self {
                self + o
            }
            fn sub(self, o: Self) -> Self {
                self - o
            }
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
            fn min(self, o: Self) -> Self {
                <$t>::min(self, o)
            }
            fn max(self, o: Self) -> Self {
                <$t>::max(self, o)
            }
            fn neg(self) -> Self {
                -self
            }
            fn abs(self) -> Self {
                <$t>::abs(self)
            }
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
            fn float_op(op: UnOp, a: Self) -> Option<Self> {
                Some(match op {
                    UnOp::Sqrt => a.sqrt(),
                    UnOp::Exp => a.exp(),
                    UnOp::Log => a.ln(),
                    UnOp::Log2 => a.log2(),
                    UnOp::Log10 => a.log10(),
                    UnOp::Sin => a.sin(),
                    UnOp::Cos => a.cos(),
                    UnOp::Tan => a.tan(),
                    UnOp::Asin => a.asin(),
                    UnOp::Acos => a.acos(),
                    UnOp::Atan => a.atan(),
                    UnOp::Sinh => a.sinh(),
                    UnOp::Cosh => a.cosh(),
                    UnOp::Tanh => a.tanh(),
                    UnOp::Floor => a.floor(),
                    UnOp::Ceil => a.ceil(),
                    UnOp::Round => a.round_ties_even(),
                    UnOp::Trunc => a.trunc(),
                    UnOp::Cbrt => a.cbrt(),
                    UnOp::Log1p => a.ln_1p(),
                    UnOp::Asinh => a.asinh(),
                    UnOp::Acosh => a.acosh(),
                    UnOp::Atanh => a.atanh(),
                    UnOp::Gamma => special::gamma(a as f64) as $t,
                    UnOp::Lgamma => special::lgamma(a as f64) as $t,
                    UnOp::Erf => special::erf(a as f64) as $t,
                    UnOp::Erfc => special::erfc(a as f64) as $t,
                    UnOp::SinPi => special::sinpi(a as f64) as $t,
                    UnOp::CosPi => special::cospi(a as f64) as $t,
                    UnOp::TanPi => special::tanpi(a as f64) as $t,
                    UnOp::Digamma => special::digamma(a as f64) as $t,
                    UnOp::Trigamma => special::trigamma(a as f64) as $t,
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
    const TY: PrimType = PrimType::F16;
    fn wrap(self) -> Scalar {
        Scalar::F16(self)
    }
    fn unwrap(s: Scalar) -> Option<Self> {
        match s {
            Scalar::F16(x) => Some(x),
            _ => None,
        }
    }
    fn unwrap_ref(s: &Scalar) -> Option<&Self> {
        match s {
            Scalar::F16(x) => Some(x),
            _ => None,
        }
    }
    fn add(self, o: Self) -> Self {
        f16::from_f32(self.to_f32() + o.to_f32())
    }
    fn sub(self, o: Self) -> Self {
        f16::from_f32(self.to_f32() - o.to_f32())
    }
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
    fn min(self, o: Self) -> Self {
        f16::from_f32(self.to_f32().min(o.to_f32()))
    }
    fn max(self, o: Self) -> Self {
        f16::from_f32(self.to_f32().max(o.to_f32()))
    }
    fn neg(self) -> Self {
        -self
    }
    fn abs(self) -> Self {
        f16::from_bits(self.to_bits() & 0x7fff)
    }
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
    const TY: PrimType = PrimType::Bool;
    fn wrap(self) -> Scalar {
        Scalar::Bool(self)
    }
    fn unwrap(s: Scalar) -> Option<Self> {
        match s {
            Scalar::Bool(b) => Some(b),
            _ => None,
        }
    }
    fn unwrap_ref(s: &Scalar) -> Option<&Self> {
        match s {
            Scalar::Bool(b) => Some(b),
            _ => None,
        }
    }
    // Arithmetic on bool is rejected by the type checker; these are total
    // only so that `bool` fits the trait.
    fn add(self, o: Self) -> Self {
        self ^ o
    }
    fn sub(self, o: Self) -> Self {
        self ^ o
    }
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
    fn min(self, o: Self) -> Self {
        self & o
    }
    fn max(self, o: Self) -> Self {
        self | o
    }
    fn neg(self) -> Self {
        self
    }
    fn abs(self) -> Self {
        self
    }
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
    fn float_op(_op: UnOp, _a: Self) -> Option<Self> {
        None
    }
    fn float_bin(_op: BinOp, _a: Self, _b: Self) -> Option<Self> {
        None
    }
    fn is_nan(self) -> bool {
        false
    }
    fn is_inf(self) -> bool {
        false
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
