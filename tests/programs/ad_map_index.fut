-- AD of indexing and `map`: constant and computed indices, free scalars
-- and free arrays of the mapped function (their adjoints are summed or
-- accumulated), gathers with repeated indices, nested maps.
-- ==
-- entry: f_index
-- input { [1.0, 2.0, 3.0, 4.0] [[1.0, 2.0], [3.0, 4.0]] }
-- output { 12.0 }

-- ==
-- entry: vjp_index
-- input { [1.0, 2.0, 3.0, 4.0] [[1.0, 2.0], [3.0, 4.0]] }
-- output { [3.0, 3.0, 1.0, 0.0] [[1.0, 1.0], [2.0, 0.0]] }

-- ==
-- entry: f_free_scalar
-- input { 0.5 [1.0, 2.0, 3.0] }
-- output { [0.979425538604203, 2.479425538604203, 4.979425538604203] }

-- ==
-- entry: vjp_free_scalar
-- input { 0.5 [1.0, 2.0, 3.0] [1.0, -1.0, 2.0] }
-- output { 16.755165123780746 [1.0, -2.0, 6.0] }

-- ==
-- entry: f_free_array
-- input { [1.0, 2.0, 3.0] [4.0, 5.0, 6.0] }
-- output { [8.0, 15.0, 6.0] }

-- ==
-- entry: vjp_free_array
-- input { [1.0, 2.0, 3.0] [4.0, 5.0, 6.0] }
-- output { [6.0, 4.0, 5.0] [2.0, 3.0, 1.0] }

-- ==
-- entry: f_gather
-- input { [1.0, 2.0, 3.0, 4.0] [0i64, 2i64, 2i64, 1i64] }
-- output { 23.0 }

-- ==
-- entry: vjp_gather
-- input { [1.0, 2.0, 3.0, 4.0] [0i64, 2i64, 2i64, 1i64] }
-- output { [2.0, 4.0, 12.0, 0.0] }

-- ==
-- entry: f_matvec
-- input { [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]] [1.0, -1.0] }
-- output { [-1.0, -1.0, -1.0] }

-- ==
-- entry: vjp_matvec
-- input { [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]] [1.0, -1.0] [1.0, 2.0, 3.0] }
-- output { [[1.0, -1.0], [2.0, -2.0], [3.0, -3.0]] [22.0, 28.0] }

-- ==
-- entry: f_outer
-- input { [0.5, 1.0] [0.25, 0.75] }
-- output { [[1.4090254166877414, 1.153800783071405],
--           [2.367000016612675, 2.0340254166877414]] }

-- ==
-- entry: vjp_outer
-- input { [0.5, 1.0] [0.25, 0.75] }
-- output { [3.0628261997591464, 4.401025433300417]
--          [-1.9010254333004162, -0.5628261997591463] }

-- ==
-- entry: f_normalize
-- input { [1.0, 2.0, 3.0] }
-- output { [0.16666666666666666, 0.3333333333333333, 0.5] }

-- ==
-- entry: vjp_normalize
-- input { [1.0, 2.0, 3.0] }
-- output { [0.1388888888888889, -0.027777777777777776, -0.027777777777777776] }

entry f_index (xs: []f64) (xss: [][]f64) : f64 =
  xs[0] * xs[2] + xs[1] * xss[1, 0] + f64.sum xss[0]

entry vjp_index (xs: []f64) (xss: [][]f64) =
  vjp (\(xs, xss) -> f_index xs xss) (xs, xss) 1

entry f_free_scalar (a: f64) (xs: []f64) : []f64 =
  map (\x -> a * x * x + f64.sin a) xs

entry vjp_free_scalar (a: f64) (xs: []f64) (ybar: []f64) =
  vjp (\(a, xs) -> f_free_scalar a xs) (a, xs) ybar

-- Gathers from two free arrays of the mapped function.
entry f_free_array [n] (xs: [n]f64) (ws: [n]f64) : [n]f64 =
  map (\i -> ws[i] * xs[(i + 1) % n]) (iota n)

entry vjp_free_array [n] (xs: [n]f64) (ws: [n]f64) =
  vjp (\(xs, ws) -> f_free_array xs ws) (xs, ws) (replicate n 1)

entry f_gather (xs: []f64) (is: []i64) : f64 =
  f64.sum (map (\i -> xs[i] * xs[i]) is)

entry vjp_gather (xs: []f64) (is: []i64) = vjp (\xs -> f_gather xs is) xs 1

entry f_matvec (m: [][]f64) (v: []f64) : []f64 =
  map (\row -> f64.sum (map2 (*) row v)) m

entry vjp_matvec (m: [][]f64) (v: []f64) (ybar: []f64) =
  vjp (\(m, v) -> f_matvec m v) (m, v) ybar

entry f_outer (xs: []f64) (ys: []f64) : [][]f64 =
  map (\x -> map (\y -> x * y + f64.exp (x - y)) ys) xs

entry vjp_outer [n][m] (xs: [n]f64) (ys: [m]f64) =
  vjp (\(xs, ys) -> f_outer xs ys) (xs, ys) (replicate n (replicate m 1))

-- The free scalar `s` of the map depends on the input.
entry f_normalize (xs: []f64) : []f64 =
  let s = f64.sum xs in map (\x -> x / s) xs

entry vjp_normalize [n] (xs: [n]f64) =
  vjp f_normalize xs (tabulate n (\i -> if i == 0 then 1 else 0))
