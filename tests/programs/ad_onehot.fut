-- The adjoint of a minimum or maximum reaches only the element that won
-- (`core::onehot` updates that row alone): ties go to the first, a NaN
-- everywhere gives no winner and a zero gradient, as before the rewrite.
-- ==
-- entry: nearest_grad
-- input { [[0.0, 0.0], [4.0, 1.0]] [[1.0, 0.0], [3.0, 3.0], [5.0, 1.0]] }
-- output { [[2.0, 0.0], [0.0, 0.0], [2.0, 0.0]] }
-- input { [[0.0, 0.0]] [[1.0, 0.0], [-1.0, 0.0]] }
-- output { [[2.0, 0.0], [0.0, 0.0]] }
-- input { [[f64.nan, 0.0]] [[1.0, 0.0], [-1.0, 0.0]] }
-- output { [[0.0, 0.0], [0.0, 0.0]] }

-- ==
-- entry: farthest_grad
-- input { [[0.0, 0.0], [4.0, 1.0]] [[1.0, 0.0], [3.0, 3.0], [5.0, 1.0]] }
-- output { [[-6.0, -2.0], [0.0, 0.0], [10.0, 2.0]] }

def dist2 [d] (p: [d]f64) (c: [d]f64) = f64.sum ((p - c) * (p - c))

entry nearest_grad [n][k][d] (ps: [n][d]f64) (cs: [k][d]f64) =
  vjp (\cs -> f64.sum (map (\p -> f64.minimum (map (dist2 p) cs)) ps)) cs 1

entry farthest_grad [n][k][d] (ps: [n][d]f64) (cs: [k][d]f64) =
  vjp (\cs -> f64.sum (map (\p -> f64.maximum (map (dist2 p) cs)) ps)) cs 1
