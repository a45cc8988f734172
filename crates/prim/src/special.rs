//! Special functions that Rust's standard library lacks: Γ, log Γ, erf
//! and erfc (from the `libm` crate, a port of musl's), ψ and ψ′ for the
//! derivatives of `lgamma`, `sinpi`-style functions exact at integers,
//! and `nextafter`.

use half::f16;
use std::f64::consts::PI;

pub fn gamma(x: f64) -> f64 {
    libm::tgamma(x)
}

/// `log |Γ(x)|`.
pub fn lgamma(x: f64) -> f64 {
    libm::lgamma(x)
}

pub fn erf(x: f64) -> f64 {
    libm::erf(x)
}

pub fn erfc(x: f64) -> f64 {
    libm::erfc(x)
}

/// `sin(πx)`: exactly ±0 at integers, reduced modulo 2 first (exactly)
/// so that large arguments lose nothing to `π·x`.
pub fn sinpi(x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    let r = x % 2.0;
    if r == r.trunc() {
        return 0.0f64.copysign(x);
    }
    (PI * r).sin()
}

/// `cos(πx)`: exactly 0 at half-integers.
pub fn cospi(x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    let r = x.abs() % 2.0;
    if r == 0.5 || r == 1.5 {
        return 0.0;
    }
    (PI * r).cos()
}

pub fn tanpi(x: f64) -> f64 {
    sinpi(x) / cospi(x)
}

/// ψ(x) = Γ′(x)/Γ(x): the reflection formula below ½, the recurrence
/// ψ(x) = ψ(x+1) − 1/x up to 10, then the asymptotic series (its next
/// term is below 10⁻¹³ there).
pub fn digamma(x: f64) -> f64 {
    if x.is_nan() || x == f64::NEG_INFINITY || (x <= 0.0 && x == x.floor()) {
        return f64::NAN;
    }
    if x < 0.5 {
        return digamma(1.0 - x) - PI / (PI * x).tan();
    }
    let (mut x, mut acc) = (x, 0.0);
    while x < 10.0 {
        acc -= 1.0 / x;
        x += 1.0;
    }
    let z = 1.0 / (x * x);
    let series = z
        * (1.0 / 12.0
            - z * (1.0 / 120.0 - z * (1.0 / 252.0 - z * (1.0 / 240.0 - z * (1.0 / 132.0)))));
    acc + x.ln() - 0.5 / x - series
}

/// ψ′(x): reflection, the recurrence ψ′(x) = ψ′(x+1) + 1/x², then the
/// asymptotic series.
pub fn trigamma(x: f64) -> f64 {
    if x.is_nan() || x == f64::NEG_INFINITY || (x <= 0.0 && x == x.floor()) {
        return f64::NAN;
    }
    if x < 0.5 {
        let s = sinpi(x);
        return PI * PI / (s * s) - trigamma(1.0 - x);
    }
    let (mut x, mut acc) = (x, 0.0);
    while x < 10.0 {
        acc += 1.0 / (x * x);
        x += 1.0;
    }
    let z = 1.0 / (x * x);
    let series = 1.0 / x
        + z / 2.0
        + z / x
            * (1.0 / 6.0 - z * (1.0 / 30.0 - z * (1.0 / 42.0 - z * (1.0 / 30.0 - z * 5.0 / 66.0))));
    acc + series
}

/// A float type's bit-level neighbours.
pub trait NextAfter: Copy + PartialOrd {
    fn next_after(self, y: Self) -> Self;
}

macro_rules! next_after {
    ($t:ty, $bits:ty, $sign:expr) => {
        impl NextAfter for $t {
            fn next_after(self, y: Self) -> Self {
                let zero = <$t>::from_bits(0);
                if self.is_nan() || y.is_nan() {
                    return <$t>::NAN;
                }
                if self == y {
                    return y;
                }
                if self == zero {
                    // The smallest subnormal, towards `y`.
                    let sign = if y < zero { $sign } else { 0 };
                    return <$t>::from_bits(sign | 1);
                }
                let b = self.to_bits();
                let away = (self < y) == (self > zero);
                <$t>::from_bits(if away { b + 1 } else { b - 1 })
            }
        }
    };
}

next_after!(f16, u16, 0x8000);
next_after!(f32, u32, 0x8000_0000);
next_after!(f64, u64, 0x8000_0000_0000_0000);

pub fn next_after<T: NextAfter>(x: T, y: T) -> T {
    x.next_after(y)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * b.abs().max(1.0)
    }

    #[test]
    fn digamma_and_trigamma_at_known_points() {
        // ψ(1) = −γ, ψ(½) = −γ − 2 ln 2, ψ′(1) = π²/6, ψ′(½) = π²/2.
        let euler = 0.577_215_664_901_532_9;
        assert!(close(digamma(1.0), -euler));
        assert!(close(digamma(0.5), -euler - 2.0 * 2f64.ln()));
        assert!(close(digamma(10.0), 2.251_752_589_066_721));
        assert!(close(digamma(-0.5), 0.036_489_973_978_576_52));
        assert!(close(trigamma(1.0), PI * PI / 6.0));
        assert!(close(trigamma(0.5), PI * PI / 2.0));
        assert!(close(trigamma(-0.5), 8.934_802_200_544_704));
        assert!(digamma(0.0).is_nan() && digamma(-2.0).is_nan());
    }

    #[test]
    fn pi_multiples_are_exact() {
        assert_eq!(sinpi(1.0), 0.0);
        assert_eq!(sinpi(-3.0).to_bits(), (-0.0f64).to_bits());
        assert_eq!(sinpi(0.5), 1.0);
        assert_eq!(cospi(0.5), 0.0);
        assert_eq!(cospi(1.0), -1.0);
        assert!((tanpi(0.25) - 1.0).abs() < 1e-15);
        assert!(sinpi(f64::INFINITY).is_nan());
    }

    #[test]
    fn next_after_steps_one_ulp() {
        assert_eq!(next_after(1.0f64, 2.0), 1.0 + f64::EPSILON);
        assert_eq!(next_after(1.0f32, 0.0), 1.0 - f32::EPSILON / 2.0);
        assert_eq!(next_after(0.0f64, -1.0), -f64::from_bits(1));
        assert_eq!(next_after(-1.0f64, -2.0), -1.0 - f64::EPSILON);
        assert_eq!(next_after(f16::ONE, f16::MAX), f16::ONE + f16::EPSILON);
        assert!(next_after(f64::NAN, 1.0).is_nan());
        assert_eq!(next_after(2.0f64, 2.0), 2.0);
    }
}
