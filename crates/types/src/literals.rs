//! Range checks of integer literals.
//!
//! A literal's type is known only once inference has unified and defaulted
//! it, so [`Infer`](super::infer::Infer) records each integer literal
//! ([`IntLiteral`]) and the checker tests it against its final type
//! ([`range_error`]). Like Futhark, a literal that does not fit is a type
//! error rather than a silently wrapped value. A `-` written directly before
//! a literal counts as its sign, so that `-128i8` is the least `i8`.

use super::ty::Type;
use urchin_base::diag::Diagnostic;
use urchin_base::source::Span;
use urchin_prim::PrimType;

/// An integer literal as written, with its (not yet final) type.
#[derive(Clone, Debug)]
pub struct IntLiteral {
    /// The magnitude.
    pub value: u128,
    /// Whether a `-` is written directly before it.
    pub negative: bool,
    pub span: Span,
    pub ty: Type,
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

/// Whether the literal fits `p`. Negating an unsigned literal wraps (as
/// `-1u8` is `255u8` in Futhark), so only its magnitude must fit.
fn fits(value: u128, negative: bool, p: PrimType) -> bool {
    let Some((lo, hi)) = range(p) else {
        return true;
    };
    if negative && p.is_signed() {
        value <= lo.unsigned_abs()
    } else {
        value <= hi as u128
    }
}

/// The error for a literal that does not fit integer type `p`, if it does
/// not.
pub fn range_error(value: u128, negative: bool, p: PrimType, span: Span) -> Option<Diagnostic> {
    if fits(value, negative, p) {
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
    .find(|&w| (w.is_signed() || !negative) && fits(value, negative, w));
    let help = match wider {
        Some(w) => format!(
            "use a wider type such as {w}: write `{sign}{value}{w}`, or give the value that type with an annotation"
        ),
        None => "no integer type holds this value: use a floating-point literal instead".into(),
    };
    Some(
        Diagnostic::ty(
            format!("the literal {sign}{value} does not fit in {p} ({lo} to {hi})"),
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
            assert!(fits(hi as u128, false, p), "{p} max");
            assert!(!fits(hi as u128 + 1, false, p), "{p} max + 1");
            if p.is_signed() {
                assert!(fits(lo.unsigned_abs(), true, p), "{p} min");
                assert!(!fits(lo.unsigned_abs() + 1, true, p), "{p} min - 1");
            }
        }
    }

    #[test]
    fn negated_unsigned_literals_wrap_like_futhark() {
        assert!(fits(1, true, PrimType::U8));
        assert!(!fits(256, true, PrimType::U8));
    }

    #[test]
    fn the_error_names_the_range_and_a_wider_type() {
        let span = Span::default();
        let e = range_error(300, false, PrimType::U8, span).unwrap();
        assert_eq!(e.message, "the literal 300 does not fit in u8 (0 to 255)");
        assert!(format!("{e:?}").contains("u16"));
        let e = range_error(129, true, PrimType::I8, span).unwrap();
        assert_eq!(
            e.message,
            "the literal -129 does not fit in i8 (-128 to 127)"
        );
        let e = range_error(10_000_000_000, false, PrimType::I32, span).unwrap();
        assert!(format!("{e:?}").contains("10000000000i64"));
        assert!(range_error(128, true, PrimType::I8, span).is_none());
        assert!(range_error(1, false, PrimType::Bool, span).is_none());
    }
}
