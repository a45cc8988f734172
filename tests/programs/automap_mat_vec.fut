-- AUTOMAP: a matrix plus a vector (the vector is added to every row) on
-- either side, and a matrix times a scalar, against explicit maps.
-- ==
-- entry: mv_implicit vm_implicit mv_explicit
-- input { [[1, 2], [3, 4]] [10, 20] }
-- output { [[11, 22], [13, 24]] }

-- ==
-- entry: ms_implicit ms_explicit
-- input { [[1.0, 2.0], [3.0, 4.0]] 0.5 }
-- output { [[0.5, 1.0], [1.5, 2.0]] }

entry mv_implicit [n][m] (a: [n][m]i32) (v: [m]i32) = a + v

entry vm_implicit [n][m] (a: [n][m]i32) (v: [m]i32) = v + a

entry mv_explicit [n][m] (a: [n][m]i32) (v: [m]i32) = map (\row -> map2 (+) row v) a

entry ms_implicit (a: [][]f64) (s: f64) = a * s

entry ms_explicit (a: [][]f64) (s: f64) = map (\row -> map (\x -> x * s) row) a
