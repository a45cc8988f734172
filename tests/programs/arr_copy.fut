-- `copy` makes an independent array: updating the copy leaves the
-- original as it was (vectors and matrices).
-- ==
-- entry: cp
-- input { [1, 2, 3] }
-- output { [1, 2, 3] [99, 2, 3] }

-- ==
-- entry: cp2
-- input { [[1, 2], [3, 4]] }
-- output { [[1, 2], [3, 4]] [[0, 2], [3, 4]] }

entry cp (xs: []i32) =
  let ys = copy xs
  let ys[0] = 99
  in (xs, ys)

entry cp2 (xss: [][]i32) =
  let y = copy xss
  let y[0, 0] = 0
  in (xss, y)
