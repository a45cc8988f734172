-- AUTOMAP: the parameters of an applied lambda take their types from the
-- arguments, so `(\x y -> x + y) xs y` maps inside the lambda (mapping
-- the lambda instead would be equally small: without this rule it would
-- be ambiguous). An annotated parameter still lets the lambda be mapped.
-- ==
-- entry: inside_implicit inside_explicit
-- input { [1, 2, 3] 10 }
-- output { [11, 12, 13] }

-- ==
-- entry: annotated_implicit annotated_explicit
-- input { [1, 2, 3] }
-- output { [2, 3, 4] }

entry inside_implicit (xs: []i32) (y: i32) = (\x y -> x + y) xs y

entry inside_explicit (xs: []i32) (y: i32) = (\x y -> map2 (+) x (rep y)) xs y

entry annotated_implicit (xs: []i32) = (\(x: i32) -> x + 1) xs

entry annotated_explicit (xs: []i32) = map (\(x: i32) -> x + 1) xs
