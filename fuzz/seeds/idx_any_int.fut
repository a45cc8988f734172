-- Indices, slice bounds and update positions may have any integer type.
-- ==
-- entry: single
-- input { [10, 20, 30, 40] 2 1u8 }
-- output { 30 20 }

-- ==
-- entry: slices
-- input { [10, 20, 30, 40] 1i8 3u16 }
-- output { [20, 30] [40, 30, 20, 10] }

-- ==
-- entry: updates
-- input { [[1, 2], [3, 4]] 1 0i16 }
-- output { [[1, 2], [9, 4]] [[1, 2], [3, 7]] }

-- ==
-- entry: loop_index
-- input { [1, 2, 3, 4] }
-- output { 10 }

-- ==
-- entry: oob
-- input { [1, 2, 3] -1i8 }
-- error: \b[Oo]ut of bounds

entry single (xs: []i32) (i: i32) (j: u8) = (xs[i], xs[j])

entry slices (xs: []i32) (i: i8) (j: u16) = (xs[i:j], xs[::-1i32])

entry updates (xss: *[][]i32) (i: i32) (j: i16) =
  let a = copy xss with [i, j] = 9
  let b = xss with [i][j + 1] = 7
  in (a, b)

entry loop_index (xs: []i32) =
  loop acc = 0 for i < i32.i64 (length xs) do acc + xs[i]

entry oob (xs: []i32) (i: i8) = xs[i]
