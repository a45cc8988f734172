-- `concat xs ys` and `++` (also with empty operands, chained, and on
-- matrices, where rows are appended).
-- ==
-- entry: cat
-- input { [1, 2] [3] }
-- output { [1, 2, 3] [1, 2, 3] }
-- input { empty([0]i32) [1] }
-- output { [1] [1] }
-- input { empty([0]i32) empty([0]i32) }
-- output { empty([0]i32) empty([0]i32) }

-- ==
-- entry: cat3
-- input { [1, 2] }
-- output { [1, 2, 1, 2, 0] }

-- ==
-- entry: cat2d
-- input { [[1, 2]] [[3, 4], [5, 6]] }
-- output { [[1, 2], [3, 4], [5, 6]] }

entry cat (xs: []i32) (ys: []i32) = (concat xs ys, xs ++ ys)

entry cat3 (xs: []i32) = xs ++ xs ++ [0]

entry cat2d (a: [][]i32) (b: [][]i32) = a ++ b
