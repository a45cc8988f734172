-- `let ... in`, chains of `let` without `in` before the final body,
-- shadowing, and a `let` nested inside an expression.
-- ==
-- entry: chain
-- input { 3 }
-- output { 12 }

-- ==
-- entry: nested_in
-- input { 3 }
-- output { 16 }

-- ==
-- entry: shadow
-- input { 3 }
-- output { 40 }

-- ==
-- entry: scoping
-- input { 3 }
-- output { 3 7 }

entry chain (x: i32) =
  let a = x + 1
  let b = a * 2
  in a + b

entry nested_in (x: i32) = let a = x in let b = a + 1 in let c = b * b in c

entry shadow (x: i32) =
  let x = x + 1
  let x = x * 10
  in x

entry scoping (x: i32) =
  let y = (let x = x * 2 in x + 1)
  in (x, y)
