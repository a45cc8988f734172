-- In-place update of one element: `a with [i] = v` and the sugar
-- `let a[i] = v`; the copied original is unchanged; updating out of
-- bounds is an error.
-- ==
-- entry: with1
-- input { [1, 2, 3] 1i64 20 }
-- output { [1, 20, 3] }
-- input { [1, 2, 3] 3i64 20 }
-- error: out of bounds
-- input { [1, 2, 3] -1i64 20 }
-- error: out of bounds

-- ==
-- entry: sugar
-- input { [1, 2, 3] }
-- output { [100, 2, 101] }

-- ==
-- entry: original_unchanged
-- input { [5, 6] }
-- output { [5, 6] [-1, 6] }

entry with1 (xs: []i32) (i: i64) (v: i32) =
  let ys = copy xs
  in ys with [i] = v

entry sugar (xs: []i32) =
  let ys = copy xs
  let ys[0] = 100
  let ys[2] = ys[0] + 1
  in ys

entry original_unchanged (xs: []i32) =
  let ys = copy xs
  let ys[0] = -1
  in (xs, ys)
