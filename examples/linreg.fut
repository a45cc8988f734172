-- | Linear regression by gradient descent: the mean squared error of
-- `X w + b` against `y`, its gradient with respect to the parameters
-- `(w, b)` by reverse mode (`vjp` of a function of a tuple), and a `loop`
-- of gradient steps. AUTOMAP does the vector arithmetic: `X * w` multiplies
-- every row by `w`, `f64.sum` of it sums each row, and `+ b` adds `b` to
-- every prediction.
--
-- Run it:   urchin run examples/linreg.fut < examples/linreg.in
-- ==
-- entry: loss
-- input { [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, 1.0]] [2.5, -0.5, 1.5, 3.5] [0.0, 0.0] 0.0 }
-- output { 5.25 }
-- input { [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, 1.0]] [2.5, -0.5, 1.5, 3.5] [2.0, -1.0] 0.5 }
-- output { 0.0 }

-- ==
-- entry: grad
-- input { [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, 1.0]] [2.5, -0.5, 1.5, 3.5] [0.0, 0.0] 0.0 }
-- output { [-5.5, -2.25] -3.5 }

-- The data lie on y = 2 x0 - x1 + 0.5; gradient descent finds that line.
-- ==
-- entry: main
-- input @ linreg.in
-- output { [2.0, -1.0] 0.5 }

-- The same data for both, to compare their times (`urchin bench`).
-- ==
-- entry: loss grad
-- compiled random input { [100000][8]f64 [100000]f64 [8]f64 f64 }

def predict [n][d] (X: [n][d]f64) (w: [d]f64) (b: f64) : [n]f64 =
  f64.sum (X * w) + b

def mse [n][d] (X: [n][d]f64) (y: [n]f64) (w: [d]f64) (b: f64) =
  f64.sum ((predict X w b - y) ** 2) / f64.i64 n

entry loss [n][d] (X: [n][d]f64) (y: [n]f64) (w: [d]f64) (b: f64) = mse X y w b

entry grad [n][d] (X: [n][d]f64) (y: [n]f64) (w: [d]f64) (b: f64) =
  vjp (\(w, b) -> mse X y w b) (w, b) 1

-- | `iters` steps of size `rate` from w = 0, b = 0.
entry main [n][d] (X: [n][d]f64) (y: [n]f64) (rate: f64) (iters: i64) =
  loop (w, b) = (replicate d 0, 0) for _i < iters do
    let (gw, gb) = vjp (\(w, b) -> mse X y w b) (w, b) 1
    in (w - rate * gw, b - rate * gb)
