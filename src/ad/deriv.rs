//! The derivative table: the partial derivatives of every primitive
//! scalar operation, in one place. Forward mode multiplies them by
//! tangents (`ẏ = Σ ∂y/∂xᵢ · ẋᵢ`), reverse mode by the result's adjoint
//! (`x̄ᵢ += ∂y/∂xᵢ · ȳ`).
//!
//! Only floating-point values have derivatives; integer and boolean
//! operands get none (`None`), as do operations that are piecewise
//! constant (`floor`, comparisons, ...), whose derivative is zero almost
//! everywhere.

use crate::core::build::Builder;
use crate::core::ir::{Atom, Type};
use crate::prim::{BinOp, PrimType, Scalar, UnOp};

pub fn is_float(t: Type) -> bool {
    t.elem().is_float()
}

fn konst(t: PrimType, x: f64) -> Atom {
    Atom::Const(Scalar::from_f64(t, x))
}

/// `∂(x op y)/∂x` and `∂(x op y)/∂y`, given the result `r`.
pub fn binop(
    b: &mut Builder,
    op: BinOp,
    x: Atom,
    y: Atom,
    r: Atom,
) -> (Option<Atom>, Option<Atom>) {
    let t = b.ty(x);
    if !is_float(t) {
        return (None, None);
    }
    let p = t.elem();
    let one = konst(p, 1.0);
    match op {
        BinOp::Add => (Some(one), Some(one)),
        BinOp::Sub => (Some(one), Some(konst(p, -1.0))),
        BinOp::Mul => (Some(y), Some(x)),
        BinOp::Div => {
            // ∂/∂x = 1/y, ∂/∂y = -x/y² = -r/y
            let dx = b.bin(BinOp::Div, one, y);
            let ry = b.bin(BinOp::Div, r, y);
            let dy = b.un(UnOp::Neg, ry);
            (Some(dx.into()), Some(dy.into()))
        }
        BinOp::Pow => {
            // ∂/∂x = y·x^(y−1), ∂/∂y = r·ln x
            let y1 = b.bin(BinOp::Sub, y, one);
            let xy1 = b.bin(BinOp::Pow, x, y1);
            let dx = b.bin(BinOp::Mul, y, xy1);
            let lnx = b.un(UnOp::Log, x);
            let dy = b.bin(BinOp::Mul, r, lnx);
            (Some(dx.into()), Some(dy.into()))
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
            let zero = konst(p, 0.0);
            let dx = b.select(first, one, zero);
            let dy = b.select(first, zero, one);
            (Some(dx.into()), Some(dy.into()))
        }
        BinOp::Atan2 => {
            // atan2(x, y): ∂/∂x = y/(x²+y²), ∂/∂y = −x/(x²+y²)
            let xx = b.bin(BinOp::Mul, x, x);
            let yy = b.bin(BinOp::Mul, y, y);
            let d = b.bin(BinOp::Add, xx, yy);
            let dx = b.bin(BinOp::Div, y, d);
            let nx = b.un(UnOp::Neg, x);
            let dy = b.bin(BinOp::Div, nx, d);
            (Some(dx.into()), Some(dy.into()))
        }
        BinOp::Hypot => {
            // ∂/∂x = x/r, ∂/∂y = y/r
            let dx = b.bin(BinOp::Div, x, r);
            let dy = b.bin(BinOp::Div, y, r);
            (Some(dx.into()), Some(dy.into()))
        }
        BinOp::CopySign => {
            // |x|·sgn y: ∂/∂x = sgn x · sgn y (as ±1, also at zeros)
            let sx = b.bin(BinOp::CopySign, one, x);
            let sy = b.bin(BinOp::CopySign, one, y);
            let dx = b.bin(BinOp::Mul, sx, sy);
            (Some(dx.into()), None)
        }
        // A step of one unit in the last place moves with `x`.
        BinOp::NextAfter => (Some(one), None),
        BinOp::Mod | BinOp::Rem => {
            // x − y·trunc(x/y): ∂/∂x = 1, ∂/∂y = −trunc(x/y)
            let q = b.bin(BinOp::Div, x, y);
            let tq = b.un(UnOp::Trunc, q);
            let dy = b.un(UnOp::Neg, tq);
            (Some(one), Some(dy.into()))
        }
        // trunc(x/y) is piecewise constant; comparisons and bit
        // operations have no float results.
        _ => (None, None),
    }
}

/// `∂(op x)/∂x`, given the result `r`.
pub fn unop(b: &mut Builder, op: UnOp, x: Atom, r: Atom) -> Option<Atom> {
    let t = b.ty(x);
    if !is_float(t) {
        return None;
    }
    let p = t.elem();
    let one = konst(p, 1.0);
    Some(match op {
        UnOp::Neg => konst(p, -1.0),
        UnOp::Abs => b.un(UnOp::Sgn, x).into(),
        UnOp::Sqrt => {
            // 1 / (2·√x)
            let two_r = b.bin(BinOp::Mul, konst(p, 2.0), r);
            b.bin(BinOp::Div, one, two_r).into()
        }
        UnOp::Exp => r,
        UnOp::Log => b.bin(BinOp::Div, one, x).into(),
        UnOp::Log2 | UnOp::Log10 => {
            let base: f64 = if op == UnOp::Log2 { 2.0 } else { 10.0 };
            let xl = b.bin(BinOp::Mul, x, konst(p, base.ln()));
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
            let d = b.bin(BinOp::Mul, konst(p, 3.0), rr);
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
            b.bin(BinOp::Mul, konst(p, c), e).into()
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
            b.bin(BinOp::Mul, konst(p, std::f64::consts::PI), c).into()
        }
        UnOp::CosPi => {
            let s = b.un(UnOp::SinPi, x);
            b.bin(BinOp::Mul, konst(p, -std::f64::consts::PI), s).into()
        }
        UnOp::TanPi => {
            // π(1 + r²)
            let rr = b.bin(BinOp::Mul, r, r);
            let d = b.bin(BinOp::Add, one, rr);
            b.bin(BinOp::Mul, konst(p, std::f64::consts::PI), d).into()
        }
        UnOp::Sgn | UnOp::Floor | UnOp::Ceil | UnOp::Round | UnOp::Trunc => return None,
        UnOp::Not | UnOp::IsNan | UnOp::IsInf => return None,
        // ψ₁′ (the tetragamma function) is not implemented: third and
        // higher derivatives of `lgamma` are not available.
        UnOp::Trigamma => return None,
        // Integer results, or bit patterns.
        UnOp::Popc | UnOp::Clz | UnOp::Ctz | UnOp::ToBits | UnOp::FromBits => return None,
    })
}

/// Whether `convert to x` has a derivative: 1 between float types (the
/// tangent or adjoint is converted along), none otherwise.
pub fn convert_differentiable(b: &Builder, to: PrimType, x: Atom) -> bool {
    is_float(b.ty(x)) && to.is_float()
}

/// Multiplies a derivative factor with a tangent or adjoint, folding the
/// common factors ±1 away.
pub fn mul(b: &mut Builder, factor: Atom, x: Atom) -> Atom {
    match factor {
        Atom::Const(c) if c.as_f64() == 1.0 => x,
        Atom::Const(c) if c.as_f64() == -1.0 => b.un(UnOp::Neg, x).into(),
        _ => b.bin(BinOp::Mul, factor, x).into(),
    }
}
