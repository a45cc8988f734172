-- | Members of the float modules (`f16`, `f32`, `f64`) that are not
-- primitive, checked once per float type with `t` standing for it (as in
-- Futhark's `real` and `float` module types). `u_t` is the module of the
-- unsigned type of the same width (`u16`, `u32`, `u64`).

def recip (x: t) : t = 1 / x

def rsqrt (x: t) : t = 1 / sqrt x

-- | `x / y` in `t`.
def from_fraction (x: i64) (y: i64) : t = i64 x / i64 y

def asinpi (x: t) : t = asin x / pi

def acospi (x: t) : t = acos x / pi

def atanpi (x: t) : t = atan x / pi

def atan2pi (x: t) (y: t) : t = atan2 x y / pi

-- | Linear interpolation: `v0` at `a = 0`, `v1` at `a = 1`.
def lerp (v0: t) (v1: t) (a: t) : t = v0 + (v1 - v0) * a

-- | `a * b + c`.
def mad (a: t) (b: t) (c: t) : t = a * b + c

-- | `a * b + c` with one rounding for `f16` and `f32` (computed in `f64`,
-- where the product is exact); for `f64` it is `mad`.
def fma (a: t) (b: t) (c: t) : t = f64 (to_f64 a * to_f64 b + to_f64 c)

-- | `x * 2 ** n`, in two steps so that `2 ** n` cannot overflow first.
def ldexp (x: t) (n: i32) : t =
  let h = n / 2
  in x * 2 ** i32 h * 2 ** i32 (n - h)

-- | The number of bits of `t`.
def num_bits : i32 = u_t.num_bits

-- | Bit `bit` of the representation of `x`.
def get_bit (bit: i32) (x: t) : i32 = u_t.get_bit bit (to_bits x)

-- | `x` with bit `bit` of its representation set to `b`.
def set_bit (bit: i32) (x: t) (b: i32) : t = from_bits (u_t.set_bit bit (to_bits x) b)
