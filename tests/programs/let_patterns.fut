-- Patterns in `let`: tuples, nested tuples, wildcards, records (punned and
-- renamed fields) and type-ascribed patterns.
-- ==
-- entry: tuple
-- input { 5 3 }
-- output { 16 }

-- ==
-- entry: nested
-- input { 2 }
-- output { 14 }

-- ==
-- entry: wildcard
-- input { 4 }
-- output { 8 }

-- ==
-- entry: record
-- input { 5.0 2.0 }
-- output { 3.0 -3.0 }

-- ==
-- entry: ascribed
-- input { 7 }
-- output { 7i64 1.5f32 }

entry tuple (x: i32) (y: i32) = let (a, b) = (x + y, x - y) in a * b

entry nested (x: i32) = let ((a, b), c) = ((x, x + 1), x + 2) in a + b * c

entry wildcard (x: i32) = let (_, b, _) = (x, x * 2, x * 3) in b

entry record (x: f64) (y: f64) =
  let {x = a, y = b} = {x, y}
  let p = {x = y, y = x}
  let {x, y} = p
  in (a - b, x - y)

entry ascribed (x: i32) =
  let (a: i64) = i64.i32 x
  let b: f32 = 1.5
  in (a, b)
