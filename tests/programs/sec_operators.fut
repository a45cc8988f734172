-- Operator sections: `(op)` for the whole operator, `(x op)` with the left
-- operand fixed, `(op x)` with the right operand fixed (`(-x)` would be a
-- negation, so `-` only appears as `(-)` and `(x-)`).
-- ==
-- entry: whole
-- input { [1, -7, 4, 3] }
-- output { 1 -84 [-2, -11, 11, 2] }

-- ==
-- entry: left
-- input { [1, -7, 4, 3] }
-- output { [9, 17, 6, 7] [2, -14, 8, 6] [100, -15, 25, 33] }

-- ==
-- entry: right
-- input { [1, -7, 4, 3] }
-- output { [2, -6, 5, 4] [0, -4, 2, 1] [1, 2, 1, 0] [1, -7] [false, false, true, true] }

-- ==
-- entry: with_vars
-- input { 5 [1, 10] }
-- output { [4, -5] [5, 50] [true, false] }

-- ==
-- entry: floats
-- input { [1.0, 3.0] }
-- output { [1.0, 9.0] [2.0, 8.0] [0.5, 1.5] }

entry whole (xs: []i32) =
  (reduce (+) 0 xs, reduce (*) 1 xs, map2 (-) xs (reverse xs))

entry left (xs: []i32) = (map (10-) xs, map (2*) xs, map (100/) xs)

entry right (xs: []i32) =
  (map (+1) xs, map (/2) xs, map (%3) xs, filter (<3) xs, map (>=2) xs)

entry with_vars (k: i32) (xs: []i32) = (map (k-) xs, map (*k) xs, map (<k) xs)

entry floats (xs: []f64) = (map (**2) xs, map (2**) xs, map (/2) xs)
