-- AD of array functions (their adjoints are the transposed linear maps):
-- replicate, rep, iota, transpose, reverse, rotate, slices (strided,
-- negative stride, 2-D), concat/++, flatten, unflatten, zip/unzip, copy
-- with an in-place update, head/last/tail/init/take/drop.
-- ==
-- entry: f_replicate
-- input { 2.0 [1.0, 3.0] }
-- output { [[2.0, 6.0], [2.0, 6.0]] }

-- ==
-- entry: vjp_replicate
-- input { 2.0 [1.0, 3.0] [[1.0, 2.0], [3.0, 4.0]] }
-- output { 22.0 [8.0, 12.0] }

-- ==
-- entry: f_rep
-- input { 2.0 [1.0, 3.0] }
-- output { [4.0, 12.0] }

-- ==
-- entry: vjp_rep
-- input { 2.0 [1.0, 3.0] }
-- output { 16.0 [4.0, 4.0] }

-- ==
-- entry: f_iota
-- input { [5.0, 6.0, 7.0] }
-- output { [0.0, 6.0, 14.0] }

-- ==
-- entry: vjp_iota
-- input { [5.0, 6.0, 7.0] }
-- output { [0.0, 1.0, 2.0] }

-- ==
-- entry: f_transpose
-- input { [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]] }
-- output { [[1.0, 16.0], [4.0, 25.0], [9.0, 36.0]] }

-- ==
-- entry: vjp_transpose
-- input { [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]] [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]] }
-- output { [[2.0, 0.0, 6.0], [0.0, 10.0, 12.0]] }

-- ==
-- entry: f_reverse
-- input { [1.0, 2.0, 3.0] }
-- output { [3.0, 4.0, 3.0] }

-- ==
-- entry: vjp_reverse
-- input { [1.0, 2.0, 3.0] [1.0, 2.0, 3.0] }
-- output { [12.0, 8.0, 4.0] }

-- ==
-- entry: f_rotate
-- input { [1.0, 2.0, 4.0, 8.0] }
-- output { [-6.0, 3.0, 6.0, -3.0] }

-- ==
-- entry: vjp_rotate
-- input { [1.0, 2.0, 4.0, 8.0] [1.0, 2.0, 3.0, 4.0] }
-- output { [2.0, -2.0, -2.0, 2.0] }

-- ==
-- entry: f_slices
-- input { [1.0, 2.0, 3.0, 4.0, 5.0] [[1.0, 2.0], [3.0, 4.0]] }
-- output { 49.5 }

-- ==
-- entry: vjp_slices
-- input { [1.0, 2.0, 3.0, 4.0, 5.0] [[1.0, 2.0], [3.0, 4.0]] }
-- output { [1.0, 4.0, 7.0, 0.0, 1.5] [[0.0, 3.0], [1.0, 4.0]] }

-- ==
-- entry: f_concat
-- input { [1.0, 2.0] [3.0] }
-- output { [1.0, 2.0, 6.0, 1.0, 2.0] }

-- ==
-- entry: vjp_concat
-- input { [1.0, 2.0] [3.0] [1.0, 2.0, 3.0, 4.0, 5.0] }
-- output { [5.0, 7.0] [6.0] }

-- ==
-- entry: f_flatten
-- input { [[1.0, 2.0], [3.0, 4.0]] }
-- output { [1.0, 4.0, 9.0, 16.0] }

-- ==
-- entry: vjp_flatten
-- input { [[1.0, 2.0], [3.0, 4.0]] [1.0, 2.0, 3.0, 4.0] }
-- output { [[2.0, 8.0], [18.0, 32.0]] }

-- ==
-- entry: f_unflatten
-- input { [1.0, 2.0, 3.0, 4.0] }
-- output { [2.0, 12.0] }

-- ==
-- entry: vjp_unflatten
-- input { [1.0, 2.0, 3.0, 4.0] }
-- output { [2.0, 1.0, 4.0, 3.0] }

-- ==
-- entry: f_zip
-- input { [1.0, 2.0] [3.0, 4.0] }
-- output { [3.0, 8.0] [4.0, 6.0] }

-- ==
-- entry: vjp_zip
-- input { [1.0, 2.0] [3.0, 4.0] }
-- output { [4.0, 3.0] [2.0, 1.0] }

