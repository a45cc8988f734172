-- Local functions `let f x = e`: several parameters, closures over local
-- variables, annotated parameters and return types, tuple patterns.
-- ==
-- entry: simple
-- input { 3 }
-- output { 25 }

-- ==
-- entry: multi
-- input { 1 2 }
-- output { 127 }

-- ==
-- entry: closure
-- input { 10 [1, 2, 3] }
-- output { [11, 12, 13] }

-- ==
-- entry: typed
-- input { 10.0 }
-- output { 2.5 }

-- ==
-- entry: with_pattern
-- input { 3 }
-- output { 43 }

entry simple (x: i32) =
  let sq y = y * y
  in sq x + sq (x + 1)

entry multi (a: i32) (b: i32) =
  let f x y z = x * 100 + y * 10 + z
  in f a b 7

entry closure (k: i32) (xs: []i32) =
  let addk x = x + k
  in map addk xs

entry typed (x: f64) =
  let half (y: f64) : f64 = y / 2
  in half (half x)

entry with_pattern (x: i32) =
  let swap (a: i32, b: i32) = (b, a)
  let (p, q) = swap (x, x + 1)
  in p * 10 + q
