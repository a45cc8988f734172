-- | The Gaussian mixture model objective of ADBench (Srajer, Kukelova and
-- Fitzgibbon, 2018): the log-likelihood of n points in d dimensions under
-- K Gaussians, plus a Wishart prior on the inverse covariances, and its
-- gradient with respect to all parameters by one `vjp`.
--
-- Component k has weight logit αₖ, mean μₖ and inverse covariance factor
-- Qₖ = diag (exp qₖ) + Lₖ with Lₖ strictly lower triangular (ADBench packs
-- qₖ and Lₖ into one vector `icf`; here Lₖ is a d×d matrix whose upper
-- part is ignored). With the usual log-sum-exp,
--   f = −nd/2 log 2π + Σᵢ logsumexpₖ (αₖ + Σ qₖ − ½‖Qₖ (xᵢ − μₖ)‖²)
--       − n logsumexp α
--       + Σₖ (½ γ² (‖exp qₖ‖² + ‖Lₖ‖²) − m Σ qₖ).
-- ADBench's prior also has a term that depends only on n, d, γ and m (a
-- log multivariate gamma); it is left out, as it does not change the
-- gradient. The expected outputs below were computed independently (the
-- gradient by central differences). AUTOMAP does the vector arithmetic:
-- `xi - mu`, `f64.exp q * v`, and the matrix-vector product
-- `f64.sum (l * v)`.
--
-- Run it:   urchin run examples/gmm.fut -e grad < examples/gmm.in
-- ==
-- entry: main
-- input @ gmm.in
-- output { -2.253554420116312 }

-- ==
-- entry: grad
-- input @ gmm.in
-- output { [0.1500842703, -0.1500842703]
--          [[-0.1934354247, 0.0629228317], [-0.4068640494, 0.5736804753]]
--          [[0.9449276120, 1.1370417826], [2.7931096697, 0.6261921644]]
--          [[[0.0, 0.0], [1.5825182598, 0.0]], [[0.0, 0.0], [-0.5256527698, 0.0]]] }

-- The same data for both, to compare their times (`urchin bench`).
-- ==
-- entry: main grad
-- compiled random input { [5]f64 [5][8]f64 [5][8]f64 [5][8][8]f64 [1000][8]f64 f64 i64 }

def logsumexp [n] (xs: [n]f64) =
  let m = f64.maximum xs
  in m + f64.log (f64.sum (f64.exp (xs - m)))

-- | The strictly lower triangular part.
def strict_lower [d] (l: [d][d]f64) : [d][d]f64 =
  tabulate_2d d d (\i j -> if j < i then l[i, j] else 0)

-- | Qv for Q = diag (exp q) + l, l strictly lower triangular.
def qmul [d] (q: [d]f64) (l: [d][d]f64) (v: [d]f64) : [d]f64 =
  f64.exp q * v + f64.sum (l * v)

def objective [n][d][K] (alphas: [K]f64) (means: [K][d]f64) (qs: [K][d]f64)
                        (ls: [K][d][d]f64) (x: [n][d]f64) (gamma: f64) (m: i64) =
  let ls = map strict_lower ls
  let qsums = map f64.sum qs
  let loglik (xi: [d]f64) =
    logsumexp (map4 (\a mu q l -> a - 0.5 * f64.sum (qmul q l (xi - mu) ** 2))
                    alphas means qs ls
               + qsums)
  let frob (xs: [d]f64) = f64.sum (xs * xs)
  let prior = f64.sum (map3 (\q l qsum -> 0.5 * gamma * gamma * (frob (f64.exp q) + f64.sum (map frob l))
                                          - f64.i64 m * qsum)
                            qs ls qsums)
  in - f64.i64 (n * d) * 0.5 * f64.log (2 * f64.pi)
     + f64.sum (map loglik x)
     - f64.i64 n * logsumexp alphas
     + prior

entry main [n][d][K] (alphas: [K]f64) (means: [K][d]f64) (qs: [K][d]f64)
                     (ls: [K][d][d]f64) (x: [n][d]f64) (gamma: f64) (m: i64) =
  objective alphas means qs ls x gamma m

entry grad [n][d][K] (alphas: [K]f64) (means: [K][d]f64) (qs: [K][d]f64)
                     (ls: [K][d][d]f64) (x: [n][d]f64) (gamma: f64) (m: i64) =
  vjp (\(alphas, means, qs, ls) -> objective alphas means qs ls x gamma m)
      (alphas, means, qs, ls) 1
