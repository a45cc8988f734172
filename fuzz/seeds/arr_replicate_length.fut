-- `replicate n x` (also of arrays, also n = 0) and `length`.
-- ==
-- entry: rep1
-- input { 3i64 7 }
-- output { [7, 7, 7] }
-- input { 0i64 7 }
-- output { empty([0]i32) }

-- ==
-- entry: rep2
-- input { 2i64 3i64 1.5 }
-- output { [[1.5, 1.5, 1.5], [1.5, 1.5, 1.5]] }

-- ==
-- entry: rep_arr
-- input { 2i64 [1, 2] }
-- output { [[1, 2], [1, 2]] }

-- ==
-- entry: len
-- input { [1, 2, 3] [[1], [2]] }
-- output { 3i64 2i64 }
-- input { empty([0]i32) empty([0][5]i32) }
-- output { 0i64 0i64 }

entry rep1 (n: i64) (x: i32) = replicate n x

entry rep2 (n: i64) (m: i64) (x: f64) = replicate n (replicate m x)

entry rep_arr (n: i64) (xs: []i32) = replicate n xs

entry len (xs: []i32) (xss: [][]i32) = (length xs, length xss)
