-- Tuples: construction, projection `.0 .1 .2`, tuples of arrays, the unit
-- value `()`, and tuple patterns on function parameters.
-- ==
-- entry: construct
-- input { 3 1.5 }
-- output { 3 1.5 true }
-- input { -3 0.0 }
-- output { -3 0.0 false }

-- ==
-- entry: of_arrays
-- input { [1, 2, 3] }
-- output { [2, 4, 6] 3i64 }

-- ==
-- entry: unit
-- input { 4 }
-- output { 5 }

-- ==
-- entry: pass
-- input { 1 2 }
-- output { 2 1 }

entry construct (x: i32) (y: f64) =
  let t = (x, y, x > 0)
  in (t.0, t.1, t.2)

entry of_arrays (xs: []i32) =
  let t = (xs, map (* 2) xs)
  in (t.1, length t.0)

entry unit (x: i32) =
  let u = ()
  let f (_: ()) = x + 1
  in f u

entry pass (x: i32) (y: i32) =
  let swap (a: i32, b: i32) = (b, a)
  in swap (swap (swap (x, y)))
