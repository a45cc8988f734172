-- Sizes through AD and function values: inside `jvp f x`, `vjp f x` and
-- `jmp`/`mjp`, `f`'s parameter has the sizes of `x` (so `unflatten` knows
-- its product), and the derivatives have the sizes of the results (a
-- tangent) or of the argument (an adjoint), so a Jacobian's rows can be
-- unflattened after a `transpose`.
-- ==
-- entry: fwd
-- input { 2i64 2i64 [1.0, 2.0, 3.0, 4.0] }
-- output { [[[1.0, 0.0], [0.0, 0.0]], [[0.0, 1.0], [0.0, 0.0]]] }

entry fwd n m (xs: [n * m]f64) =
  tabulate 2 (\i -> jvp unflatten xs (replicate (n * m) 0 with [i] = 1))

-- ==
-- entry: fwd_many
-- input { 1i64 2i64 [1.0, 2.0] }
-- output { [[[1.0, 0.0]], [[0.0, 1.0]]] }

entry fwd_many n m (xs: [n * m]f64) =
  jmp unflatten xs (tabulate (n * m) (\i -> replicate (n * m) 0 with [i] = 1))

-- ==
-- entry: rev
-- input { 2i64 1i64 [1.0, 2.0] }
-- output { [1.0, 2.0] }

entry rev n m (xs: [n * m]f64) = vjp unflatten xs (unflatten xs)

-- ==
-- entry: jacobian
-- input { [1.0, 2.0] }
-- output { [[[[2.0, 0.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 0.0]]], [[[0.0, 0.0], [4.0, 0.0]], [[0.0, 0.0], [0.0, 0.0]]]] }

entry jacobian [n] (xs: [n]f64) : [n][2][n][2]f64 =
  tabulate (n * 2) (\i -> jvp (map (\x -> [x * x, 0])) xs
                              (tabulate n (\j -> f64.bool (j == i / 2 && i % 2 == 0))))
  |> transpose
  |> map transpose
  |> map (map unflatten)
