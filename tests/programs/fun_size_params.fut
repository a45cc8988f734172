-- Size parameters `[n]`, `[n][m]` on functions and entry points, bound
-- from the argument shapes (also for empty arrays), and sizes in return
-- types.
-- ==
-- input { [1, 2, 3] [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]] }
-- output { 3i64 3i64 3i64 2i64 [0i64, 1i64, 2i64] [1, 2, 3, 0, 0, 0] }
-- input { empty([0]i32) empty([0][2]f64) }
-- output { 0i64 0i64 0i64 2i64 empty([0]i64) empty([0]i32) }

def len [n] (xs: [n]i32) : i64 = n

def dims [n][m] (xss: [n][m]f64) : (i64, i64) = (n, m)

def mk [n] (_: [n]i32) : [n]i64 = iota n

def pad [n] (xs: [n]i32) : []i32 = xs ++ replicate n 0

entry main [k] (xs: [k]i32) (yss: [][]f64) =
  let (r, c) = dims yss
  in (len xs, k, r, c, mk xs, pad xs)
