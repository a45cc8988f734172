-- The functions of the integer modules (`integral` in Futhark's prelude)
-- for every integer type. Expected values computed in Python.

-- ==
-- entry: i8_integral
-- input { [5i8, 100i8, -3i8] }
-- output { [2, 3, 7] [5, 1, 0] [0, 2, 0] [0i8, 39i8, 0i8] 70i8 [1, 1, 1] [-123i8, -28i8, -3i8] [4i8, 100i8, -4i8] 8 }

-- ==
-- entry: i16_integral
-- input { [5i16, 100i16, -3i16] }
-- output { [2, 3, 15] [13, 9, 0] [0, 2, 0] [0i16, 0i16, 0i16] 16390i16 [1, 1, 1] [-32763i16, -32668i16, -3i16] [4i16, 100i16, -4i16] 16 }

-- ==
-- entry: i32_integral
-- input { [5i32, 100i32, -3i32] }
-- output { [2, 3, 31] [29, 25, 0] [0, 2, 0] [0i32, 0i32, 0i32] 1073741830i32 [1, 1, 1] [-2147483643i32, -2147483548i32, -3i32] [4i32, 100i32, -4i32] 32 }

-- ==
-- entry: i64_integral
-- input { [5i64, 100i64, -3i64] }
-- output { [2, 3, 63] [61, 57, 0] [0, 2, 0] [0i64, 0i64, 0i64] 4611686018427387910i64 [1, 1, 1] [-9223372036854775803i64, -9223372036854775708i64, -3i64] [4i64, 100i64, -4i64] 64 }

-- ==
-- entry: u8_integral
-- input { [5u8, 100u8, 200u8] }
-- output { [2, 3, 3] [5, 1, 0] [0, 2, 3] [0u8, 39u8, 156u8] 5u8 [1, 1, 0] [133u8, 228u8, 200u8] [4u8, 100u8, 200u8] 8 }

-- ==
-- entry: u16_integral
-- input { [5u16, 100u16, 200u16] }
-- output { [2, 3, 3] [13, 9, 8] [0, 2, 3] [0u16, 0u16, 0u16] 5u16 [1, 1, 0] [32773u16, 32868u16, 32968u16] [4u16, 100u16, 200u16] 16 }

-- ==
-- entry: u32_integral
-- input { [5u32, 100u32, 200u32] }
-- output { [2, 3, 3] [29, 25, 24] [0, 2, 3] [0u32, 0u32, 0u32] 5u32 [1, 1, 0] [2147483653u32, 2147483748u32, 2147483848u32] [4u32, 100u32, 200u32] 32 }

-- ==
-- entry: u64_integral
-- input { [5u64, 100u64, 200u64] }
-- output { [2, 3, 3] [61, 57, 56] [0, 2, 3] [0u64, 0u64, 0u64] 5u64 [1, 1, 0] [9223372036854775813u64, 9223372036854775908u64, 9223372036854776008u64] [4u64, 100u64, 200u64] 64 }

entry i8_integral (xs: []i8) =
  (map i8.popc xs, map i8.clz xs, map i8.ctz xs, map2 i8.mul_hi xs xs,
   i8.mad_hi i8.highest i8.highest 7, map (i8.get_bit 2) xs,
   map (\x -> i8.set_bit 7 x 1) xs, map (\x -> i8.set_bit 0 x 0) xs, i8.num_bits)

entry i16_integral (xs: []i16) =
  (map i16.popc xs, map i16.clz xs, map i16.ctz xs, map2 i16.mul_hi xs xs,
   i16.mad_hi i16.highest i16.highest 7, map (i16.get_bit 2) xs,
   map (\x -> i16.set_bit 15 x 1) xs, map (\x -> i16.set_bit 0 x 0) xs, i16.num_bits)

entry i32_integral (xs: []i32) =
  (map i32.popc xs, map i32.clz xs, map i32.ctz xs, map2 i32.mul_hi xs xs,
   i32.mad_hi i32.highest i32.highest 7, map (i32.get_bit 2) xs,
   map (\x -> i32.set_bit 31 x 1) xs, map (\x -> i32.set_bit 0 x 0) xs, i32.num_bits)

entry i64_integral (xs: []i64) =
  (map i64.popc xs, map i64.clz xs, map i64.ctz xs, map2 i64.mul_hi xs xs,
   i64.mad_hi i64.highest i64.highest 7, map (i64.get_bit 2) xs,
   map (\x -> i64.set_bit 63 x 1) xs, map (\x -> i64.set_bit 0 x 0) xs, i64.num_bits)

entry u8_integral (xs: []u8) =
  (map u8.popc xs, map u8.clz xs, map u8.ctz xs, map2 u8.mul_hi xs xs,
   u8.mad_hi u8.highest u8.highest 7, map (u8.get_bit 2) xs,
   map (\x -> u8.set_bit 7 x 1) xs, map (\x -> u8.set_bit 0 x 0) xs, u8.num_bits)

entry u16_integral (xs: []u16) =
  (map u16.popc xs, map u16.clz xs, map u16.ctz xs, map2 u16.mul_hi xs xs,
   u16.mad_hi u16.highest u16.highest 7, map (u16.get_bit 2) xs,
   map (\x -> u16.set_bit 15 x 1) xs, map (\x -> u16.set_bit 0 x 0) xs, u16.num_bits)

entry u32_integral (xs: []u32) =
  (map u32.popc xs, map u32.clz xs, map u32.ctz xs, map2 u32.mul_hi xs xs,
   u32.mad_hi u32.highest u32.highest 7, map (u32.get_bit 2) xs,
   map (\x -> u32.set_bit 31 x 1) xs, map (\x -> u32.set_bit 0 x 0) xs, u32.num_bits)

entry u64_integral (xs: []u64) =
  (map u64.popc xs, map u64.clz xs, map u64.ctz xs, map2 u64.mul_hi xs xs,
   u64.mad_hi u64.highest u64.highest 7, map (u64.get_bit 2) xs,
   map (\x -> u64.set_bit 63 x 1) xs, map (\x -> u64.set_bit 0 x 0) xs, u64.num_bits)
