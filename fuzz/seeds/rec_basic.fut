-- Records: construction, field punning `{x, y}`, projection, field order
-- does not matter, nested records and nested projection `r.a.b`, records
-- holding arrays.
-- ==
-- entry: construct
-- input { -2 1.5 }
-- output { -2 1.5 false }

-- ==
-- entry: pun
-- input { 1.0 2.0 }
-- output { 12.0 }

-- ==
-- entry: order
-- input { 5 }
-- output { 1 }

-- ==
-- entry: nested
-- input { 4 }
-- output { 9 }

-- ==
-- entry: with_arrays
-- input { [7, 8] }
-- output { 2i64 7 }

entry construct (a: i32) (b: f64) =
  let r = {a = a, b = b, c = a > 0}
  in (r.a, r.b, r.c)

entry pun (x: f64) (y: f64) =
  let r = {x, y}
  in r.x * 10 + r.y

entry order (x: i32) =
  let r: {a: i32, b: i32} = {b = x, a = x + 1}
  in r.a - r.b

entry nested (x: i32) =
  let r = {inner = {v = x, w = x * 2}, z = 1}
  in r.inner.w + r.z

entry with_arrays (xs: []i32) =
  let r = {data = xs, n = length xs}
  in (r.n, r.data[0])
