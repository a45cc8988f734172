-- Projection sections `(.0)`, `(.1)` on tuples and `(.field)` on records.
-- ==
-- entry: tuples
-- input { [1, 2, 3] [0.5, 1.5, 2.5] }
-- output { [1, 2, 3] [0.5, 1.5, 2.5] 7 }

-- ==
-- entry: records
-- input { [1, 2] [10, 20] }
-- output { [10, 20] [1, 2] }

entry tuples (xs: []i32) (ys: []f64) =
  let ps = zip xs ys
  in (map (.0) ps, map (.1) ps, (.1) (5, 7))

entry records (xs: []i32) (ys: []i32) =
  let rs = map2 (\a b -> {lo = a, hi = b}) xs ys
  in (map (.hi) rs, map (.lo) rs)
