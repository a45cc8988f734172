-- Partial application of user functions and of builtins; application is
-- curried and left-associative.
-- ==
-- entry: user
-- input { [1, 2] }
-- output { [121, 122] [451, 452] [711, 722] }

-- ==
-- entry: builtins
-- input { [[1, 2], [3, 4]] }
-- output { [[2, 4], [6, 8]] [3, 7] }

def add3 (a: i32) (b: i32) (c: i32) = a * 100 + b * 10 + c

entry user (xs: []i32) =
  let f = add3 1
  let g = f 2
  in (map g xs, map (add3 4 5) xs, map2 (add3 7) xs xs)

entry builtins (xss: [][]i32) =
  let s = reduce (+) 0
  in (map (map (* 2)) xss, map s xss)
