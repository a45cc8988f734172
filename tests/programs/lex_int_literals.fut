-- Integer literals: decimal, hexadecimal (both cases), binary, and `_`
-- digit separators. Unsuffixed literals default to i32.
-- ==
-- entry: decimal
-- input { }
-- output { 0 42 1000000 123456789 }

-- ==
-- entry: hex
-- input { }
-- output { 255 255 16 3735928559i64 }

-- ==
-- entry: binary
-- input { }
-- output { 10 0 255i64 }

entry decimal = (0, 42, 1_000_000, 123_456_789)

entry hex = (0xff, 0xFF, 0x10, 0xdead_beefi64)

entry binary = (0b1010, 0b0, 0b1111_1111i64)
