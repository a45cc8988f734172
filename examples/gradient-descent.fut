-- # Gradient descent on a line
--
-- A lesson for `urchin literate`: fit a line `y = w x + b` to eight
-- points by gradient descent, with the gradient computed by reverse-mode
-- automatic differentiation. Render it with
--
--     urchin literate examples/gradient-descent.fut
--
-- which runs every `> ` directive below and writes
-- `gradient-descent.md` with the figures in `gradient-descent-img/`.
--
-- ## The data
--
-- Eight measurements that lie close to the line `y = 2 x + 1`.

def xs : []f64 = [0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5]
def ys : []f64 = [1.1, 1.9, 3.2, 3.9, 5.1, 6.0, 6.8, 8.1]

-- > :plot2d (xs, ys)

-- ## The model and its loss
--
-- A line predicts `w * x + b`. AUTOMAP lets us apply the same formula to
-- the whole array `xs` at once: `w * xs + b` is an array.

def predict (w: f64, b: f64) (x: f64) : f64 = w * x + b

-- The reference semantics shows how a prediction is computed, one
-- reduction at a time:

-- > :step predict (2, 1) 3

-- The loss is the mean squared error of the predictions.

def loss (w: f64, b: f64) : f64 =
  f64.sum ((w * xs + b - ys) ** 2) / f64.i64 (length xs)

-- > loss (0, 0)

-- ## The gradient
--
-- `:grad` gives the gradient of the loss with respect to both parameters.
-- At `(0, 0)` both components are negative: increasing `w` or `b`
-- lowers the loss.

-- > :grad loss (0, 0)

-- Seen along `w` alone (with `b = 1`), the loss is a parabola, and its
-- derivative (by forward mode, `jvp`) is the straight line that crosses
-- zero at the minimum.

-- > :plot --grad (\w -> loss (w, 1)) 0 4

-- The derivative is an ordinary program. `:vjp` shows it: a forward
-- sweep computes the residuals, and the return sweep carries the
-- result's cotangent, `seed`, back to `w` and `b`.

-- > :vjp loss

-- ## Descent
--
-- One step moves the parameters against the gradient, which `vjp`
-- computes in one reverse pass.

def step (lr: f64) (p: (f64, f64)) : (f64, f64) =
  let (gw, gb) = vjp loss p 1
  in (p.0 - lr * gw, p.1 - lr * gb)

-- Training takes `n` steps from `(0, 0)` and records the loss before
-- each one.

def train (lr: f64) (n: i64) : ((f64, f64), [n]f64) =
  loop (p, losses) = ((0, 0), replicate n 0) for i < n do
    (step lr p, losses with [i] = loss p)

-- The loss falls quickly, then levels off at the noise in the data.

-- > :plot (train 0.05 60).1

-- After 200 steps the parameters are close to the line the data came
-- from.

-- > (train 0.05 200).0

-- The fitted line through the data:

-- > :plot2d {data = (xs, ys), fit = (xs, map (predict (train 0.05 200).0) xs)}

-- ## Exercises
--
-- 1. Try the learning rates `0.01` and `0.2` in `train`. What happens
--    to the loss curve, and why?
-- 2. Change `loss` to the mean absolute error (`f64.abs`). Compare
--    `:vjp loss` with the version above.
