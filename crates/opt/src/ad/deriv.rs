//! The derivative table: the partial derivatives of every primitive
//! scalar operation, in one place. Forward mode multiplies them by
//! tangents (`ẏ = Σ ∂y/∂xᵢ · ẋᵢ`), reverse mode by the result's adjoint
//! (`x̄ᵢ += ∂y/∂xᵢ · ȳ`).
//!
//! As in Futhark, every primitive type is differentiable (docs/AD.md,
//! "Integers and booleans"). Integers are treated as reals that happen to
//! be stored in an integer type: a partial derivative is the real formula
//! evaluated in the operands' own arithmetic (wrapping, with integer
//! division), so `x * y` has the tangent `ẋ·y + x·ẏ` in `i32`. Booleans
//! have boolean tangents, added with `||` and multiplied with `&&`; a
//! tangent `true` means "this value flips". Operations that are piecewise
//! constant (comparisons, `floor`, bit masks, ...) have no derivative
//! (`None`, a zero).

use urchin_core::build::Builder;
use urchin_core::ir::{Atom, Type};
use urchin_prim::{BinOp, PrimType, Scalar, UnOp};

/// Whether values of type `t` have tangents and adjoints: every primitive
/// value and array of them. Accumulators are written, never read, and are
/// reversed through the arrays they add to.
pub fn differentiable(t: Type) -> bool {
    !matches!(t, Type::Acc(..))
}

/// The addition of tangents and adjoints of type `p`.
pub fn add_op(p: PrimType) -> BinOp {
    if p == PrimType::Bool {
        BinOp::LogOr
    } else {
        BinOp::Add
    }
}

/// The multiplication of a tangent or adjoint by a partial derivative.
pub fn mul_op(p: PrimType) -> BinOp {
    if p == PrimType::Bool {
        BinOp::LogAnd
    } else {
        BinOp::Mul
    }
}

fn konst(t: PrimType, x: i64) -> Atom {
    Atom::Const(Scalar::from_i64(t, x))
}

/// A float constant (for derivatives of float-only operations).
fn fkonst(t: PrimType, x: f64) -> Atom {
    Atom::Const(Scalar::from_f64(t, x))
}

/// With respect to which operands `x op y` (operands of type `p`) has a
/// derivative that is not zero everywhere. The activity analysis asks this
/// without building anything; [`binop`] builds exactly these.
pub fn binop_depends(op: BinOp, p: PrimType) -> (bool, bool) {
    let float = p.is_float();
    match op {
        BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Min | BinOp::Max => {
            (true, true)
        }
        BinOp::Mod | BinOp::Rem => (true, true),
        // Truncating division of floats is piecewise constant; of
        // integers, it is their division.
        BinOp::Quot => (!float, !float),
        // An integer exponent is a count (its real derivative, `r·ln x`,
        // is not an integer).
        BinOp::Pow => (true, float),
        BinOp::Atan2 | BinOp::Hypot => (float, float),
        // Only the magnitude moves with x; the sign of y is a step.
        BinOp::CopySign | BinOp::NextAfter => (float, false),
        // As `if x then y else false` and `if x then true else y`, which
        // is what `&&` and `||` are: the condition passes no tangent.
        BinOp::LogAnd | BinOp::LogOr => (false, true),
        // A shift is a multiplication or a division by a power of two; the
        // shift amount is a count.
        BinOp::Shl | BinOp::Shr | BinOp::UShr => (true, false),
        BinOp::Eq
        | BinOp::Neq
        | BinOp::Lt
        | BinOp::Le
        | BinOp::Gt
        | BinOp::Ge
        | BinOp::BitAnd
        | BinOp::BitOr
        | BinOp::BitXor
        // The high half of a double-width product is a step function.
        | BinOp::MulHi => (false, false),
    }
}

