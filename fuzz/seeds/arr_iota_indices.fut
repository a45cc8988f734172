-- `iota n` (0..n-1 as i64, empty for 0) and `indices xs`.
-- ==
-- entry: io
-- input { 5i64 }
-- output { [0i64, 1i64, 2i64, 3i64, 4i64] [0i64, 2i64, 4i64, 6i64, 8i64] }
-- input { 0i64 }
-- output { empty([0]i64) empty([0]i64) }

-- ==
-- entry: ind
-- input { [1.5, 2.5] }
-- output { [0i64, 1i64] }
-- input { empty([0]f64) }
-- output { empty([0]i64) }

entry io (n: i64) = (iota n, map (\i -> i * 2) (iota n))

entry ind (xs: []f64) = indices xs
