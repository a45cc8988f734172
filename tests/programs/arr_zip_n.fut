-- The numbered forms `zip2`/`unzip2` and `zip5`/`unzip5`.
-- ==
-- entry: z2
-- input { [1, 2] [3.5, 4.5] }
-- output { [3.5, 4.5] [1, 2] }

-- ==
-- entry: z5
-- input { [1, 2] [3, 4] [5, 6] [7, 8] [true, false] }
-- output { [true, false] [7, 8] [5, 6] [3, 4] [1, 2] [16, 20] }

entry z2 (xs: []i32) (ys: []f64) =
  let (a, b) = unzip2 (zip2 xs ys)
  in (b, a)

entry z5 (a: []i32) (b: []i32) (c: []i32) (d: []i32) (e: []bool) =
  let zs = zip5 a b c d e
  let (p, q, r, s, t) = unzip5 zs
  in (t, s, r, q, p, map (\(v, w, x, y, _) -> v + w + x + y) zs)
