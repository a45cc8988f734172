-- Slices of matrices: a column `a[:, j]`, a row `a[i, :]`, sub-matrices
-- `a[1:, 1:]`, `a[:2, :2]`, strides in both dimensions, and a reversed
-- column.
-- ==
-- entry: column
-- input { [[1, 2, 3], [4, 5, 6], [7, 8, 9]] 0i64 }
-- output { [1, 4, 7] }
-- input { [[1, 2, 3], [4, 5, 6], [7, 8, 9]] 2i64 }
-- output { [3, 6, 9] }

-- ==
-- entry: parts
-- input { [[1, 2, 3], [4, 5, 6], [7, 8, 9]] }
-- output { [4, 5, 6] [[5, 6], [8, 9]] [[1, 2], [4, 5]] [[3, 2, 1], [9, 8, 7]] [7, 4, 1] }

entry column (m: [][]i32) (j: i64) = m[:, j]

entry parts (m: [][]i32) = (m[1, :], m[1:, 1:], m[:2, :2], m[::2, ::-1], m[::-1, 0])
