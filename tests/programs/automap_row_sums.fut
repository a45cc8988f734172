-- AUTOMAP: a reduction from the f64 module applied to a matrix sums each
-- row (the sum is mapped over the rows).
-- ==
-- entry: rows_implicit rows_explicit
-- input { [[1.0, 2.0], [3.0, 4.0], [0.5, 0.5]] }
-- output { [3.0, 7.0, 1.0] }

entry rows_implicit (m: [][]f64) = f64.sum m

entry rows_explicit (m: [][]f64) = map f64.sum m
