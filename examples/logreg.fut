-- | Logistic regression: the mean cross-entropy loss of the model
-- P(y = 1 | x) = sigmoid (x · w) on labelled data, and its gradient with
-- respect to the weights by reverse mode (`vjp`), which must equal
-- Xᵀ (sigmoid (X w) - y) / n. AUTOMAP lifts the scalar `softplus` and the
-- arithmetic over whole vectors.
--
-- Run it:   urchin run examples/logreg.fut -e grad < examples/logreg.in
-- ==
-- entry: loss
-- input { [[1.0, 2.0], [1.0, -1.0], [1.0, 0.5]] [1.0, 0.0, 1.0] [0.0, 0.0] }
-- output { 0.6931471805599453 }
-- input @ logreg.in
-- output { 0.784380483604895 }

-- ==
-- entry: grad
-- input { [[1.0, 2.0], [1.0, -1.0], [1.0, 0.5]] [1.0, 0.0, 1.0] [0.0, 0.0] }
-- output { [-0.16666666666666666, -0.5833333333333334] }
-- input @ logreg.in
-- output { [-0.07605156695684578, -0.6276151330661194] }

-- The same data for both, to compare their times (`urchin bench`).
-- ==
-- entry: loss grad
-- compiled random input { [100000][16]f64 [100000]f64 [16]f64 }

-- | log (1 + exp z), without overflow for large z.
def softplus (z: f64) = if z > 0 then z + f64.log (1 + f64.exp (-z)) else f64.log (1 + f64.exp z)

-- | The mean of −log P(y | x) over the data, for labels 0 and 1.
def bce [n][d] (X: [n][d]f64) (y: [n]f64) (w: [d]f64) =
  let z = f64.sum (X * w)
  in f64.sum (softplus z - y * z) / f64.i64 n

entry loss [n][d] (X: [n][d]f64) (y: [n]f64) (w: [d]f64) = bce X y w

entry grad [n][d] (X: [n][d]f64) (y: [n]f64) (w: [d]f64) = vjp (bce X y) w 1
