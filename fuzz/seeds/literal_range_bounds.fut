-- The extreme values of each integer type are literals of that type: a `-`
-- directly before a literal is its sign, so -128i8 is the least i8.
-- ==
-- input { } output { -128i8 127i8 255u8 -9223372036854775808i64 18446744073709551615u64 10000000000i64 }

entry main : (i8, i8, u8, i64, u64, i64) =
  let big: i64 = 10000000000
  in (-128i8, 127, 255, -9223372036854775808, 18446744073709551615, big)
