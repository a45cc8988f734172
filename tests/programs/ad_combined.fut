-- Combinations of rules, checked by tests/ad_check.rs (finite
-- differences and the dot-product test) rather than by hand-computed
-- outputs: loops with in-place updates, scans and maps inside loops,
-- loops inside maps, while loops over arrays, scatter of rows, jvp and
-- vjp through f32 conversions.
-- ==
-- entry: f_update_loop
-- input { [0.5, 1.0, 1.5, 2.0] }

-- ==
-- entry: f_scan_in_loop
-- input { [0.5, -1.0, 1.5] 0.3 }

-- ==
-- entry: f_loop_in_map
-- input { [0.5, -1.0, 1.5] [2.0, 3.0, 4.0] }

-- ==
-- entry: f_while_array
-- input { [0.5, 1.0, 1.5] }

-- ==
-- entry: f_scatter_rows
-- input { [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]] [[0.5, -0.5]] }

-- ==
-- entry: f_hist_in_map
-- input { [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]] }

-- ==
-- entry: f_strip_array
-- input { [0.5, 1.0, 1.5] }

-- ==
-- entry: f_gather_in_loop
-- input { [0.5, 1.0, 1.5, 2.0] [1i64, 3i64, 0i64, 2i64] }

entry f_update_loop [n] (xs: [n]f64) : [n]f64 =
  loop ys = copy xs for i < n - 1 do ys with [i + 1] = ys[i] * ys[i + 1] + f64.sin ys[i]

entry f_scan_in_loop (xs: []f64) (c: f64) : f64 =
  let ys = loop ys = xs for _i < 3 do map (\y -> y * c + 0.1) (scan (+) 0 ys)
  in f64.sum (map (\y -> y * y) ys)

entry f_loop_in_map (xs: []f64) (ws: []f64) : []f64 =
  map2 (\x w -> loop a = x for _i < 3 do a * f64.cos (a * w) + 0.5) xs ws

entry f_while_array (xs: []f64) : []f64 =
  let (ys, _) = loop (ys, k) = (xs, 0i32) while k < 3 && f64.sum ys < 100 do
                  (map (\y -> y * y + 1) ys, k + 1)
  in ys

entry f_scatter_rows (xss: [][]f64) (rs: [][]f64) : [][]f64 =
  scatter (map (map (\x -> x * x)) xss) [1, 7] (map (map (* 3)) (rs ++ rs))

entry f_hist_in_map (xss: [][]f64) : [][]f64 =
  map (\xs -> hist (+) 0 2 [0, 1, 0] (map (\x -> x * x) xs)) xss

entry f_strip_array (xs: []f64) : f64 =
  let ys = #[stripmine(2)] loop ys = xs for _i < 50 do map (\y -> y + 0.01 * f64.sin (f64.sum ys) * y) ys
  in f64.sum ys

entry f_gather_in_loop (xs: []f64) (is: []i64) : []f64 =
  loop ys = xs for _i < 3 do map (\i -> ys[i] * 0.5 + xs[i] * ys[i]) is
