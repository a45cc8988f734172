-- `unflatten n m xs` (urchin's form: the two sizes are explicit
-- arguments); n * m must equal the length of xs.
-- ==
-- entry: unfl
-- input { 2i64 3i64 [1, 2, 3, 4, 5, 6] }
-- output { [[1, 2, 3], [4, 5, 6]] }
-- input { 3i64 2i64 [1, 2, 3, 4, 5, 6] }
-- output { [[1, 2], [3, 4], [5, 6]] }
-- input { 2i64 2i64 [1, 2, 3] }
-- error: .

-- ==
-- entry: roundtrip
-- input { [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]] }
-- output { [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]] }

entry unfl (n: i64) (m: i64) (xs: []i32) = unflatten n m xs

entry roundtrip [n][m] (a: [n][m]f64) = unflatten n m (flatten a)