/// Whether `op x` (an operand of type `p`) has a derivative that is not
/// zero everywhere.
pub fn unop_depends(op: UnOp, _p: PrimType) -> bool {
    !matches!(
        op,
        UnOp::Sgn
            | UnOp::Floor
            | UnOp::Ceil
            | UnOp::Round
            | UnOp::Trunc
            | UnOp::IsNan
            | UnOp::IsInf
            // ψ₁′ (tetragamma) is not implemented: third and higher
            // derivatives of `lgamma` are not available.
            | UnOp::Trigamma
            // Integer results.
            | UnOp::Popc
            | UnOp::Clz
            | UnOp::Ctz
    )
}

/// `to_bits` and `from_bits` reinterpret the bits, and Futhark
/// differentiates them as it does conversions: the tangent is
/// reinterpreted along, the adjoint back (the inverse operation).
pub fn bit_cast_inverse(op: UnOp) -> Option<UnOp> {
    match op {
        UnOp::ToBits => Some(UnOp::FromBits),
        UnOp::FromBits => Some(UnOp::ToBits),
        _ => None,
    }
}

/// `∂(x op y)/∂x` and `∂(x op y)/∂y`, given the result `r`.
pub fn binop(
    b: &mut Builder,
    op: BinOp,
    x: Atom,
    y: Atom,
    r: Atom,
) -> (Option<Atom>, Option<Atom>) {
    let p = b.ty(x).elem();
    let (wx, wy) = binop_depends(op, p);
    if !wx && !wy {
        return (None, None);
    }
    let one = konst(p, 1);
    let zero = konst(p, 0);
    let (dx, dy): (Atom, Atom) = match op {
        BinOp::Add => (one, one),
        BinOp::Sub => (one, konst(p, -1)),
        BinOp::Mul => (y, x),
        BinOp::Div | BinOp::Quot => {
            // ∂/∂x = 1/y, ∂/∂y = -x/y² = -r/y (in the operation's own
            // division on integers; r/y cannot overflow where y² would).
            let dx = b.bin(op, one, y);
            let ry = b.bin(op, r, y);
            (dx.into(), b.un(UnOp::Neg, ry).into())
        }
        BinOp::Pow => {
            // ∂/∂x = y·x^(y−1), ∂/∂y = r·ln x. Both are 0 where the power
            // does not move: x^0 in x (also at x = 0, where the formula
            // gives 0·∞), and 0^y in y (where ln 0 = −∞).
            let y1 = b.bin(BinOp::Sub, y, one);
            let xy1 = b.bin(BinOp::Pow, x, y1);
            let dx = b.bin(BinOp::Mul, y, xy1);
            if !p.is_float() {
                return (Some(dx.into()), None);
            }
            let y0 = b.bin(BinOp::Eq, y, zero);
            let dx = b.select(y0, zero, dx);
            let lnx = b.un(UnOp::Log, x);
            let dy = b.bin(BinOp::Mul, r, lnx);
            let x0 = b.bin(BinOp::Eq, x, zero);
            (dx.into(), b.select(x0, zero, dy).into())
        }
        BinOp::Min | BinOp::Max => {
            // The derivative goes to the operand that was chosen (the
            // first on ties, as the operation itself returns it).
            let cmp = if op == BinOp::Min {
                BinOp::Le
            } else {
                BinOp::Ge
            };
            let first = b.bin(cmp, x, y);
            let dx = b.select(first, one, zero);
            let dy = b.select(first, zero, one);
            (dx.into(), dy.into())
        }
        BinOp::Atan2 => {
            // atan2(x, y): ∂/∂x = y/(x²+y²), ∂/∂y = −x/(x²+y²)
            let xx = b.bin(BinOp::Mul, x, x);
            let yy = b.bin(BinOp::Mul, y, y);
            let d = b.bin(BinOp::Add, xx, yy);
            let dx = b.bin(BinOp::Div, y, d);
            let nx = b.un(UnOp::Neg, x);
            (dx.into(), b.bin(BinOp::Div, nx, d).into())
        }
        BinOp::Hypot => {
            // ∂/∂x = x/r, ∂/∂y = y/r
            let dx = b.bin(BinOp::Div, x, r);
            (dx.into(), b.bin(BinOp::Div, y, r).into())
        }
        BinOp::CopySign => {
            // |x|·sgn y: ∂/∂x = sgn x · sgn y (as ±1, also at zeros)
            let sx = b.bin(BinOp::CopySign, one, x);
            let sy = b.bin(BinOp::CopySign, one, y);
            (b.bin(BinOp::Mul, sx, sy).into(), zero)
        }
        // A step of one unit in the last place moves with `x`.
        BinOp::NextAfter => (one, zero),
        BinOp::Mod | BinOp::Rem => {
            // x − y·q with q the rounded quotient, piecewise constant:
            // ∂/∂x = 1, ∂/∂y = −q. Float `%` truncates; integer `%`
            // floors and `%%` truncates, as their divisions do.
            let q = if p.is_float() {
                let q = b.bin(BinOp::Div, x, y);
                b.un(UnOp::Trunc, q)
            } else if op == BinOp::Mod {
                b.bin(BinOp::Div, x, y)
            } else {
                b.bin(BinOp::Quot, x, y)
            };
            (one, b.un(UnOp::Neg, q).into())
        }
        // `x && y` flips with y where x holds, `x || y` where it does not.
        BinOp::LogAnd => (zero, x),
        BinOp::LogOr => (zero, b.un(UnOp::Not, x).into()),
        // x << y = x·2^y; x >> y = x / 2^y (rounded as the shift does).
        BinOp::Shl | BinOp::Shr | BinOp::UShr => (b.bin(op, one, y).into(), zero),
        _ => unreachable!("binop_depends rules out operations without derivatives"),
    };
    (wx.then_some(dx), wy.then_some(dy))
}

