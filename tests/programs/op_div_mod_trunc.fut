-- Integer `//` and `%%` truncate towards zero (the remainder has the sign
-- of the dividend), for signed and unsigned types of several widths;
-- negative operands in every position.
-- ==
-- entry: trunc_i32
-- input { 7 2 }
-- output { 3 1 }
-- input { -7 2 }
-- output { -3 -1 }
-- input { 7 -2 }
-- output { -3 1 }
-- input { -7 -2 }
-- output { 3 -1 }
-- input { 6 3 }
-- output { 2 0 }
-- input { -6 3 }
-- output { -2 0 }
-- input { 0 5 }
-- output { 0 0 }
-- input { -1 5 }
-- output { 0 -1 }

-- ==
-- entry: trunc_i64
-- input { -9i64 4i64 }
-- output { -2i64 -1i64 }
-- input { 9i64 -4i64 }
-- output { -2i64 1i64 }
-- input { -8i64 4i64 }
-- output { -2i64 0i64 }
-- input { -9000000000i64 7i64 }
-- output { -1285714285i64 -5i64 }

-- ==
-- entry: trunc_i8
-- input { -128i8 3i8 }
-- output { -42i8 -2i8 }
-- input { 127i8 -2i8 }
-- output { -63i8 1i8 }
-- input { -1i8 127i8 }
-- output { 0i8 -1i8 }

-- ==
-- entry: trunc_u8
-- input { 200u8 7u8 }
-- output { 28u8 4u8 }
-- input { 255u8 16u8 }
-- output { 15u8 15u8 }

entry trunc_i32 (a: i32) (b: i32) = (a // b, a %% b)

entry trunc_i64 (a: i64) (b: i64) = (a // b, a %% b)

entry trunc_i8 (a: i8) (b: i8) = (a // b, a %% b)

entry trunc_u8 (a: u8) (b: u8) = (a // b, a %% b)
