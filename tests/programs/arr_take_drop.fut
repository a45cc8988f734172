-- `take n xs` and `drop n xs`, including 0 and the full length; taking
-- more than the length fails.
-- ==
-- input { 2i64 [1, 2, 3, 4] }
-- output { [1, 2] [3, 4] }
-- input { 0i64 [1, 2, 3, 4] }
-- output { empty([0]i32) [1, 2, 3, 4] }
-- input { 4i64 [1, 2, 3, 4] }
-- output { [1, 2, 3, 4] empty([0]i32) }
-- input { 5i64 [1, 2, 3, 4] }
-- error: .

entry main (n: i64) (xs: []i32) = (take n xs, drop n xs)
