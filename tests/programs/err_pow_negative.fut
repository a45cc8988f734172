-- An integer raised to a negative power is a run-time error (Futhark's
-- safety check), at every integer type and inside a map; a float
-- exponent may be negative.
-- ==
-- entry: ipow
-- input { 2 -1 }
-- error: \b[Nn]egative exponent
-- input { 2 10 }
-- output { 1024 }
-- input { 3 0 }
-- output { 1 }

-- ==
-- entry: in_map
-- input { 2i64 [3i64, -1i64] }
-- error: \b[Nn]egative exponent
-- input { 2i64 [3i64, 0i64] }
-- output { [8i64, 1i64] }

-- ==
-- entry: upow
-- input { 2u8 7u8 }
-- output { 128u8 }

-- ==
-- entry: fpow
-- input { 2.0 -1.0 }
-- output { 0.5 }

entry ipow (b: i32) (e: i32) = b ** e

entry in_map (b: i64) (es: []i64) = map (b **) es

entry upow (b: u8) (e: u8) = b ** e

entry fpow (b: f64) (e: f64) = b ** e
