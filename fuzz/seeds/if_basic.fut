-- `if c then a else b`: else-if chains, tuple and array results, nesting,
-- `if` inside a larger expression, and laziness of the untaken branch.
-- ==
-- entry: sign
-- input { -5 }
-- output { -1 }
-- input { 0 }
-- output { 0 }
-- input { 12 }
-- output { 1 }

-- ==
-- entry: tuple
-- input { true 4 }
-- output { 4 5 }
-- input { false 4 }
-- output { 8 12 }

-- ==
-- entry: arrays
-- input { true [1, 2, 3] }
-- output { [2, 3, 4] }
-- input { false [1, 2, 3] }
-- output { [3, 2, 1] }

-- ==
-- entry: nested
-- input { 5 3 }
-- output { 5 }
-- input { -5 -7 }
-- output { 0 }
-- input { 1 3 }
-- output { 3 }

-- ==
-- entry: in_expr
-- input { 6 }
-- output { 21 }
-- input { 5 }
-- output { 41 }

-- ==
-- entry: lazy
-- input { [1, 2, 3] 7i64 }
-- output { -1 }
-- input { [1, 2, 3] 1i64 }
-- output { 2 }

entry sign (x: i32) = if x < 0 then -1 else if x == 0 then 0 else 1

entry tuple (c: bool) (x: i32) = if c then (x, x + 1) else (x * 2, x * 3)

entry arrays (c: bool) (xs: []i32) = if c then map (+1) xs else reverse xs

entry nested (a: i32) (b: i32) =
  if a > b then (if a > 0 then a else 0) else (if b > 0 then b else 0)

entry in_expr (x: i32) = 1 + (if x > 5 then 10 else 20) * 2

entry lazy (xs: []i32) (i: i64) = if i < length xs then xs[i] else -1
