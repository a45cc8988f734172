-- Every index and slice is bounds-checked: out-of-range indices (too
-- large, negative) and invalid slices (past the end, start after end) are
-- run-time errors.
-- ==
-- entry: get
-- input { [1, 2, 3] 3i64 }
-- error: out of bounds
-- input { [1, 2, 3] -1i64 }
-- error: out of bounds
-- input { empty([0]i32) 0i64 }
-- error: out of bounds
-- input { [1, 2, 3] 0i64 }
-- output { 1 }

-- ==
-- entry: get2
-- input { [[1, 2], [3, 4]] 1i64 2i64 }
-- error: out of bounds
-- input { [[1, 2], [3, 4]] 2i64 0i64 }
-- error: out of bounds
-- input { [[1, 2], [3, 4]] 1i64 1i64 }
-- output { 4 }

-- ==
-- entry: slice
-- input { [1, 2, 3] 1i64 4i64 }
-- error: out of bounds
-- input { [1, 2, 3] 2i64 1i64 }
-- error: out of bounds
-- input { [1, 2, 3] -1i64 2i64 }
-- error: out of bounds
-- input { [1, 2, 3] 0i64 3i64 }
-- output { [1, 2, 3] }

entry get (xs: []i32) (i: i64) = xs[i]

entry get2 (xss: [][]i32) (i: i64) (j: i64) = xss[i, j]

entry slice (xs: []i32) (i: i64) (j: i64) = xs[i:j]
