-- `filter`: keeping some, none or all elements, on tuples, and counting.
-- ==
-- entry: pos
-- input { [3, -1, 0, 4] }
-- output { [3, 4] }
-- input { [-1] }
-- output { empty([0]i32) }
-- input { empty([0]i32) }
-- output { empty([0]i32) }
-- input { [1, 2] }
-- output { [1, 2] }

-- ==
-- entry: even
-- input { [1i64, 2i64, 3i64, 4i64, 5i64, 6i64] }
-- output { [2i64, 4i64, 6i64] }
-- input { [-3i64, -4i64] }
-- output { [-4i64] }

-- ==
-- entry: pairs
-- input { [1, 5, 3] [2.0, 4.0, 3.5] }
-- output { [1, 3] [2.0, 3.5] }

-- ==
-- entry: count
-- input { [-1, 2, -3] }
-- output { 2i64 }

entry pos (xs: []i32) = filter (> 0) xs

entry even (xs: []i64) = filter (\x -> x % 2 == 0) xs

entry pairs (xs: []i32) (ys: []f64) =
  unzip (filter (\(x, y) -> f64.i32 x < y) (zip xs ys))

entry count (xs: []i32) = length (filter (< 0) xs)
