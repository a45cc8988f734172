-- `hist op ne k is vs`: a k-bin histogram starting from ne in every bin;
-- out-of-bounds bin indices are ignored.
-- ==
-- entry: count
-- input { 3i64 [0i64, 1i64, 0i64, 2i64, 0i64, 5i64, -1i64] }
-- output { [3, 1, 1] }
-- input { 0i64 [0i64] }
-- output { empty([0]i32) }
-- input { 2i64 empty([0]i64) }
-- output { [0, 0] }

-- ==
-- entry: sums
-- input { 2i64 [1i64, 1i64, 0i64] [0.5, 1.5, 2.0] }
-- output { [2.0, 2.0] }

-- ==
-- entry: maxs
-- input { 3i64 [0i64, 0i64, 2i64] [5, -3, 7] }
-- output { [5, -100, 7] }

entry count (k: i64) (is: []i64) = hist (+) 0 k is (map (\_ -> 1) is)

entry sums (k: i64) (is: []i64) (vs: []f64) = hist (+) 0 k is vs

entry maxs (k: i64) (is: []i64) (vs: []i32) = hist i32.max (-100) k is vs
