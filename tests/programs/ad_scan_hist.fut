-- AD of `scan` (the + rule, the general rule for *, max and a custom
-- operator, element-wise scans of rows), `hist`/`reduce_by_index` (+, *
-- with and without zeros, min, max; out-of-bounds indices are ignored and
-- get no adjoint) and `scatter` (overwritten elements get no adjoint).
-- ==
-- entry: f_scan_add
-- input { [1.0, 2.0, 3.0] }
-- output { [1.0, 5.0, 14.0] }

-- ==
-- entry: vjp_scan_add
-- input { [1.0, 2.0, 3.0] }
-- output { [6.0, 8.0, 6.0] }

-- ==
-- entry: f_scan_mul
-- input { [2.0, 0.5, 3.0] }
-- output { [2.0, 1.0, 3.0] }
-- input { [2.0, 0.0, 3.0] }
-- output { [2.0, 0.0, 0.0] }

-- ==
-- entry: vjp_scan_mul
-- input { [2.0, 0.5, 3.0] }
-- output { [3.0, 8.0, 1.0] }
-- input { [2.0, 0.0, 3.0] }
-- output { [1.0, 8.0, 0.0] }

-- ==
-- entry: f_scan_custom
-- input { [1.0, 2.0, 3.0] }
-- output { [1.0, 5.0, 23.0] }

-- ==
-- entry: vjp_scan_custom
-- input { [1.0, 2.0, 3.0] }
-- output { [16.0, 10.0, 6.0] }

-- ==
-- entry: f_scan_max
-- input { [1.0, 3.0, 2.0, 5.0] }
-- output { [1.0, 3.0, 3.0, 5.0] }

-- ==
-- entry: vjp_scan_max
-- input { [1.0, 3.0, 2.0, 5.0] }
-- output { [1.0, 2.0, 0.0, 1.0] }

-- ==
-- entry: f_scan_rows
-- input { [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]] }
-- output { [[1.0, 2.0], [4.0, 6.0], [9.0, 12.0]] }

-- ==
-- entry: vjp_scan_rows
-- input { [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]] }
-- output { [[3.0, 3.0], [2.0, 2.0], [1.0, 1.0]] }

-- ==
-- entry: f_rbi_add
-- input { [1.0, 2.0, 3.0] [1.0, 2.0, 3.0, 4.0, 5.0] }
-- output { [5.0, 7.0, 5.0] }

-- ==
-- entry: vjp_rbi_add
-- input { [1.0, 2.0, 3.0] [1.0, 2.0, 3.0, 4.0, 5.0] }
-- output { [1.0, 2.0, 3.0] [1.0, 3.0, 1.0, 0.0, 2.0] }

-- ==
-- entry: f_rbi_mul
-- input { [1.0, 2.0, 3.0] [2.0, 3.0, 4.0, 5.0, 0.5] }
-- output { [8.0, 1.0, 9.0] }
-- input { [1.0, 2.0, 3.0] [2.0, 3.0, 0.0, 5.0, 0.5] }
-- output { [0.0, 1.0, 9.0] }
-- input { [1.0, 2.0, 3.0] [2.0, 3.0, 4.0, 0.0, 0.5] }
-- output { [8.0, 1.0, 9.0] }

-- ==
-- entry: vjp_rbi_mul
-- input { [1.0, 2.0, 3.0] [2.0, 3.0, 4.0, 5.0, 0.5] }
-- output { [8.0, 0.5, 3.0] [4.0, 3.0, 2.0, 0.0, 2.0] }
-- input { [1.0, 2.0, 3.0] [2.0, 3.0, 0.0, 5.0, 0.5] }
-- output { [0.0, 0.5, 3.0] [0.0, 3.0, 2.0, 0.0, 2.0] }
-- input { [1.0, 2.0, 3.0] [2.0, 3.0, 4.0, 0.0, 0.5] }
-- output { [8.0, 0.5, 3.0] [4.0, 3.0, 2.0, 0.0, 2.0] }

-- ==
-- entry: f_hist_min_max
-- input { [2.0, 3.0, 4.0, 5.0, 0.5] }
-- output { [2.0, 0.5, 3.0] [4.0, 0.5, 3.0] }

-- ==
-- entry: vjp_hist_min_max
-- input { [2.0, 3.0, 4.0, 5.0, 0.5] }
-- output { [1.0, 3.0, 0.0, 0.0, 3.0] }

-- ==
-- entry: f_rbi_max
-- input { [3.0, 1.0, 10.0] [2.0, 3.0, 4.0, 5.0, 0.5] }
-- output { [4.0, 1.0, 10.0] }

