-- `with_vjp f f' x`: the value is `f x`; under `vjp` the adjoint of `x`
-- is `f' x ȳ` (the user's rule replaces the derivative of `f`), under
-- `jvp` the derivative of `f` is used. (No entry is named `f_...`: a
-- custom adjoint need not agree with finite differences.)

-- A square whose reverse derivative is replaced by 100·ȳ.
def sq (x: f64) = with_vjp (\x -> x * x) (\_ ybar -> 100.0 * ybar) x

-- Gradient clipping: the identity-like map whose adjoint is clamped.
def clip (xs: []f64) =
  with_vjp (\xs -> map (\x -> x * 2.0) xs)
           (\_ ybar -> map (\g -> f64.min 1.0 (f64.max (-1.0) g)) ybar)
           xs

-- ==
-- entry: value
-- input { 3.0 }
-- output { 9.0 }
entry value (x: f64) = sq x

-- ==
-- entry: custom_vjp
-- input { 3.0 }
-- output { 100.0 }
-- input { -1.0 }
-- output { 100.0 }
entry custom_vjp (x: f64) = vjp sq x 1

-- The custom rule composes with the chain rule around it.
-- ==
-- entry: chained
-- input { 1.0 }
-- output { 600.0 }
entry chained (x: f64) = vjp (\x -> 3.0 * sq (2.0 * x)) x 1

-- Forward mode differentiates the primal.
-- ==
-- entry: forward
-- input { 3.0 }
-- output { 6.0 }
entry forward (x: f64) = jvp sq x 1

-- ==
-- entry: clipped
-- input { [1.0, 2.0, -3.0] }
-- output { [1.0, 1.0, 1.0] [2.0, 4.0, -6.0] }
entry clipped (xs: []f64) =
  (vjp (\xs -> f64.sum (clip xs) * 10.0) xs 1, clip xs)

-- Inside a map, each element uses the custom rule.
-- ==
-- entry: mapped
-- input { [1.0, 2.0] }
-- output { [100.0, 100.0] }
entry mapped (xs: []f64) = vjp (\xs -> f64.sum (map sq xs)) xs 1