-- ==
-- entry: f_copy_update
-- input { [1.0, 2.0, 3.0] }
-- output { [6.0, 2.0, 3.0] }

-- ==
-- entry: vjp_copy_update
-- input { [1.0, 2.0, 3.0] }
-- output { [0.0, 4.0, 3.0] }

-- ==
-- entry: f_ends
-- input { [1.0, 2.0, 3.0, 4.0] }
-- output { 28.0 }

-- ==
-- entry: vjp_ends
-- input { [1.0, 2.0, 3.0, 4.0] }
-- output { [10.0, 7.0, 3.0, 5.0] }

entry f_replicate [n] (x: f64) (xs: [n]f64) : [][n]f64 =
  replicate 2 (map2 (*) xs (replicate n x))

entry vjp_replicate (x: f64) (xs: []f64) (ybar: [][]f64) =
  vjp (\(x, xs) -> f_replicate x xs) (x, xs) ybar

entry f_rep (x: f64) (xs: []f64) : []f64 = map2 (*) xs (rep (x * x))

entry vjp_rep [n] (x: f64) (xs: [n]f64) =
  vjp (\(x, xs) -> f_rep x xs) (x, xs) (replicate n 1)

entry f_iota [n] (xs: [n]f64) : [n]f64 = map2 (\i x -> f64.i64 i * x) (iota n) xs

entry vjp_iota [n] (xs: [n]f64) = vjp f_iota xs (replicate n 1)

entry f_transpose (xss: [][]f64) : [][]f64 = map (map (\x -> x * x)) (transpose xss)

entry vjp_transpose (xss: [][]f64) (ybar: [][]f64) = vjp f_transpose xss ybar

entry f_reverse (xs: []f64) : []f64 = map2 (*) (reverse xs) xs

entry vjp_reverse (xs: []f64) (ybar: []f64) = vjp f_reverse xs ybar

entry f_rotate (xs: []f64) : []f64 = map2 (-) (rotate 1 xs) (rotate (-1) xs)

entry vjp_rotate (xs: []f64) (ybar: []f64) = vjp f_rotate xs ybar

entry f_slices (xs: []f64) (xss: [][]f64) : f64 =
  f64.sum (map (\x -> x * x) xs[1:3]) + f64.sum xs[::2] + 3 * f64.sum xss[:, 1]
  + f64.sum xss[1] + xs[::-1][0] * 0.5

entry vjp_slices (xs: []f64) (xss: [][]f64) =
  vjp (\(xs, xss) -> f_slices xs xss) (xs, xss) 1

entry f_concat (xs: []f64) (ys: []f64) : []f64 = concat xs (map (* 2) ys) ++ xs

entry vjp_concat (xs: []f64) (ys: []f64) (ybar: []f64) =
  vjp (\(xs, ys) -> f_concat xs ys) (xs, ys) ybar

entry f_flatten (xss: [][]f64) : []f64 = flatten (map (map (\x -> x * x)) xss)

entry vjp_flatten (xss: [][]f64) (ybar: []f64) = vjp f_flatten xss ybar

entry f_unflatten (xs: []f64) : []f64 = map (\r -> r[0] * r[1]) (unflatten (xs :> [2 * 2]f64))

entry vjp_unflatten (xs: []f64) = vjp f_unflatten xs [1, 1]

entry f_zip (xs: []f64) (ys: []f64) : ([]f64, []f64) =
  unzip (map (\(x, y) -> (x * y, x + y)) (zip xs ys))

entry vjp_zip (xs: []f64) (ys: []f64) =
  vjp (\(xs, ys) -> f_zip xs ys) (xs, ys) ([1, 1], [1, -1])

entry f_copy_update (xs: []f64) : []f64 =
  let ys = copy xs in ys with [0] = ys[1] * ys[2]

entry vjp_copy_update [n] (xs: [n]f64) = vjp f_copy_update xs (replicate n 1)

entry f_ends (xs: []f64) : f64 =
  head xs * last xs + f64.sum (tail xs) - f64.sum (init xs)
  + f64.sum (take 2 xs) * f64.sum (drop 2 xs)

entry vjp_ends (xs: []f64) = vjp f_ends xs 1