-- ==
-- entry: vjp_rbi_max
-- input { [3.0, 1.0, 10.0] [2.0, 3.0, 4.0, 5.0, 0.5] }
-- output { [0.0, 2.0, 3.0] [0.0, 0.0, 1.0, 0.0, 0.0] }

-- ==
-- entry: f_scatter
-- input { [1.0, 2.0, 3.0, 4.0, 5.0] [1.0, 2.0, 3.0] }
-- output { [4.0, 2.0, 3.0, 4.0, 1.0] }

-- ==
-- entry: vjp_scatter
-- input { [1.0, 2.0, 3.0, 4.0, 5.0] [1.0, 2.0, 3.0] }
-- output { [0.0, 2.0, 3.0, 4.0, 0.0] [10.0, 4.0, 0.0] }

entry f_scan_add (xs: []f64) : []f64 = scan (+) 0 (map (\x -> x * x) xs)

entry vjp_scan_add [n] (xs: [n]f64) = vjp f_scan_add xs (replicate n 1)

entry f_scan_mul (xs: []f64) : []f64 = scan (*) 1 xs

entry vjp_scan_mul [n] (xs: [n]f64) = vjp f_scan_mul xs (replicate n 1)

entry f_scan_custom (xs: []f64) : []f64 = scan (\a b -> a + b + a * b) 0 xs

entry vjp_scan_custom [n] (xs: [n]f64) = vjp f_scan_custom xs (replicate n 1)

entry f_scan_max (xs: []f64) : []f64 = scan f64.max (-f64.inf) xs

entry vjp_scan_max [n] (xs: [n]f64) = vjp f_scan_max xs (replicate n 1)

entry f_scan_rows [m] (xss: [][m]f64) : [][m]f64 = scan (map2 (+)) (replicate m 0) xss

entry vjp_scan_rows [n][m] (xss: [n][m]f64) =
  vjp f_scan_rows xss (replicate n (replicate m 1))

-- Index 7 is out of bounds: its value is ignored.
def is : []i64 = [0, 2, 0, 7, 1]

entry f_rbi_add (dest: []f64) (vs: []f64) : []f64 =
  reduce_by_index (copy dest) (+) 0 is vs

entry vjp_rbi_add (dest: []f64) (vs: []f64) =
  vjp (\(dest, vs) -> f_rbi_add dest vs) (dest, vs) [1, 2, 3]

entry f_rbi_mul (dest: []f64) (vs: []f64) : []f64 =
  reduce_by_index (copy dest) (*) 1 is vs

entry vjp_rbi_mul (dest: []f64) (vs: []f64) =
  vjp (\(dest, vs) -> f_rbi_mul dest vs) (dest, vs) [1, 1, 1]

entry f_hist_min_max (vs: []f64) : ([]f64, []f64) =
  (hist f64.min f64.inf 3 is vs, hist f64.max (-f64.inf) 3 is vs)

entry vjp_hist_min_max (vs: []f64) = vjp f_hist_min_max vs ([1, 2, 3], [0, 1, 0])

entry f_rbi_max (dest: []f64) (vs: []f64) : []f64 =
  reduce_by_index (copy dest) f64.max (-f64.inf) is vs

entry vjp_rbi_max (dest: []f64) (vs: []f64) =
  vjp (\(dest, vs) -> f_rbi_max dest vs) (dest, vs) [1, 2, 3]

-- Index 9 is out of bounds: its value is ignored.
entry f_scatter (dest: []f64) (vs: []f64) : []f64 =
  scatter (copy dest) [4, 0, 9] (map (\v -> v * v) vs)

entry vjp_scatter (dest: []f64) (vs: []f64) =
  vjp (\(dest, vs) -> f_scatter dest vs) (dest, vs) [1, 2, 3, 4, 5]

-- ==
-- entry: vjp_no_bins
-- input { [1.0, 2.0] }
-- output { [0.0, 0.0] [0.0, 0.0] [0.0, 0.0] [0.0, 0.0] }

-- With no bins (or an empty destination) every value is ignored.
entry vjp_no_bins (vs: []f64) =
  ( vjp (\vs -> f64.sum (hist (+) 0 0 [0, 1] vs)) vs 1
  , vjp (\vs -> f64.sum (hist (*) 1 0 [0, 1] vs)) vs 1
  , vjp (\vs -> f64.sum (hist f64.max 0 0 [0, 1] vs)) vs 1
  , vjp (\vs -> f64.sum (scatter (replicate 0 0.0) [0, 1] vs)) vs 1 )
