-- Unsuffixed literals default to i32 / f64 unless inference fixes another
-- type: an integer literal may become any numeric type (also a float), a
-- float literal any float type.
-- ==
-- entry: defaults
-- input { }
-- output { 3 2.5 }

-- ==
-- entry: from_context
-- input { 7i64 1.5f32 }
-- output { 8i64 3.5f32 4u8 [1i8, -2i8, 3i8] }

entry defaults = (1 + 2, 1.5 + 1)

entry from_context (n: i64) (x: f32) =
  let a = n + 1
  let b = x * 2 + 0.5
  let c: u8 = 250
  let xs: []i8 = [1, -2, 3]
  in (a, b, c + 10, xs)
