-- `tabulate n f` (f applied to 0..n-1) and `tabulate_2d n m f`.
-- ==
-- entry: squares
-- input { 4i64 }
-- output { [0i64, 1i64, 4i64, 9i64] }
-- input { 0i64 }
-- output { empty([0]i64) }

-- ==
-- entry: table
-- input { 2i64 3i64 }
-- output { [[0, 1, 2], [10, 11, 12]] }

-- ==
-- entry: halves
-- input { 3i64 }
-- output { [0.0, 0.5, 1.0] }

entry squares (n: i64) = tabulate n (\i -> i * i)

entry table (n: i64) (m: i64) = tabulate_2d n m (\i j -> i32.i64 (i * 10 + j))

entry halves (n: i64) = tabulate n (\i -> f64.i64 i / 2)
