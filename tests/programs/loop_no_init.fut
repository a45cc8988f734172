-- `loop p for ...` / `loop p while ...` without `= init`: the pattern's
-- variables (already in scope) are the initial values.
-- ==
-- entry: double
-- input { 5 }
-- output { 40 }

-- ==
-- entry: tuple
-- input { 1 2 }
-- output { 303 }

-- ==
-- entry: while_form
-- input { 2 }
-- output { 162 }
-- input { 500 }
-- output { 500 }

-- ==
-- entry: array
-- input { 4i64 }
-- output { [0, 1, 4, 9] }

entry double (x: i32) = loop x for _i < 3 do x * 2

entry tuple (a: i32) (b: i32) =
  let (a, b) = loop (a, b) for i < 3 do (b, a + i)
  in a * 100 + b

entry while_form (x: i32) = loop x while x < 100 do x * 3

entry array (n: i64) =
  let xs = replicate n 0
  in loop xs for i < n do xs with [i] = i32.i64 (i * i)
