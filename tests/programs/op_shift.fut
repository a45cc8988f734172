-- Shifts: `<<` (bits shifted out are lost, wrapping into the sign bit),
-- `>>` (arithmetic for signed types, logical for unsigned ones) and `>>>`
-- (always logical: zero-filling). Shift amounts stay below the width.
-- ==
-- entry: shift_i32
-- input { 1 4 }
-- output { 16 0 0 }
-- input { -16 2 }
-- output { -64 -4 1073741820 }
-- input { -1 28 }
-- output { -268435456 -1 15 }
-- input { 1 31 }
-- output { -2147483648 0 0 }
-- input { 1000 3 }
-- output { 8000 125 125 }

-- ==
-- entry: shift_i8
-- input { -16i8 4i8 }
-- output { 0i8 -1i8 15i8 }
-- input { 64i8 1i8 }
-- output { -128i8 32i8 32i8 }
-- input { -128i8 7i8 }
-- output { 0i8 -1i8 1i8 }

-- ==
-- entry: shift_u8
-- input { 200u8 2u8 }
-- output { 32u8 50u8 50u8 }
-- input { 255u8 7u8 }
-- output { 128u8 1u8 1u8 }

-- ==
-- entry: shift_i64
-- input { 1i64 40i64 }
-- output { 1099511627776i64 0i64 0i64 }
-- input { -1024i64 3i64 }
-- output { -8192i64 -128i64 2305843009213693824i64 }

entry shift_i32 (a: i32) (s: i32) = (a << s, a >> s, a >>> s)

entry shift_i8 (a: i8) (s: i8) = (a << s, a >> s, a >>> s)

entry shift_u8 (a: u8) (s: u8) = (a << s, a >> s, a >>> s)

entry shift_i64 (a: i64) (s: i64) = (a << s, a >> s, a >>> s)
