-- | Members of the integer modules (`i8` .. `u64`) that are not
-- primitive, checked once per integer type with `t` standing for it (as
-- in Futhark's `integral` module type).

-- | The number of bits of `t`.
def num_bits : i32 = popc (neg (i32 1))

-- | Bit `bit` of `x` (0 is the least significant), as 0 or 1.
def get_bit (bit: i32) (x: t) : i32 = if (x >> i32 bit) & i32 1 == i32 0 then 0 else 1

-- | `x` with bit `bit` set to `b` (0 or 1).
def set_bit (bit: i32) (x: t) (b: i32) : t =
  (x & !(i32 1 << i32 bit)) | (i32 b << i32 bit)

-- | `mul_hi a b + c`: the upper half of the double-width product, plus `c`.
def mad_hi (a: t) (b: t) (c: t) : t = mul_hi a b + c
