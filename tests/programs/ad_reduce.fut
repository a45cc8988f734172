-- AD of `reduce`: the special rules for + (also of rows), * (with no,
-- one and two zeros), min and max (the chosen element gets the adjoint),
-- and the general rule for other associative operators, on scalars,
-- pairs and rows.
-- ==
-- entry: f_sum_squares
-- input { [1.0, 2.0, 3.0] }
-- output { 14.0 }

-- ==
-- entry: vjp_sum_squares
-- input { [1.0, 2.0, 3.0] }
-- output { [2.0, 4.0, 6.0] }

-- ==
-- entry: f_prod
-- input { [1.0, 2.0, 3.0] }
-- output { 6.0 }
-- input { [2.0, 0.0, 3.0] }
-- output { 0.0 }
-- input { [0.0, 2.0, 0.0] }
-- output { 0.0 }

-- ==
-- entry: vjp_prod jvp_prod_grad
-- input { [1.0, 2.0, 3.0] }
-- output { [6.0, 3.0, 2.0] }
-- input { [2.0, 0.0, 3.0] }
-- output { [0.0, 6.0, 0.0] }
-- input { [0.0, 2.0, 0.0] }
-- output { [0.0, 0.0, 0.0] }

-- ==
-- entry: f_min_max
-- input { [3.0, 1.0, 2.0, 5.0] }
-- output { 1.0 5.0 25.0 }

-- ==
-- entry: vjp_min_max
-- input { [3.0, 1.0, 2.0, 5.0] }
-- output { [0.0, 1.0, 0.0, 3.0] }

-- ==
-- entry: f_custom
-- input { [1.0, 2.0, 3.0] }
-- output { 23.0 }

-- ==
-- entry: vjp_custom
-- input { [1.0, 2.0, 3.0] }
-- output { [12.0, 8.0, 6.0] }

-- ==
-- entry: f_affine
-- input { [2.0, 3.0, 0.5] [1.0, 1.0, 1.0] }
-- output { 3.0 3.0 }

-- ==
-- entry: vjp_affine
-- input { [2.0, 3.0, 0.5] [1.0, 1.0, 1.0] }
-- output { [1.5, 1.5, 10.0] [1.5, 0.5, 1.0] }

-- ==
-- entry: f_rows_sum
-- input { [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]] }
-- output { [9.0, 12.0] }

-- ==
-- entry: vjp_rows_sum
-- input { [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]] [1.0, -1.0] }
-- output { [[1.0, -1.0], [1.0, -1.0], [1.0, -1.0]] }

-- ==
-- entry: f_rows_prod
-- input { [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]] }
-- output { [15.0, 48.0] }

-- ==
-- entry: vjp_rows_prod
-- input { [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]] [1.0, 1.0] }
-- output { [[15.0, 24.0], [5.0, 12.0], [3.0, 8.0]] }

entry f_sum_squares (xs: []f64) : f64 =
  reduce_comm (+) 0 (map (\x -> x * x) xs)

entry vjp_sum_squares (xs: []f64) = vjp f_sum_squares xs 1

entry f_prod (xs: []f64) : f64 = reduce (*) 1 xs

entry vjp_prod (xs: []f64) = vjp f_prod xs 1

-- The gradient by forward mode, one basis tangent at a time.
entry jvp_prod_grad [n] (xs: [n]f64) =
  map (\i -> jvp f_prod xs (tabulate n (\j -> if i == j then 1 else 0))) (iota n)

entry f_min_max (xs: []f64) : (f64, f64, f64) =
  (f64.minimum xs, reduce f64.max (-f64.inf) xs, f64.maximum (map (\x -> x * x) xs))

entry vjp_min_max (xs: []f64) = vjp f_min_max xs (1, 1, 0.2)

-- a ⊕ b = a + b + a·b is associative with neutral element 0.
entry f_custom (xs: []f64) : f64 = reduce (\a b -> a + b + a * b) 0 xs

entry vjp_custom (xs: []f64) = vjp f_custom xs 1

-- Composition of affine maps x ↦ a·x + b: associative, on pairs.
entry f_affine (as: []f64) (bs: []f64) : (f64, f64) =
  reduce (\(a1, b1) (a2, b2) -> (a1 * a2, b1 * a2 + b2)) (1, 0) (zip as bs)

entry vjp_affine (as: []f64) (bs: []f64) =
  vjp (\(as, bs) -> f_affine as bs) (as, bs) (1, 1)

entry f_rows_sum [m] (xss: [][m]f64) : [m]f64 =
  reduce (map2 (+)) (replicate m 0) xss

entry vjp_rows_sum [m] (xss: [][m]f64) (ybar: [m]f64) = vjp f_rows_sum xss ybar

entry f_rows_prod [m] (xss: [][m]f64) : [m]f64 =
  reduce (map2 (*)) (replicate m 1) xss

entry vjp_rows_prod [m] (xss: [][m]f64) (ybar: [m]f64) = vjp f_rows_prod xss ybar
