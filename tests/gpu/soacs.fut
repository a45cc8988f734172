-- SOACs for the OpenCL property test (tests/gpu.rs): each entry runs on the
-- evaluator and on the device with generated inputs, and the results must agree.
entry map_i (xs: []i64) (ys: []i64) = map2 (\x y -> x * 3 + y / 7 - x % 5 + (x << 2) ^ y) xs ys
entry map_i32 (xs: []i32) (ys: []i32) = map2 (\x y -> x * 3 + y / 7 - x % 5 + (x << 2) ^ y) xs ys
entry red_add_i32 (xs: []i32) = reduce (+) 0 xs
entry scan_add_i32 (xs: []i32) (ys: []i32) = scan (+) 0 (map2 (*) xs ys)
entry map_f32 (xs: []f32) = map (\x -> f32.sqrt (f32.abs x) + f32.sin x * 2 - x / 3) xs
entry red_add_f32 (xs: []f32) = reduce (+) 0 xs
entry scan_add_f32 (xs: []f32) = scan (+) 0 xs
entry hist_add_i32 (dest: []i32) (is: []i64) (vs: []i32) = reduce_by_index (copy dest) (+) 0 is vs
entry hist_add_f32 (dest: []f32) (is: []i64) (vs: []f32) = reduce_by_index (copy dest) (+) 0 is vs
entry map_f (xs: []f64) = map (\x -> f64.sqrt (f64.abs x) + f64.sin x * 2.0 - x / 3.0) xs
entry red_add_i (xs: []i64) = reduce (+) 0 xs
entry red_mul_i (xs: []i64) = reduce (*) 1 xs
entry red_min_i (xs: []i64) = reduce i64.min i64.highest xs
entry red_max_i (xs: []i64) = reduce i64.max i64.lowest xs
entry red_and_i (xs: []i64) = reduce (&) (-1) xs
entry red_or_i (xs: []i64) = reduce (|) 0 xs
entry red_xor_i (xs: []i64) = reduce (^) 0 xs
entry red_add_f (xs: []f64) = reduce (+) 0 xs
entry red_min_f (xs: []f64) = reduce f64.min f64.inf xs
entry red_max_f (xs: []f64) = reduce f64.max (-f64.inf) xs
entry mapred_f (xs: []f64) = f64.sum (map (\x -> x * x + 1) xs)
entry red_affine (as: []i64) (bs: []i64) =
  reduce (\(a, b) (c, d) -> (a * c, b * c + d)) (1, 0) (zip as bs)
entry scan_add_i (xs: []i64) = scan (+) 0 xs
entry scan_affine (as: []i64) (bs: []i64) =
  unzip (scan (\(a, b) (c, d) -> (a * c, b * c + d)) (1, 0) (zip as bs))
entry scan_map_f (xs: []f64) = scan (+) 0 (map (\x -> x * 0.5) xs)
entry scatter_i (dest: []i64) (is: []i64) (vs: []i64) = scatter (copy dest) is vs
entry hist_add_i (dest: []i64) (is: []i64) (vs: []i64) = reduce_by_index (copy dest) (+) 0 is vs
entry hist_min_i (dest: []i64) (is: []i64) (vs: []i64) = reduce_by_index (copy dest) i64.min i64.highest is vs
entry hist_max_f (dest: []f64) (is: []i64) (vs: []f64) = reduce_by_index (copy dest) f64.max (-f64.inf) is vs
entry hist_add_f (dest: []f64) (is: []i64) (vs: []f64) = reduce_by_index (copy dest) (+) 0 is vs
entry hist_mul_i (dest: []i64) (is: []i64) (vs: []i64) = reduce_by_index (copy dest) (*) 1 is vs
entry seg_red (xss: [][]i64) = map (\r -> reduce (+) 0 r) xss
entry nest_f (xss: [][]f64) = map (\r -> map (\x -> x * 2 + f64.sum r) r) xss
entry grad_f (xs: []f64) = vjp (\xs -> f64.sum (map (\x -> x * x * x) xs)) xs 1
entry grad_min (xss: [][]f64) = vjp (\xss -> f64.sum (map (\r -> f64.minimum (map (\x -> x * x) r)) xss)) xss 1
-- Gradients through accumulators: a k-means cost (rows added to a small
-- accumulator by many elements) and a gather by indices.
entry grad_kmeans (ps: [][]f64) (cs: [][]f64) =
  vjp (\cs -> f64.sum (map (\p -> f64.minimum (map (\c -> f64.sum (map2 (\x y -> (x - y) * (x - y)) p c)) cs)) ps)) cs 1
entry grad_gather (xs: []f64) (is: []i64) =
  vjp (\xs -> f64.sum (map (\i -> xs[i] * xs[i] + 1) is)) xs 1
-- A short map of costly elements read three times (stored once per work
-- item in a private array), one of them at a single index.
entry spread_f (ps: [][]f64) (cs: [][]f64) =
  map (\p -> let ds = map (\c -> f64.sum (map2 (*) p c)) cs
             in f64.maximum ds - f64.minimum ds + ds[0]) ps
-- A transposition of an array computed inside the kernel (read through
-- its indices, never stored).
entry transpose_computed (xss: [][]f64) =
  map (\r -> let sq = map (\x -> map (\y -> x * y + f64.sum r) r) r
             in map (\c -> f64.sum c * 0.5) (transpose sq)) xss
-- An accumulator inside a kernel (the gradient of indexing, per row): a
-- copy of the work item's own.
entry grad_pairs (xss: [][]f64) =
  map (\r -> vjp (\v -> let n = length v in f64.sum (map (\i -> v[i] * v[(i + 1) % n]) (iota n))) r 1) xss
-- A map with a scalar and a row per element, both read more than once:
-- stored once per work item.
entry several_results (ps: [][]f64) (cs: [][]f64) =
  map (\p -> let (ds, rows) = unzip (map (\c -> let d = f64.sum (map2 (*) p c) in (d, map (\x -> x * d) c)) cs)
             in f64.sum ds + f64.sum (map f64.sum rows) + f64.sum (map (\r -> r[0]) rows)) ps
entry convert_f (xs: []f64) = map (\x -> (i32.f64 x, i8.f64 x, u64.f64 x, i64.f32 (f32.f64 x), u16.f16 (f16.f64 x))) xs
