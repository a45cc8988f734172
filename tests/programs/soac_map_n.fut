-- `map2` .. `map5` with lambdas of matching arity, and mixed element
-- types.
-- ==
-- entry: m2
-- input { [1, 2, 3] [4, 5, 6] }
-- output { [4, 10, 18] }
-- input { empty([0]i32) empty([0]i32) }
-- output { empty([0]i32) }

-- ==
-- entry: m3
-- input { [1, 2, 3] [4, 5, 6] [7, 8, 9] }
-- output { [29, 42, 57] }

-- ==
-- entry: m4
-- input { [1, 2] [3, 4] [5, 6] [7, 8] }
-- output { [33, 46] }

-- ==
-- entry: m5
-- input { [1.0, 2.0] [3.0, 4.0] [5.0, 6.0] [7.0, 8.0] [0.5, 1.5] }
-- output { [37.5, 54.5] }

-- ==
-- entry: mixed
-- input { [1, 2] [0.5, 0.25] }
-- output { [0.5, 0.5] }

entry m2 (a: []i32) (b: []i32) = map2 (\x y -> x * y) a b

entry m3 (a: []i32) (b: []i32) (c: []i32) = map3 (\x y z -> x + y * z) a b c

entry m4 (a: []i32) (b: []i32) (c: []i32) (d: []i32) =
  map4 (\x y z w -> x - y + z * w) a b c d

entry m5 (a: []f64) (b: []f64) (c: []f64) (d: []f64) (e: []f64) =
  map5 (\v w x y z -> v * w + x * y - z) a b c d e

entry mixed (xs: []i32) (ys: []f64) = map2 (\x y -> f64.i32 x * y) xs ys
