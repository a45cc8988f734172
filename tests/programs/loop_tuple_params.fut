-- Tuple- and record-valued loop parameters, with components of different
-- types.
-- ==
-- entry: fib
-- input { 10 }
-- output { 55 }
-- input { 0 }
-- output { 0 }
-- input { 1 }
-- output { 1 }

-- ==
-- entry: minmax
-- input { [3, -2, 7] }
-- output { -2 7 }

-- ==
-- entry: mixed_types
-- input { 4i64 }
-- output { 4i64 6.0 false }
-- input { 3i64 }
-- output { 3i64 3.0 true }

-- ==
-- entry: record_param
-- input { 5 }
-- output { 8 }
-- input { 0 }
-- output { 1 }

entry fib (n: i32) =
  let (a, _) = loop (a, b) = (0, 1) for _i < n do (b, a + b)
  in a

entry minmax (xs: []i32) =
  loop (lo, hi) = (xs[0], xs[0]) for x in xs do (i32.min lo x, i32.max hi x)

entry mixed_types (n: i64) =
  loop (i, s, flag) = (0i64, 0.0, false) while i < n do (i + 1, s + f64.i64 i, !flag)

entry record_param (n: i32) =
  let r = loop {a, b} = {a = 1, b = 0} for _i < n do {a = a + b, b = a}
  in r.a
