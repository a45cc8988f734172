-- Operations on empty arrays keep working and keep inner dimensions.
-- ==
-- entry: ops
-- input { empty([0]i32) }
-- output { empty([0]i32) 0 empty([0]i32) empty([0]i32) 0i64 empty([0]i32) }

-- ==
-- entry: make
-- input { 0i64 }
-- output { empty([0]i64) empty([0]f64) empty([0][2]i32) [5] }

-- ==
-- entry: inner
-- input { empty([0][3]f64) }
-- output { 0i64 3i64 empty([0]f64) empty([3][0]f64) }

entry ops (xs: []i32) =
  (map (+1) xs, reduce (+) 0 xs, scan (+) 0 xs, filter (> 0) xs, length xs, reverse xs)

entry make (n: i64) =
  (iota n, replicate n 1.5, replicate n [1, 2], replicate n 0 ++ [5])

entry inner [n][m] (xss: [n][m]f64) = (n, m, map f64.sum xss, transpose xss)
