-- | An LSTM-style recurrence: a `loop` over the steps of an input sequence,
-- each step a few small matrix-vector products through sigmoid and tanh
-- gates; the objective is the sum of all hidden outputs, and its gradient
-- with respect to the weights comes from `vjp`. Reverse mode through a
-- loop is where urchin stores anything at all: the loop checkpoints its
-- state at every iteration (see the `checkpoints` column of
-- `urchin bench`).
--
-- The gates, for input x and state (h, c), with W, U, b per gate:
--   i = σ (Wᵢ x + Uᵢ h + bᵢ)   f = σ (W_f x + U_f h + b_f)
--   o = σ (Wₒ x + Uₒ h + bₒ)   g = tanh (W_g x + U_g h + b_g)
--   c' = f c + i g             h' = o tanh c'
-- AUTOMAP maps `matvec` over the four gates at once, and the gate
-- arithmetic over the vectors. The expected outputs below were computed
-- independently (the gradient by central differences).
--
-- Run it:   urchin run examples/lstm.fut -e grad < examples/lstm.in
-- ==
-- entry: main
-- input @ lstm.in
-- output { -0.25302075376016586 }

-- ==
-- entry: grad
-- input @ lstm.in
-- output { [[[-0.17482374, 0.29695931], [0.09755027, 0.04531816]],
--            [[-0.02607948, -0.10150425], [0.0269854, -0.04705706]],
--            [[-0.14738233, 0.07464602], [0.06730074, 0.04680148]],
--            [[0.67365417, 0.01785498], [0.77188071, 0.14618974]]]
--          [[[-0.00291241, -0.01136125], [0.00013133, -0.00203278]],
--            [[0.0256279, -0.00890698], [-0.00909991, 0.00676511]],
--            [[0.02820377, -0.01788081], [-0.00936049, 0.00283154]],
--            [[-0.08080057, 0.0411817], [-0.14254476, 0.06767894]]]
--          [[-0.14217944, 0.10038731], [-0.12899057, 0.05742768],
--           [-0.24695935, 0.10560255], [0.97593751, 1.31357341]] }

-- The same data for both, to compare their times (`urchin bench`).
-- ==
-- entry: main grad
-- compiled random input { [4][32][32]f64 [4][32][32]f64 [4][32]f64 [20][32]f64 }

def sigmoid (x: f64) = 1 / (1 + f64.exp (-x))

def matvec [m][n] (a: [m][n]f64) (v: [n]f64) : [m]f64 = f64.sum (a * v)

-- | Σ of the hidden outputs h over all steps, from h = c = 0.
def lstm [s][h] (w: [4][h][h]f64) (u: [4][h][h]f64) (b: [4][h]f64) (xs: [s][h]f64) =
  let (_, _, total) =
    loop (hid, c, total) = (replicate h 0, replicate h 0, 0) for x in xs do
      let pre = matvec w x + matvec u hid + b
      let (i, f, o, g) = (sigmoid pre[0], sigmoid pre[1], sigmoid pre[2], f64.tanh pre[3])
      let c' = f * c + i * g
      let hid' = o * f64.tanh c'
      in (hid', c', total + f64.sum hid')
  in total

entry main [s][h] (w: [4][h][h]f64) (u: [4][h][h]f64) (b: [4][h]f64) (xs: [s][h]f64) =
  lstm w u b xs

entry grad [s][h] (w: [4][h][h]f64) (u: [4][h][h]f64) (b: [4][h]f64) (xs: [s][h]f64) =
  vjp (\(w, u, b) -> lstm w u b xs) (w, u, b) 1
