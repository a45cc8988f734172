-- Lambda parameters that are patterns: tuples, nested tuples, records
-- (punned and renamed), type-ascribed variables, wildcards, and a mix.
-- ==
-- entry: tuple
-- input { [5, 1] [2, 4] }
-- output { [3, -3] }

-- ==
-- entry: nested_tuple
-- input { [1, 2] }
-- output { [3, 6] }

-- ==
-- entry: record
-- input { [1.5, 2.0] [2.0, -1.0] }
-- output { [3.0, -2.0] [2.5, 3.0] }

-- ==
-- entry: ascribed
-- input { [1f32, 3f32] }
-- output { [0.5f32, 1.5f32] }

-- ==
-- entry: wildcard
-- input { [1, 2, 3] }
-- output { [7, 7, 7] [1, 2, 3] }

-- ==
-- entry: mixed
-- input { 4 }
-- output { 13 }

entry tuple (xs: []i32) (ys: []i32) = map (\(a, b) -> a - b) (zip xs ys)

entry nested_tuple (xs: []i32) = map (\((a, b), c) -> a + b + c) (zip (zip xs xs) xs)

entry record (xs: []f64) (ys: []f64) =
  let rs = map2 (\a b -> {x = a, y = b}) xs ys
  in (map (\{x, y} -> x * y) rs, map (\{x = u, y = _} -> u + 1) rs)

entry ascribed (xs: []f32) = map (\(x: f32) -> x / 2) xs

entry wildcard (xs: []i32) =
  (map (\_ -> 7) xs, map (\(a, _) -> a) (zip xs xs))

entry mixed (x: i32) = (\(a, _) (b: i32) {c} -> a * b + c) (x, true) 3 {c = 1}
