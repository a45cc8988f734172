-- Indexing: `a[i]`, multi-dimensional `a[i, j]` (same as `a[i][j]`),
-- computed indices, a row of a matrix, three dimensions.
-- ==
-- entry: one
-- input { [10, 20, 30] 0i64 }
-- output { 10 }
-- input { [10, 20, 30] 2i64 }
-- output { 30 }

-- ==
-- entry: two
-- input { [[1, 2, 3], [4, 5, 6], [7, 8, 9]] 0i64 2i64 }
-- output { 3 3 7 }

-- ==
-- entry: computed
-- input { [1.5, 2.0, 4.0] }
-- output { 5.5 }

-- ==
-- entry: row
-- input { [[1, 2], [3, 4]] 1i64 }
-- output { [3, 4] }

-- ==
-- entry: three_d
-- input { [[[1, 2], [3, 4]], [[5, 6], [7, 8]]] }
-- output { 6 3 [7, 8] }

entry one (xs: []i32) (i: i64) = xs[i]

entry two (xss: [][]i32) (i: i64) (j: i64) = (xss[i, j], xss[i][j], xss[j, i])

entry computed (xs: []f64) = xs[length xs - 1] + xs[0]

entry row (xss: [][]i32) (i: i64) = xss[i]

entry three_d (a: [][][]i32) = (a[1, 0, 1], a[0][1][0], a[1, 1])
