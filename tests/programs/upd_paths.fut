-- Update paths: `a with [i][j] = v` (as `[i, j]`), `r with a.b = v`, paths
-- mixing indices and fields (`xs with [1].f = v`, `r with a[i] = v`), and
-- the same in `let`: `let xs[i][j] = v`, `let r.a.b = v`, `let xs[i].f = v`.
-- ==
-- entry: arrays
-- input { [[1, 2], [3, 4]] }
-- output { [[1, 2], [3, 9]] [[1, 2], [3, 8]] }

-- ==
-- entry: records
-- input { 5 }
-- output { 5 7 8 [1, 9] }

-- ==
-- entry: mixed
-- input { [1, 2, 3] }
-- output { [1, 20, 3] [1, 2, 3] [0, 2, 3] 7 }

entry arrays (xss: [][]i32) =
  let a = copy xss with [1][1] = 9
  let b = copy xss
  let b[1][1] = 8
  in (a, b)

entry records (x: i32) =
  let r = {a = {b = x, c = 0}, d = [1, 2]}
  let s = r with a.c = 7
  let r.a.b = 8
  let r.d[1] = 9
  in (s.a.b, s.a.c, r.a.b, r.d)

entry mixed (xs: []i32) =
  let rs = map (\x -> {f = x, g = 0}) xs
  let us = rs with [1].f = 20
  let ys = copy xs
  let zs = copy xs
  let zs[0] = 0
  let p = ({a = ys}, 7)
  let p.0.a[1] = 2
  in (map (.f) us, p.0.a, zs, p.1)
