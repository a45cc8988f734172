-- The functional and array functions of Futhark's prelude: id, const,
-- flip, curry, uncurry, iterate*, null, partition, partition2, exscan,
-- spread, tabulate_3d, flatten_3d/4d, reduce_by_index_2d/3d, scatter_3d,
-- jmp2, mjp2, with_vjp_tape.
-- ==
-- entry: functional
-- input { 10 }
-- output { 10 1 9 3 3 80 128 243 false true }

entry functional (n: i32) =
  (id n, const 1 true, flip (-) 1 n, curry (\(x, y) -> x - y) 5 2, uncurry (-) (5, 2),
   iterate 3 (* 2) n, iterate_until (> 100) (* 2) 1, iterate_while (< 100) (* 3) 1,
   null [n], null (filter (> n) [n]))

-- ==
-- entry: partitions
-- input { [1, 2, 3, 4, 5, 6, 7] }
-- output { [2, 4, 6] [1, 3, 5, 7] [1, 2] [3, 4, 5] [6, 7] [0, 1, 3, 6, 10, 15, 21] }
-- input { empty([0]i32) }
-- output { empty([0]i32) empty([0]i32) empty([0]i32) empty([0]i32) empty([0]i32) empty([0]i32) }

entry partitions (xs: []i32) =
  let (a, b) = partition (\x -> x % 2 == 0) xs
  let (c, d, e) = partition2 (< 3) (< 6) xs
  in (a, b, c, d, e, exscan (+) 0 xs)

-- ==
-- entry: multidim
-- input { 2i64 }
-- output { [1, 0, 0, 2, 0]
--          [0i64, 1i64, 10i64, 11i64, 100i64, 101i64, 110i64, 111i64]
--          8i64
--          [[0, 4, 0], [0, 0, 2]]
--          [[[8, 0], [0, 0]], [[0, 0], [0, 7]]]
--          [[[0, 0], [0, 11]]] }

entry multidim (n: i64) =
  (spread 5 0 [0, 3, 7] [1, 2, 3],
   flatten_3d (tabulate_3d n n n (\i j k -> i * 100 + j * 10 + k)),
   length (flatten_4d (replicate n (tabulate_3d 1 n n (\i j k -> i + j + k)))),
   reduce_by_index_2d (replicate 2 (replicate 3 0)) (+) 0 [(0, 1), (1, 2), (0, 1), (5, 0)] [1, 2, 3, 4],
   scatter_3d (replicate 2 (replicate 2 (replicate 2 0))) [(1, 1, 1), (0, 0, 0), (2, 0, 0)] [7, 8, 9],
   reduce_by_index_3d (replicate 1 (replicate 2 (replicate 2 0))) (+) 0 [(0, 1, 1), (0, 1, 1), (0, 2, 0)] [5, 6, 1])

-- ==
-- entry: ad_helpers
-- input { 3.0 }
-- output { 9.0 [6.0, 12.0] 9.0 [6.0, 12.0] 60.0 }

entry ad_helpers (x: f64) =
  let (y, ts) = jmp2 (\y -> y * y) x [1, 2]
  let (z, gs) = mjp2 (\y -> y * y) x [1, 2]
  in (y, ts, z, gs, vjp (with_vjp_tape (\y -> (y * 2, y * y)) (\(t, adj) -> t * adj * 10)) x 1)
