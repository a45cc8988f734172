-- AUTOMAP: matrix-vector product written as `f64.sum (m * v)`, and via a
-- user dot product applied to a matrix, against explicit maps.
-- ==
-- entry: mv_implicit mv_dot mv_explicit
-- input { [[1.0, 2.0], [3.0, 4.0]] [2.0, 3.0] }
-- output { [8.0, 18.0] }
-- input { [[1.0, 0.0, 2.0]] [1.0, 1.0, 1.0] }
-- output { [3.0] }

def dot [k] (a: [k]f64) (b: [k]f64) : f64 = f64.sum (map2 (*) a b)

entry mv_implicit [n][k] (m: [n][k]f64) (v: [k]f64) = f64.sum (m * v)

entry mv_dot [n][k] (m: [n][k]f64) (v: [k]f64) = dot m v

entry mv_explicit [n][k] (m: [n][k]f64) (v: [k]f64) =
  map (\row -> f64.sum (map2 (*) row v)) m
