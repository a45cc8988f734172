-- `transpose` (also of non-square and empty matrices) and `flatten`.
-- ==
-- entry: tr
-- input { [[1, 2, 3], [4, 5, 6]] }
-- output { [[1, 4], [2, 5], [3, 6]] [[1, 2, 3], [4, 5, 6]] }
-- input { [[1, 2, 3]] }
-- output { [[1], [2], [3]] [[1, 2, 3]] }
-- input { empty([0][3]i32) }
-- output { empty([3][0]i32) empty([0][3]i32) }

-- ==
-- entry: fl
-- input { [[1, 2], [3, 4], [5, 6]] }
-- output { [1, 2, 3, 4, 5, 6] }
-- input { empty([0][2]i32) }
-- output { empty([0]i32) }

entry tr (m: [][]i32) = (transpose m, transpose (transpose m))

entry fl (m: [][]i32) = flatten m
