-- Edge cases of `jvp` and `vjp` (issue 14).

-- A `for` loop whose trip count is negative runs no iteration, in the
-- primal and in its derivatives (the reverse pass does not size its
-- checkpoints by it).
-- ==
-- entry: negative_trips
-- input { -5i64 2.0 } output { 2.0 1.0 1.0 }
-- input { 0i64 2.0 } output { 2.0 1.0 1.0 }
-- input { 3i64 2.0 } output { 16.0 32.0 32.0 }

def power (n: i64) (x: f64) = loop acc = x for _i < n do acc * x

entry negative_trips (n: i64) (x: f64) = (power n x, jvp (power n) x 1, vjp (power n) x 1)

-- The same in i32, strip-mined.
-- ==
-- entry: negative_trips_stripmined
-- input { -3 2.0 } output { 1.0 }
-- input { 2 2.0 } output { 12.0 }

entry negative_trips_stripmined (n: i32) (x: f64) =
  vjp (\x -> #[stripmine(2)] loop acc = x for _i < n do acc * x) x 1

-- A cotangent has the shape of the function's result, a tangent that of
-- its argument: a seed of another shape is an error, not a result of the
-- seed's shape.
-- ==
-- entry: vjp_shape
-- input { [1.0, 2.0] [1.0, 5.0, 7.0] }
-- error: \b[Ss]hape.*cotangent
-- input { [1.0, 2.0] [1.0, 5.0] }
-- output { [1.0, 5.0] }

entry vjp_shape (x: []f64) (s: []f64) = vjp (\(x: []f64) -> x) x s

-- ==
-- entry: jvp_shape
-- input { [1.0, 2.0] [1.0] }
-- error: \b[Ss]hape.*tangent
-- input { [1.0, 2.0] [1.0, 3.0] }
-- output { [2.0, 6.0] }

entry jvp_shape (x: []f64) (s: []f64) = jvp (\x -> map (* 2) x) x s

-- Only the outer size is checked up front; rows of another length fail
-- in the derivative code.
-- ==
-- entry: vjp_shape_inner
-- input { [[1.0, 2.0]] [[1.0], [5.0]] }
-- error: \b[Ss]hape.*cotangent
-- input { [[1.0, 2.0]] [[1.0]] }
-- error: \b[Ss]hape|\b[Mm]ismatch|\b[Ll]engths?\b
-- input { [[1.0, 2.0]] [[3.0, 4.0]] }
-- output { [[6.0, 8.0]] }

entry vjp_shape_inner (x: [][]f64) (s: [][]f64) = vjp (\x -> map (map (* 2)) x) x s
