-- `head`, `tail`, `last`, `init`; on an empty array they fail.
-- ==
-- input { [1, 2, 3] }
-- output { 1 [2, 3] 3 [1, 2] }
-- input { [7] }
-- output { 7 empty([0]i32) 7 empty([0]i32) }
-- input { empty([0]i32) }
-- error: .

entry main (xs: []i32) = (head xs, tail xs, last xs, init xs)
