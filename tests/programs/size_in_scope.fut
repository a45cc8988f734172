-- Size parameters are in scope as i64 values in the body: in arithmetic,
-- as loop bounds, as arguments to iota/replicate, and in polymorphic
-- functions.
-- ==
-- entry: main
-- input { [1.0, 2.0, 3.0, 4.0] }
-- output { 4i64 2.5 8i64 [0i64, 1i64, 2i64, 3i64] 3i64 }
-- input { empty([0]f64) }
-- output { 0i64 f64.nan 0i64 empty([0]i64) -1i64 }

-- ==
-- entry: dims
-- input { [[1, 2, 3], [4, 5, 6]] }
-- output { 2i64 3i64 [[0, 0], [0, 0], [0, 0]] }
-- input { empty([0][4]i32) }
-- output { 0i64 4i64 empty([4][0]i32) }

-- ==
-- entry: loop_n
-- input { [5, 6, 7] }
-- output { 18 }

def count [n] (_: [n]f64) : i64 = n

def mean [n] (xs: [n]f64) : f64 = f64.sum xs / f64.i64 n

def last_index [n] 't (_: [n]t) : i64 = n - 1

entry main [n] (xs: [n]f64) = (count xs, mean xs, n * 2, iota n, last_index xs)

entry dims [n][m] (a: [n][m]i32) = (n, m, replicate m (replicate n 0))

entry loop_n [n] (xs: [n]i32) = loop acc = 0 for i < n do acc + xs[i]
