-- Example: inclusive and exclusive prefix sums, and segment offsets
-- computed from segment sizes.
-- ==
-- entry: inclusive
-- input { [3, 1, 4, 1, 5] }
-- output { [3, 4, 8, 9, 14] }

-- ==
-- entry: exclusive
-- input { [3, 1, 4, 1, 5] }
-- output { [0, 3, 4, 8, 9] }
-- input { empty([0]i32) }
-- output { empty([0]i32) }

-- ==
-- entry: offsets
-- input { [2i64, 0i64, 3i64] }
-- output { [0i64, 2i64, 2i64] 5i64 }

entry inclusive (xs: []i32) = scan (+) 0 xs

entry exclusive [n] (xs: [n]i32) = map2 (-) (scan (+) 0 xs) xs

entry offsets [n] (sizes: [n]i64) =
  let ends = scan (+) 0 sizes
  let starts = map2 (-) ends sizes
  let total = if n == 0 then 0 else ends[n - 1]
  in (starts, total)
