//! Range checks of numeric literals.
//!
//! A literal's type is known only once inference has unified and defaulted
//! it, so [`Infer`](super::infer::Infer) records each numeric literal
//! ([`NumLiteral`]) and the checker tests it against its final type
//! ([`range_error`]). Like Futhark, a literal that does not fit is a type
//! error rather than a silently wrapped value. A `-` written directly before
//! a literal counts as its sign, so that `-128i8` is the least `i8`; an
//! unsuffixed negative literal does not fit an unsigned type (`-4 : u8`),
//! and an unsuffixed float literal must be finite in its type (`9.7e42` is
//! no `f32`), as in Futhark.

use super::ty::Type;
use urchin_base::diag::Diagnostic;
use urchin_base::source::Span;
use urchin_prim::PrimType;

/// A numeric literal as written, with its (not yet final) type.
#[derive(Clone, Debug)]
pub struct NumLiteral {
    pub magnitude: Magnitude,
    /// Whether a `-` is written directly before it.
    pub negative: bool,
    /// Whether it has a type suffix (`1u8`): negating one wraps.
    pub suffixed: bool,
    pub span: Span,
    pub ty: Type,
}

#[derive(Clone, Copy, Debug)]
pub enum Magnitude {
    Int(u128),
    Float(f64),
}

/// The least and greatest values of integer type `p` (`None` for a type
/// that is not an integer).
fn range(p: PrimType) -> Option<(i128, i128)> {
    let bits = 8 * p.bytes() as u32;
    match p {
        _ if !p.is_int() => None,
        _ if p.is_signed() => Some((-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)),
        _ => Some((0, (1i128 << bits) - 1)),
    }
}

/// Whether the integer literal fits `p`. Negating a suffixed unsigned
/// literal wraps (as `-1u8` is `255u8` in Futhark), so only its magnitude
/// must fit.
fn fits(value: u128, negative: bool, suffixed: bool, p: PrimType) -> bool {
    let Some((lo, hi)) = range(p) else {
        return true;
    };
    if negative && p.is_signed() {
        value <= lo.unsigned_abs()
    } else if negative && !suffixed {
        value == 0
    } else {
        value <= hi as u128
    }
}

/// The greatest finite value of float type `p`.
fn float_max(p: PrimType) -> Option<f64> {
    match p {
        PrimType::F16 => Some(f64::from(urchin_prim::f16::MAX)),
        PrimType::F32 => Some(f64::from(f32::MAX)),
        _ => None,
    }
}

/// The error for a literal that does not fit type `p`, if it does not.
pub fn range_error(lit: &NumLiteral, p: PrimType) -> Option<Diagnostic> {
    let (value, negative, span) = match lit.magnitude {
        Magnitude::Int(v) => (v, lit.negative, lit.span),
        Magnitude::Float(v) => {
            let max = float_max(p).filter(|_| !lit.suffixed)?;
            if v.abs() <= max {
                return None;
            }
            return Some(
                Diagnostic::ty(
                    format!("the literal {v:e} does not fit in {p}: it is out of bounds (its greatest value is {max:e})"),
                    lit.span,
                )
                .with_label(format!("this literal has type {p}"))
                .with_help("use `f64`, or a value in range"),
            );
        }
    };
    if fits(value, negative, lit.suffixed, p) {
        return None;
    }
    let (lo, hi) = range(p)?;
    let sign = if negative { "-" } else { "" };
    // Wider types of the same signedness first, then the 64-bit ones; a
    // negative value needs a signed type.
    let wider = [
        PrimType::I16,
        PrimType::U16,
        PrimType::I32,
        PrimType::U32,
        PrimType::I64,
        PrimType::U64,
    ]
    .into_iter()
    .filter(|w| w.is_signed() == p.is_signed())
    .chain([PrimType::I64, PrimType::U64])
    .find(|&w| (w.is_signed() || !negative) && fits(value, negative, lit.suffixed, w));
    let help = match wider {
        Some(w) => format!(
            "use a wider type such as {w}: write `{sign}{value}{w}`, or give the value that type with an annotation"
        ),
        None => "no integer type holds this value: use a floating-point literal instead".into(),
    };
    Some(
        Diagnostic::ty(
            format!(
                "the literal {sign}{value} does not fit in {p}: it is out of bounds ({lo} to {hi})"
            ),
            span,
        )
        .with_label(format!("this literal has type {p}"))
        .with_help(help),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_of_each_integer_type_fit() {
        for p in PrimType::ALL.into_iter().filter(|p| p.is_int()) {
            let (lo, hi) = range(p).unwrap();
            assert!(fits(hi as u128, false, false, p), "{p} max");
            assert!(!fits(hi as u128 + 1, false, false, p), "{p} max + 1");
            if p.is_signed() {
                assert!(fits(lo.unsigned_abs(), true, false, p), "{p} min");
                assert!(!fits(lo.unsigned_abs() + 1, true, false, p), "{p} min - 1");
            }
        }
    }

    #[test]
    fn negated_unsigned_literals_wrap_like_futhark() {
        assert!(fits(1, true, true, PrimType::U8));
        assert!(!fits(256, true, true, PrimType::U8));
        // Unless the type is only inferred: `-4 : u8` is out of bounds.
        assert!(!fits(4, true, false, PrimType::U8));
    }

    fn int(value: u128, negative: bool) -> NumLiteral {
        NumLiteral {
            magnitude: Magnitude::Int(value),
            negative,
            suffixed: false,
            span: Span::default(),
            ty: Type::prim(PrimType::I32),
        }
    }

    #[test]
    fn float_literals_must_be_finite_in_their_type() {
        let mut lit = int(0, false);
        lit.magnitude = Magnitude::Float(9.7e42);
        let e = range_error(&lit, PrimType::F32).unwrap();
        assert!(e.message.contains("out of bounds"), "{}", e.message);
        assert!(range_error(&lit, PrimType::F64).is_none());
        lit.suffixed = true;
        assert!(range_error(&lit, PrimType::F32).is_none());
    }

    #[test]
    fn the_error_names_the_range_and_a_wider_type() {
        let e = range_error(&int(300, false), PrimType::U8).unwrap();
        assert_eq!(
            e.message,
            "the literal 300 does not fit in u8: it is out of bounds (0 to 255)"
        );
        assert!(format!("{e:?}").contains("u16"));
        let e = range_error(&int(129, true), PrimType::I8).unwrap();
        assert_eq!(
            e.message,
            "the literal -129 does not fit in i8: it is out of bounds (-128 to 127)"
        );
        let e = range_error(&int(10_000_000_000, false), PrimType::I32).unwrap();
        assert!(format!("{e:?}").contains("10000000000i64"));
        assert!(range_error(&int(128, true), PrimType::I8).is_none());
        assert!(range_error(&int(1, false), PrimType::Bool).is_none());
    }
}
