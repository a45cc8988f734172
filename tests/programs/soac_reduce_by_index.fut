-- `reduce_by_index dest op ne is vs`: like hist, but the existing values
-- of dest take part; out-of-bounds indices are ignored; a tuple operator.
-- ==
-- entry: sums
-- input { [10, 20, 30] [0i64, 2i64, 2i64, 5i64] [1, 2, 3, 4] }
-- output { [11, 20, 35] }

-- ==
-- entry: maxs
-- input { [1.0, 5.0] [0i64, 1i64, 0i64] [3.0, 2.0, 0.5] }
-- output { [3.0, 5.0] }

-- ==
-- entry: count_sum
-- input { 3i64 [0i64, 2i64, 0i64, 1i64, 2i64, 2i64] [5, 1, 2, 3, 4, 6] }
-- output { [2, 1, 3] [7, 3, 11] }

entry sums (dest: []i32) (is: []i64) (vs: []i32) = reduce_by_index (copy dest) (+) 0 is vs

entry maxs (dest: []f64) (is: []i64) (vs: []f64) =
  reduce_by_index (copy dest) f64.max (-f64.inf) is vs

entry count_sum (k: i64) (is: []i64) (vs: []i32) =
  unzip (reduce_by_index (replicate k (0, 0))
                         (\(c1, s1) (c2, s2) -> (c1 + c2, s1 + s2))
                         (0, 0) is (map (\v -> (1, v)) vs))
