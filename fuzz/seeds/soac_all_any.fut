-- `all` and `any`, including the empty array (all: true, any: false).
-- ==
-- entry: main
-- input { [1, 2, 3] }
-- output { true false }
-- input { [1, -2] }
-- output { false true }
-- input { empty([0]i32) }
-- output { true false }

-- ==
-- entry: floats
-- input { [1.0, f64.nan] }
-- output { false true }
-- input { [1.0, 2.0] }
-- output { true false }

entry main (xs: []i32) = (all (> 0) xs, any (< 0) xs)

entry floats (xs: []f64) = (all (\x -> x < 10) xs, any f64.isnan xs)
