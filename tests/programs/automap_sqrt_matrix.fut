-- AUTOMAP: a scalar builtin (f64.sqrt, f64.abs) applied to a vector and to
-- a matrix is mapped over every element.
-- ==
-- entry: sqrt_implicit sqrt_explicit
-- input { [[4.0, 9.0], [16.0, 25.0]] }
-- output { [[2.0, 3.0], [4.0, 5.0]] }

-- ==
-- entry: abs_implicit abs_explicit
-- input { [-1.5, 2.0, -0.0] }
-- output { [1.5, 2.0, 0.0] }

entry sqrt_implicit (m: [][]f64) = f64.sqrt m

entry sqrt_explicit (m: [][]f64) = map (map f64.sqrt) m

entry abs_implicit (v: []f64) = f64.abs v

entry abs_explicit (v: []f64) = map f64.abs v
