-- AD of scalar primitives: every binary operator and unary function of
-- f64 (the derivative table), as full Jacobians by `mjp`, columns by `jvp`
-- and gradients by `vjp`. Expected values: the analytic derivatives,
-- checked against central differences in Python.
-- ==
-- entry: f_binops
-- input { 1.5 0.7 }
-- output { [2.2, 0.8, 1.05, 2.142857142857143, 1.328201239943334,
--           1.1341691669813554, 0.7, 1.5, 0.5856620185738528, 0.1, 0.1] }

-- ==
-- entry: jac_binops
-- input { 1.5 0.7 }
-- output { [1.0, 1.0, 0.7, 1.4285714285714286, 0.6198272453068893,
--           0.25547445255474455, 0.0, 1.0, -0.20889096764187384, 1.0, 1.0]
--          [1.0, -1.0, 1.5, -3.0612244897959187, 0.5385392593430219,
--           -0.5474452554744526, 1.0, 0.0, 1.2549900398011133, -2.0, -2.0] }

-- ==
-- entry: jvp_binops
-- input { 1.5 0.7 1.0 0.0 }
-- output { [1.0, 1.0, 0.7, 1.4285714285714286, 0.6198272453068893,
--           0.25547445255474455, 0.0, 1.0, -0.20889096764187384, 1.0, 1.0] }
-- input { 1.5 0.7 0.0 1.0 }
-- output { [1.0, -1.0, 1.5, -3.0612244897959187, 0.5385392593430219,
--           -0.5474452554744526, 1.0, 0.0, 1.2549900398011133, -2.0, -2.0] }

-- ==
-- entry: vjp_binops
-- input { 1.5 0.7 }
-- output { 7.794982158791189 -3.315140446126236 }

-- ==
-- entry: f_unops
-- input { 0.6 }
-- output { [-0.6, 0.6, 0.4, 0.7745966692414834, 1.8221188003905089,
--           -0.5108256237659907, -0.7369655941662062, -0.22184874961635637,
--           0.5646424733950354, 0.8253356149096783, 0.6841368083416923,
--           0.6435011087932844, 0.9272952180016123, 0.5404195002705842,
--           0.6366535821482412, 1.1854652182422676, 0.5370495669980353,
--           1.0, 5.0] }

-- ==
-- entry: jac_unops jvp_unops
-- input { 0.6 }
-- output { [-1.0, 1.0, -1.0, 0.6454972243679028, 1.8221188003905089,
--           1.6666666666666667, 2.404491734814939, 0.7238241365054197,
--           0.8253356149096783, -0.5646424733950354, 1.4680431725279575,
--           1.25, -1.25, 0.7352941176470589, 1.1854652182422676,
--           0.6366535821482412, 0.7115777625872228, 0.0, 0.0] }

-- ==
-- entry: vjp_unops
-- input { 0.6 }
-- output { 11.260325557412827 }

-- Powers with a negative base and a constant exponent: the exponent's
-- partial (r·ln x, NaN here) must not leak into the result.
-- ==
-- entry: d_square_neg
-- input { -1.5 }
-- output { -3.0 -3.0 }

entry f_binops (x: f64) (y: f64) : []f64 =
  [x + y, x - y, x * y, x / y, x ** y, f64.atan2 x y, f64.min x y,
   f64.max x y, f64.pow y x, x % y, x %% y]

def identity (n: i64) : [][]f64 =
  tabulate_2d n n (\i j -> if i == j then 1 else 0)

entry jac_binops (x: f64) (y: f64) =
  unzip (mjp (\(x, y) -> f_binops x y) (x, y) (identity 11))

entry jvp_binops (x: f64) (y: f64) (dx: f64) (dy: f64) =
  jvp (\(x, y) -> f_binops x y) (x, y) (dx, dy)

entry vjp_binops (x: f64) (y: f64) =
  vjp (\(x, y) -> f_binops x y) (x, y) (replicate 11 1)

entry f_unops (x: f64) : []f64 =
  [-x, f64.abs x, f64.abs (x - 1), f64.sqrt x, f64.exp x, f64.log x,
   f64.log2 x, f64.log10 x, f64.sin x, f64.cos x, f64.tan x, f64.asin x,
   f64.acos x, f64.atan x, f64.sinh x, f64.cosh x, f64.tanh x,
   f64.floor (3 * x), f64.ceil (7 * x)]

entry jac_unops (x: f64) = mjp f_unops x (identity 19)

entry jvp_unops (x: f64) = jvp f_unops x 1

entry vjp_unops (x: f64) = vjp f_unops x (replicate 19 1)

entry d_square_neg (x: f64) = (vjp (\x -> x ** 2) x 1, jvp (\x -> x ** 2) x 1)
