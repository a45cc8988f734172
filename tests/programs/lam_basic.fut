-- Anonymous functions: one and several parameters, immediate application,
-- closures, lambdas returning lambdas, lambdas bound by `let`.
-- ==
-- entry: single
-- input { [1, -2, 3] }
-- output { [1, 4, 9] }

-- ==
-- entry: multi
-- input { [1, 2] [3, 4] }
-- output { [13, 24] }

-- ==
-- entry: applied
-- input { 10 }
-- output { 9 110 }

-- ==
-- entry: closure
-- input { 2.5 [1.0, 2.0] }
-- output { [2.5, 5.0] }

-- ==
-- entry: in_let
-- input { 1 }
-- output { 201 }

entry single (xs: []i32) = map (\x -> x * x) xs

entry multi (xs: []i32) (ys: []i32) = map2 (\x y -> x * 10 + y) xs ys

entry applied (x: i32) = ((\a b -> a - b) x 1, (\a -> \b -> a * b) x (x + 1))

entry closure (k: f64) (xs: []f64) = map (\x -> x * k) xs

entry in_let (x: i32) =
  let f = \y -> y + 100
  in f (f x)
