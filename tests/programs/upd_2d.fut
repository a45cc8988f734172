-- In-place updates of matrices: `a with [i, j] = v`, `let a[i, j] = v`,
-- replacing a whole row `a with [i] = row`, and out-of-bounds updates.
-- ==
-- entry: point
-- input { [[1, 2], [3, 4]] 1i64 0i64 7 }
-- output { [[1, 2], [7, 4]] }
-- input { [[1, 2], [3, 4]] 1i64 2i64 7 }
-- error: out of bounds
-- input { [[1, 2], [3, 4]] 2i64 0i64 7 }
-- error: out of bounds

-- ==
-- entry: sugar2
-- input { [[1, 2], [3, 4]] }
-- output { [[1, 9], [18, 4]] }

-- ==
-- entry: row
-- input { [[1, 2], [3, 4]] [8, 9] }
-- output { [[8, 9], [3, 4]] }

entry point (m: [][]i32) (i: i64) (j: i64) (v: i32) =
  let a = copy m
  in a with [i, j] = v

entry sugar2 (m: [][]i32) =
  let a = copy m
  let a[0, 1] = 9
  let a[1, 0] = a[0, 1] * 2
  in a

entry row (m: [][]i32) (r: []i32) =
  let a = copy m
  in a with [0] = r
