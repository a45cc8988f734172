-- AUTOMAP: an outer product via `map (\x -> x * ys) xs`, against the fully
-- explicit version.
-- ==
-- entry: outer_implicit outer_explicit
-- input { [1, 2] [10, 20, 30] }
-- output { [[10, 20, 30], [20, 40, 60]] }
-- input { [3] [-1] }
-- output { [[-3]] }

entry outer_implicit (xs: []i32) (ys: []i32) = map (\x -> x * ys) xs

entry outer_explicit (xs: []i32) (ys: []i32) = map (\x -> map (\y -> x * y) ys) xs
