-- | A multilayer perceptron, as a machine-learning course writes one: a
-- hidden layer of `tanh` units, a linear output layer and the squared
-- loss over a batch, its gradient with respect to every weight and bias
-- by `vjp`. The matrix products are plain map nests (`matmul`), which the
-- evaluator runs as blocked matrix multiplies, and so are the products
-- reverse mode makes of them (`Xᵀ Z̄`, `Ō W₂ᵀ`, `Hᵀ Ō`). The expected
-- outputs below were computed independently (JAX, float64).
--
-- Run it:   urchin run examples/mlp.fut -e grad < examples/mlp.in
-- Time it:  urchin bench examples/mlp.fut
-- ==
-- entry: main
-- input @ mlp.in
-- output { 26.81665694966673 }

-- ==
-- entry: grad
-- input @ mlp.in
-- output { [[1.6997481830006125, 0.9587587402910179, -4.22103715783918, -0.8918383757542665],
--           [4.403044683705218, 1.539280217341888, -2.571201709448977, -0.14690560784837403],
--           [4.123390091579241, 4.881015570700171, -5.571329191706672, -1.9489514117895685]]
--          [-15.911700476650715, -8.347118646026331, 12.285462058469474, 0.4492922806223797]
--          [[10.74686767094522, 4.47071519493029], [5.001966528063027, 2.8599244581940373],
--           [-4.010503923518747, -1.9706790123460132], [-3.4616152149987265, -2.7402678281216932]]
--          [-20.75146018676014, -6.325017900557107] }

-- A batch of 1,000 inputs of 100 features, 64 hidden units, 10 outputs:
-- the same data for both, to compare their times (`urchin bench`).
-- ==
-- entry: main grad
-- compiled random input { [100][64]f64 [64]f64 [64][10]f64 [10]f64 [1000][100]f64 [1000][10]f64 }

def matmul [n][m][p] (a: [n][m]f64) (b: [m][p]f64) : [n][p]f64 =
  map (\r -> map (\c -> f64.sum (r * c)) (transpose b)) a

-- | Σ over the batch of the squared error of `tanh (x W₁ + b₁) W₂ + b₂`.
def loss [n][i][h][o] (w1: [i][h]f64) (b1: [h]f64) (w2: [h][o]f64) (b2: [o]f64)
                      (x: [n][i]f64) (y: [n][o]f64) =
  let hid = f64.tanh (matmul x w1 + b1)
  let out = matmul hid w2 + b2
  in f64.sum (f64.sum ((out - y) * (out - y)))

entry main [n][i][h][o] (w1: [i][h]f64) (b1: [h]f64) (w2: [h][o]f64) (b2: [o]f64)
                        (x: [n][i]f64) (y: [n][o]f64) =
  loss w1 b1 w2 b2 x y

entry grad [n][i][h][o] (w1: [i][h]f64) (b1: [h]f64) (w2: [h][o]f64) (b2: [o]f64)
                        (x: [n][i]f64) (y: [n][o]f64) =
  vjp (\(w1, b1, w2, b2) -> loss w1 b1 w2 b2 x y) (w1, b1, w2, b2) 1
