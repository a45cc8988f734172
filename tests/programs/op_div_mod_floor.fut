-- Integer `/` and `%` round towards negative infinity (the remainder has
-- the sign of the divisor), for signed and unsigned types of several
-- widths; negative operands in every position.
-- ==
-- entry: floor_i32
-- input { 7 2 }
-- output { 3 1 }
-- input { -7 2 }
-- output { -4 1 }
-- input { 7 -2 }
-- output { -4 -1 }
-- input { -7 -2 }
-- output { 3 -1 }
-- input { 6 3 }
-- output { 2 0 }
-- input { -6 3 }
-- output { -2 0 }
-- input { 0 5 }
-- output { 0 0 }
-- input { -1 5 }
-- output { -1 4 }

-- ==
-- entry: floor_i64
-- input { -9i64 4i64 }
-- output { -3i64 3i64 }
-- input { 9i64 -4i64 }
-- output { -3i64 -3i64 }
-- input { -8i64 4i64 }
-- output { -2i64 0i64 }
-- input { -9000000000i64 7i64 }
-- output { -1285714286i64 2i64 }

-- ==
-- entry: floor_i8
-- input { -128i8 3i8 }
-- output { -43i8 1i8 }
-- input { 127i8 -2i8 }
-- output { -64i8 -1i8 }
-- input { -1i8 127i8 }
-- output { -1i8 126i8 }

-- ==
-- entry: floor_u8
-- input { 200u8 7u8 }
-- output { 28u8 4u8 }
-- input { 255u8 16u8 }
-- output { 15u8 15u8 }

entry floor_i32 (a: i32) (b: i32) = (a / b, a % b)

entry floor_i64 (a: i64) (b: i64) = (a / b, a % b)

entry floor_i8 (a: i8) (b: i8) = (a / b, a % b)

entry floor_u8 (a: u8) (b: u8) = (a / b, a % b)
