-- Inclusive `scan` with +, *, max, a tuple operator, and a segmented sum
-- (flags reset the running sum); empty input gives an empty result.
-- ==
-- entry: plus
-- input { [1, 2, 3, 4] }
-- output { [1, 3, 6, 10] }
-- input { [5, -2] }
-- output { [5, 3] }
-- input { empty([0]i32) }
-- output { empty([0]i32) }

-- ==
-- entry: times
-- input { [1i64, 2i64, 3i64, 4i64] }
-- output { [1i64, 2i64, 6i64, 24i64] }

-- ==
-- entry: maxes
-- input { [1, 3, 2, 5, 4] }
-- output { [1, 3, 3, 5, 5] }

-- ==
-- entry: pairs
-- input { [1, 2, 3] }
-- output { [1, 3, 6] [1, 2, 6] }

-- ==
-- entry: segmented
-- input { [true, false, false, true, false] [1, 2, 3, 4, 5] }
-- output { [1, 3, 6, 4, 9] }
-- input { [false, false, true] [1, 2, 3] }
-- output { [1, 3, 3] }

entry plus (xs: []i32) = scan (+) 0 xs

entry times (xs: []i64) = scan (*) 1 xs

entry maxes (xs: []i32) = scan i32.max (-1000) xs

entry pairs (xs: []i32) =
  unzip (scan (\(a, b) (c, d) -> (a + c, b * d)) (0, 1) (map (\x -> (x, x)) xs))

entry segmented (flags: []bool) (xs: []i32) =
  let op (f1: bool, v1: i32) (f2: bool, v2: i32) = (f1 || f2, if f2 then v2 else v1 + v2)
  let (_, sums) = unzip (scan op (false, 0) (zip flags xs))
  in sums