/// `∂(op x)/∂x`, given the result `r`.
pub fn unop(b: &mut Builder, op: UnOp, x: Atom, r: Atom) -> Option<Atom> {
    let p = b.ty(x).elem();
    if !unop_depends(op, p) {
        return None;
    }
    let one = konst(p, 1);
    Some(match op {
        UnOp::Neg => konst(p, -1),
        // `!x` flips with x; an integer's complement is −x − 1.
        UnOp::Not if p == PrimType::Bool => one,
        UnOp::Not => konst(p, -1),
        UnOp::Abs => b.un(UnOp::Sgn, x).into(),
        UnOp::Sqrt => {
            // 1 / (2·√x)
            let two_r = b.bin(BinOp::Mul, konst(p, 2), r);
            b.bin(BinOp::Div, one, two_r).into()
        }
        UnOp::Exp => r,
        UnOp::Log => b.bin(BinOp::Div, one, x).into(),
        UnOp::Log2 | UnOp::Log10 => {
            let base: f64 = if op == UnOp::Log2 { 2.0 } else { 10.0 };
            let xl = b.bin(BinOp::Mul, x, fkonst(p, base.ln()));
            b.bin(BinOp::Div, one, xl).into()
        }
        UnOp::Sin => b.un(UnOp::Cos, x).into(),
        UnOp::Cos => {
            let s = b.un(UnOp::Sin, x);
            b.un(UnOp::Neg, s).into()
        }
        UnOp::Tan => {
            // 1 + tan²x
            let rr = b.bin(BinOp::Mul, r, r);
            b.bin(BinOp::Add, one, rr).into()
        }
        UnOp::Asin | UnOp::Acos => {
            // ±1/√(1−x²)
            let xx = b.bin(BinOp::Mul, x, x);
            let d = b.bin(BinOp::Sub, one, xx);
            let s = b.un(UnOp::Sqrt, d);
            let inv = b.bin(BinOp::Div, one, s);
            if op == UnOp::Asin {
                inv.into()
            } else {
                b.un(UnOp::Neg, inv).into()
            }
        }
        UnOp::Atan => {
            let xx = b.bin(BinOp::Mul, x, x);
            let d = b.bin(BinOp::Add, one, xx);
            b.bin(BinOp::Div, one, d).into()
        }
        UnOp::Sinh => b.un(UnOp::Cosh, x).into(),
        UnOp::Cosh => b.un(UnOp::Sinh, x).into(),
        UnOp::Tanh => {
            // 1 − tanh²x
            let rr = b.bin(BinOp::Mul, r, r);
            b.bin(BinOp::Sub, one, rr).into()
        }
        UnOp::Cbrt => {
            // 1 / (3·r²)
            let rr = b.bin(BinOp::Mul, r, r);
            let d = b.bin(BinOp::Mul, konst(p, 3), rr);
            b.bin(BinOp::Div, one, d).into()
        }
        UnOp::Log1p => {
            let d = b.bin(BinOp::Add, one, x);
            b.bin(BinOp::Div, one, d).into()
        }
        UnOp::Asinh | UnOp::Acosh => {
            // 1/√(x² ± 1)
            let xx = b.bin(BinOp::Mul, x, x);
            let sign = if op == UnOp::Asinh {
                BinOp::Add
            } else {
                BinOp::Sub
            };
            let d = b.bin(sign, xx, one);
            let s = b.un(UnOp::Sqrt, d);
            b.bin(BinOp::Div, one, s).into()
        }
        UnOp::Atanh => {
            // 1/(1 − x²)
            let xx = b.bin(BinOp::Mul, x, x);
            let d = b.bin(BinOp::Sub, one, xx);
            b.bin(BinOp::Div, one, d).into()
        }
        UnOp::Erf | UnOp::Erfc => {
            // ±2/√π · e^(−x²)
            let xx = b.bin(BinOp::Mul, x, x);
            let nxx = b.un(UnOp::Neg, xx);
            let e = b.un(UnOp::Exp, nxx);
            let c = 2.0 / std::f64::consts::PI.sqrt();
            let c = if op == UnOp::Erf { c } else { -c };
            b.bin(BinOp::Mul, fkonst(p, c), e).into()
        }
        // Γ′ = Γ·ψ, (log Γ)′ = ψ, ψ′ = ψ₁.
        UnOp::Gamma => {
            let psi = b.un(UnOp::Digamma, x);
            b.bin(BinOp::Mul, r, psi).into()
        }
        UnOp::Lgamma => b.un(UnOp::Digamma, x).into(),
        UnOp::Digamma => b.un(UnOp::Trigamma, x).into(),
        UnOp::SinPi => {
            let c = b.un(UnOp::CosPi, x);
            b.bin(BinOp::Mul, fkonst(p, std::f64::consts::PI), c).into()
        }
        UnOp::CosPi => {
            let s = b.un(UnOp::SinPi, x);
            b.bin(BinOp::Mul, fkonst(p, -std::f64::consts::PI), s)
                .into()
        }
        UnOp::TanPi => {
            // π(1 + r²)
            let rr = b.bin(BinOp::Mul, r, r);
            let d = b.bin(BinOp::Add, one, rr);
            b.bin(BinOp::Mul, fkonst(p, std::f64::consts::PI), d).into()
        }
        UnOp::ToBits | UnOp::FromBits => unreachable!("bit casts are not multiplications"),
        // `unop_depends` lists them.
        _ => unreachable!("{op:?} has no derivative"),
    })
}

/// Multiplies a derivative factor with a tangent or adjoint, folding the
/// common factors ±1 away.
pub fn mul(b: &mut Builder, factor: Atom, x: Atom) -> Atom {
    let p = b.ty(x).elem();
    match factor {
        Atom::Const(c) if c == Scalar::one(p) => x,
        Atom::Const(c) if c == Scalar::from_i64(p, -1) => b.un(UnOp::Neg, x).into(),
        _ => b.bin(mul_op(p), factor, x).into(),
    }
}
