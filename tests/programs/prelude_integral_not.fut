-- `not` of the integer modules is the bitwise complement (as `!`).
-- Expected values: two's complement, ~x = -x - 1; for unsigned, max - x.

-- ==
-- entry: signed
-- input { [0i8, 5i8, -1i8] [0i64, 5i64, -9223372036854775808i64] }
-- output { [-1i8, -6i8, 0i8] [-1i64, -6i64, 9223372036854775807i64] }

-- ==
-- entry: unsigned
-- input { [0u8, 5u8, 255u8] [0u32, 1u32] }
-- output { [255u8, 250u8, 0u8] [4294967295u32, 4294967294u32] }

-- ==
-- entry: same_as_bang
-- input { [3i32, -7i32, 123456i32] }
-- output { true }

entry signed (a: []i8) (b: []i64) = (map i8.not a, map i64.not b)
entry unsigned (a: []u8) (b: []u32) = (map u8.not a, map u32.not b)
entry same_as_bang (xs: []i32) = all (\x -> i32.not x == !x) xs
