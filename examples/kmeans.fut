-- | k-means clustering by Newton's method (Schenck's thesis, Figure 3.4):
-- the gradient of the cost by reverse mode (`vjp`), the diagonal of the
-- Hessian by forward mode over reverse mode (`jvp2` of `vjp`), and implicit
-- maps (AUTOMAP) for the vector arithmetic.
--
-- Run it:   urchin run examples/kmeans.fut < examples/kmeans.in
-- Time it:  urchin bench examples/kmeans.fut
-- ==
-- input @ kmeans.in
-- output { [[0.3333333333333333, 0.3333333333333333], [10.5, 10.0]] 1.8333333333333333 }

-- The cost and its gradient alone. The random dataset further down
-- (n = 10^5 points, d = 8, k = 16 centers) is for `urchin bench` only.
-- ==
-- entry: kmeans_cost
-- input @ kmeans.in
-- output { 4.5 }

-- ==
-- entry: kmeans_grad
-- input @ kmeans.in
-- output { [[1.0, 1.0], [-2.0, -4.0]] }

-- ==
-- entry: assign
-- input { [[0.5, 0.5], [10.0, 9.0]] 0.0 [[0.0, 0.0], [11.0, 10.0], [9.0, 9.5]] }
-- output { [0i64, 1i64, 1i64] }

-- The same data for both, to compare their times (`urchin bench`).
-- ==
-- entry: kmeans_cost kmeans_grad
-- compiled random input { [100000][8]f64 [16][8]f64 }

-- | Squared distance between two points.
def dist2 [d] (p: [d]f64) (c: [d]f64) = f64.sum ((p - c) * (p - c))

-- | Each point's squared distance to its nearest center, summed.
def cost [n][k][d] (points: [n][d]f64) (centers: [k][d]f64) =
  f64.sum (map (\p -> f64.minimum (map (dist2 p) centers)) points)

-- | One Newton step: centers − gradient / diag(Hessian).
def newton_step [n][k][d] (points: [n][d]f64) (centers: [k][d]f64) =
  let (g, h) = jvp2 (\c -> vjp (cost points) c 1) centers (replicate k (replicate d 1))
  in centers - g / h

entry kmeans_cost [n][k][d] (points: [n][d]f64) (centers: [k][d]f64) =
  cost points centers

entry kmeans_grad [n][k][d] (points: [n][d]f64) (centers: [k][d]f64) =
  vjp (cost points) centers 1

entry main [n][k][d] (points: [n][d]f64) (centers: [k][d]f64) =
  let centers' = loop c = centers for _i < 3 do newton_step points c
  in (centers', cost points centers')

-- | The index of the nearest center to each point. Given `main`'s result
-- as it is (a client of `urchin server` passes it on as an opaque value).
entry assign [n][k][d] (fit: ([k][d]f64, f64)) (points: [n][d]f64) : [n]i64 =
  let (centers, _) = fit
  let nearest (p: [d]f64) =
    let (i, _) =
      reduce (\(i, a) (j, b) -> if b < a then (j, b) else (i, a))
             (-1, f64.inf)
             (zip (iota k) (map (dist2 p) centers))
    in i
  in map nearest points
