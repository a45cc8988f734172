-- Signed integer arithmetic wraps around (two's complement) at every width.
-- ==
-- entry: wrap_i8
-- input { 127i8 1i8 }
-- output { -128i8 126i8 127i8 }
-- input { -128i8 1i8 }
-- output { -127i8 127i8 -128i8 }
-- input { 100i8 3i8 }
-- output { 103i8 97i8 44i8 }
-- input { -100i8 50i8 }
-- output { -50i8 106i8 120i8 }

-- ==
-- entry: wrap_i16
-- input { 32767i16 1i16 }
-- output { -32768i16 32766i16 32767i16 }
-- input { -32768i16 1i16 }
-- output { -32767i16 32767i16 -32768i16 }
-- input { 300i16 300i16 }
-- output { 600i16 0i16 24464i16 }

-- ==
-- entry: wrap_i32
-- input { 2147483647 1 }
-- output { -2147483648 2147483646 2147483647 }
-- input { -2147483648 1 }
-- output { -2147483647 2147483647 -2147483648 }
-- input { 65536 65536 }
-- output { 131072 0 0 }
-- input { 100000 -100000 }
-- output { 0 200000 -1410065408 }

-- ==
-- entry: wrap_i64
-- input { 9223372036854775807i64 1i64 }
-- output { -9223372036854775808i64 9223372036854775806i64 9223372036854775807i64 }
-- input { -9223372036854775808i64 1i64 }
-- output { -9223372036854775807i64 9223372036854775807i64 -9223372036854775808i64 }
-- input { 4294967296i64 4294967296i64 }
-- output { 8589934592i64 0i64 0i64 }

entry wrap_i8 (a: i8) (b: i8) = (a + b, a - b, a * b)

entry wrap_i16 (a: i16) (b: i16) = (a + b, a - b, a * b)

entry wrap_i32 (a: i32) (b: i32) = (a + b, a - b, a * b)

entry wrap_i64 (a: i64) (b: i64) = (a + b, a - b, a * b)
