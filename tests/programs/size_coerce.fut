-- Size coercions `e :> t` are checked at run time; a failure says the
-- value cannot match the shape of the type, as Futhark's message does.
-- ==
-- entry: to_n
-- input { 3i64 [1, 2] [3] }
-- output { [1, 2, 3] }
-- input { 4i64 [1, 2] [3] }
-- error: cannot match shape

-- ==
-- entry: square
-- input { [[1, 2], [3, 4]] }
-- output { [[1, 2], [3, 4]] }
-- input { [[1, 2, 3], [4, 5, 6]] }
-- error: cannot match shape

entry to_n (n: i64) (xs: []i32) (ys: []i32) : [n]i32 = xs ++ ys :> [n]i32

entry square [n] [m] (xss: [n][m]i32) = xss :> [n][n]i32
