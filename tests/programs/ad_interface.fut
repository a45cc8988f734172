-- The AD interface: implicit maps (AUTOMAP) in differentiated code,
-- `vjp2`/`jvp2` (with the primal result), `jmp`/`mjp` (many seeds),
-- records and tuples as arguments and results, and nested operators
-- (Hessian-vector products by jvp of vjp, second derivatives by jvp of
-- jvp).
-- ==
-- entry: f_automap
-- input { [1.0, -2.0, 0.5] }
-- output { 3.75 }

-- ==
-- entry: vjp_automap
-- input { [1.0, -2.0, 0.5] }
-- output { [5.0, -1.0, 4.0] }

-- ==
-- entry: vjp2_automap
-- input { [1.0, -2.0, 0.5] }
-- output { 3.75 [5.0, -1.0, 4.0] }

-- ==
-- entry: jvp2_automap
-- input { [1.0, -2.0, 0.5] }
-- output { 3.75 5.0 }

-- ==
-- entry: jmp_automap
-- input { [1.0, -2.0, 0.5] }
-- output { [5.0, -1.0, 4.0] }

-- ==
-- entry: f_automap_matvec
-- input { [[1.0, 2.0], [3.0, 4.0]] [1.0, -1.0] }
-- output { [-1.0, -1.0] }

-- ==
-- entry: vjp_automap_matvec
-- input { [[1.0, 2.0], [3.0, 4.0]] [1.0, -1.0] [1.0, 2.0] }
-- output { [[1.0, -1.0], [2.0, -2.0]] [7.0, 10.0] }

-- ==
-- entry: f_automap_sin
-- input { [[0.5, 1.0]] }
-- output { 1.3208965234120995 }

-- ==
-- entry: vjp_automap_sin
-- input { [[0.5, 1.0]] }
-- output { [[0.8775825618903728, 0.5403023058681398]] }

-- ==
-- entry: f_record
-- input { 2.0 3.0 }
-- output { 30.0 }

-- ==
-- entry: vjp_record_arg
-- input { 2.0 3.0 }
-- output { 9.0 12.0 }

-- ==
-- entry: vjp_tuple_result
-- input { 2.0 3.0 }
-- output { 3.0 2.0 }

-- ==
-- entry: f_cubes
-- input { [1.0, 2.0, 3.0] }
-- output { 38.0 }

-- ==
-- entry: hvp_cubes
-- input { [1.0, 2.0, 3.0] [1.0, 0.0, 1.0] }
-- output { [6.0, 1.0, 18.0] }

-- ==
-- entry: second_derivative
-- input { 1.0 }
-- output { 0.23913362692838303 }

entry f_automap (xs: []f64) : f64 = f64.sum (xs * xs + 3 * xs)

entry vjp_automap (xs: []f64) = vjp f_automap xs 1

entry vjp2_automap (xs: []f64) = vjp2 f_automap xs 1

entry jvp2_automap [n] (xs: [n]f64) =
  jvp2 f_automap xs (tabulate n (\i -> if i == 0 then 1 else 0))

-- One directional derivative per basis tangent: the gradient.
entry jmp_automap [n] (xs: [n]f64) =
  jmp f_automap xs (tabulate_2d n n (\i j -> if i == j then 1 else 0))

-- `xss * v` maps over the rows, `f64.sum` over the products.
entry f_automap_matvec (xss: [][]f64) (v: []f64) : []f64 = f64.sum (xss * v)

entry vjp_automap_matvec (xss: [][]f64) (v: []f64) (ybar: []f64) =
  vjp (\(xss, v) -> f_automap_matvec xss v) (xss, v) ybar

entry f_automap_sin (xss: [][]f64) : f64 = f64.sum (flatten (f64.sin xss))

entry vjp_automap_sin (xss: [][]f64) = vjp f_automap_sin xss 1

entry f_record (x: f64) (y: f64) : f64 =
  let r = {a = x * y, b = x + y} in r.a * r.b

entry vjp_record_arg (x: f64) (y: f64) =
  let g = vjp (\{a, b} -> a * b * b) {a = x, b = y} 1 in (g.a, g.b)

-- Only the first component of the result has a non-zero adjoint.
entry vjp_tuple_result (x: f64) (y: f64) =
  vjp (\(x, y) -> (x * y, x - y)) (x, y) (1, 0)

entry f_cubes (xs: []f64) : f64 = f64.sum (map (\x -> x * x * x) xs) + xs[0] * xs[1]

entry hvp_cubes (xs: []f64) (v: []f64) = jvp (\xs -> vjp f_cubes xs 1) xs v

entry second_derivative (x: f64) =
  jvp (\x -> jvp (\x -> f64.sin x * x) x 1) x 1
