-- `zip`/`unzip`, `zip3`/`unzip3`, `zip4`/`unzip4`, and mapping over zipped
-- arrays.
-- ==
-- entry: z2
-- input { [1, 2] [0.5, 1.5] }
-- output { [1, 2] [0.5, 1.5] [0.5, 3.0] }
-- input { empty([0]i32) empty([0]f64) }
-- output { empty([0]i32) empty([0]f64) empty([0]f64) }

-- ==
-- entry: z3
-- input { [1, 2] [3, 4] [5, 6] }
-- output { [5, 6] [3, 4] [1, 2] }

-- ==
-- entry: z4
-- input { [1] [2] [3] [4] }
-- output { [4] [3] [2] [1] }

-- ==
-- entry: unzip_map
-- input { [1, 2, 3] }
-- output { [2, 4, 6] [2, 3, 4] }

entry z2 (xs: []i32) (ys: []f64) =
  let (a, b) = unzip (zip xs ys)
  in (a, b, map (\(x, y) -> f64.i32 x * y) (zip xs ys))

entry z3 (xs: []i32) (ys: []i32) (zs: []i32) =
  let (a, b, c) = unzip3 (zip3 xs ys zs)
  in (c, b, a)

entry z4 (a: []i32) (b: []i32) (c: []i32) (d: []i32) =
  let (p, q, r, s) = unzip4 (zip4 a b c d)
  in (s, r, q, p)

entry unzip_map (xs: []i32) =
  let (a, b) = unzip (map (\x -> (x + 1, x * 2)) xs)
  in (b, a)
