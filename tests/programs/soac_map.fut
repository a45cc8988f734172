-- `map` and `map1`: over a vector (also empty), nested over a matrix, with
-- tuple results (unzipped), and over indices.
-- ==
-- entry: one
-- input { [1, -2, 3] }
-- output { [3, -3, 7] [2, -1, 4] }
-- input { empty([0]i32) }
-- output { empty([0]i32) empty([0]i32) }

-- ==
-- entry: nested
-- input { [[1, 2], [3, 4]] }
-- output { [[1, 4], [9, 16]] }

-- ==
-- entry: tuple_result
-- input { [1, 2, 3] }
-- output { [1, 2, 3] [1, 4, 9] }

-- ==
-- entry: index_map
-- input { [1.0, 2.0, 3.0] }
-- output { [0.0, 2.0, 6.0] }

entry one (xs: []i32) = (map (\x -> x * 2 + 1) xs, map1 (+1) xs)

entry nested (xss: [][]i32) = map (\xs -> map (\x -> x * x) xs) xss

entry tuple_result (xs: []i32) = unzip (map (\x -> (x, x * x)) xs)

entry index_map (xs: []f64) = map (\i -> xs[i] * f64.i64 i) (indices xs)
