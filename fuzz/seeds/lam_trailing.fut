-- A lambda may be the last argument of an application without
-- parentheses; its body extends as far to the right as possible.
-- ==
-- input { [1, 2] [3, 4] }
-- output { [4, 6] 6 }

entry main (xs: []i32) (ys: []i32) =
  let zs = map2 \x y -> x + y
  in (zs xs ys, i32.sum (zs xs xs))
