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

-- ==
-- entry: f_reduce_rows f_scan_rows f_min_rows f_transpose_loop f_gather_2d f_min_max_rows
-- input { [[1.0, 2.0, 0.5], [0.5, 3.0, 2.0]] }

-- ==
-- entry: f_hist_in_loop f_scatter_in_loop f_arrays_in_map f_while_in_map f_strip3_array
-- input { [0.5, 1.0, 1.5] [2.0, 0.5, 1.0] }

-- ==
-- entry: f_strip_nested f_if_in_loop f_pair_loop f_if_in_map f_rows_of_pairs
-- input { [0.5, 1.0, 1.5] [2.0, 0.5, 1.0] }

-- ==
-- entry: f_product_rows
-- input { [[1.0, 2.0, 0.5], [0.5, 3.0, 2.0]] }
-- input { [[1.0, 0.0, 0.5], [0.0, 3.0, 0.0]] }

entry f_reduce_rows (xss: [][]f64) : []f64 =
  map (\row -> reduce (\a b -> a + b + a * b) 0 row) xss

entry f_scan_rows (xss: [][]f64) : [][]f64 = map (\row -> scan (*) 1 row) xss

entry f_min_rows (xss: [][]f64) : []f64 =
  map (\row -> f64.minimum (map (\x -> x * x) row)) xss

entry f_transpose_loop (xss: [][]f64) : [][]f64 =
  loop a = xss for _i < 2 do map (map (\x -> f64.sin x)) (transpose (transpose a))

-- Gathers from a free 2-D array two map levels deep.
entry f_gather_2d [n][m] (xss: [n][m]f64) : [m][n]f64 =
  map (\i -> map (\j -> xss[j, i] * xss[j, (i + 1) % m]) (iota n)) (iota m)

-- max a b · min a b = a · b: smooth even where a = b.
entry f_min_max_rows (xss: [][]f64) : [][]f64 =
  map (\row -> map2 (\a b -> f64.max a b * f64.min a b) row (reverse row)) xss

entry f_product_rows (xss: [][]f64) : []f64 =
  map (\row -> f64.product (map2 (*) row (rotate 1 row))) xss

entry f_hist_in_loop (xs: []f64) (ys: []f64) : []f64 =
  loop acc = xs for _i < 2 do
    reduce_by_index (copy acc) (+) 0 [0, 2, 0] (map2 (*) acc ys)

entry f_scatter_in_loop (xs: []f64) (ys: []f64) : []f64 =
  loop acc = xs for _i < 2 do scatter (copy acc) [2, 0] (map2 (*) acc[:2] ys[1:])

entry f_arrays_in_map (xs: []f64) (ys: []f64) : []f64 =
  map (\x -> let a = [x, x * x] ++ ys in (copy a with [0] = 3 * x)[0] + a[1] * a[3]) xs

-- Each element iterates a different number of times.
entry f_while_in_map (xs: []f64) (ys: []f64) : []f64 =
  map2 (\x y -> loop a = x while a < 5 do a * (1.5 + y)) xs ys

-- 17 iterations: not a cube.
entry f_strip3_array (xs: []f64) (ys: []f64) : f64 =
  let zs = #[stripmine(3)] loop zs = xs for i < 17 do
             map2 (\z y -> z * 0.9 + y * 0.01 * f64.i64 i) zs ys
  in f64.sum (map (\z -> z * z) zs)

entry f_strip_nested (xs: []f64) (ys: []f64) : f64 =
  loop acc = 0 for i < 3 do
    acc + (#[stripmine(2)] loop b = xs[i] for _j < 7 do b * ys[i] * 0.5 + f64.cos b)

entry f_if_in_loop (xs: []f64) (ys: []f64) : []f64 =
  loop zs = xs for i < 3 do if zs[i] > 1 then map (* 0.5) zs else map2 (+) zs ys

entry f_pair_loop (xs: []f64) (ys: []f64) : f64 =
  let (a, b) = loop (a, b) = (xs[0], ys[0]) for i < 3 do (a * b + xs[i], b - a * 0.1)
  in a * b

entry f_if_in_map (xs: []f64) (ys: []f64) : []f64 =
  map (\x -> f64.sum (map (\y -> if y > 0.75 then x * y else x + y) ys)) xs

entry f_rows_of_pairs (xs: []f64) (ys: []f64) : []f64 =
  let m = map2 (\x y -> [x * y, x + y]) xs ys
  in map (\r -> r[0] * r[1]) (transpose (transpose m))
