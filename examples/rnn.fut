-- | A recurrent network: `h ← tanh (W h + U x + b)` over the 50 steps of
-- an input sequence, the squared distance of the last state from a
-- target as the loss, and its gradient with respect to `W`, `U` and `b`
-- by `vjp`. Reverse mode checkpoints the loop's state; the adjoints of
-- the weights, a sum of one outer product per step, become one matrix
-- product after the reversed loop (`core::contract`). The expected
-- outputs below were computed independently (JAX, float64).
--
-- Run it:   urchin run examples/rnn.fut -e grad < examples/rnn.in
-- Time it:  urchin bench examples/rnn.fut
-- ==
-- entry: main
-- input @ rnn.in
-- output { 2.172891720153451 }

-- ==
-- entry: grad
-- input @ rnn.in
-- output { [[-0.02625454921153547, 1.1673163506244095, -1.5736429290865543],
--           [1.9117926181440983, 0.4114328326217682, -2.0466763207264105],
--           [-0.367036603213285, -2.163438080236794, 2.838057215462391]]
--          [[-0.5190245911444263, -1.691627031135465], [0.5115986388768426, -4.419548173919585],
--           [0.5284438509965314, 3.284081676276915]]
--          [-2.815663754477333, 1.984826579802785, 3.9037996577176854] }

-- 50 steps, a state of 64, inputs of 64: the same data for both, to
-- compare their times (`urchin bench`).
-- ==
-- entry: main grad
-- compiled random input { [64][64]f64 [64][64]f64 [64]f64 [50][64]f64 [64]f64 }

def matvec [m][n] (a: [m][n]f64) (v: [n]f64) : [m]f64 = f64.sum (a * v)

-- | The squared distance of the last state from `y`, from h = 0.
def loss [s][h][d] (w: [h][h]f64) (u: [h][d]f64) (b: [h]f64) (xs: [s][d]f64) (y: [h]f64) =
  let hid = loop hid = replicate h 0 for x in xs do
              f64.tanh (matvec w hid + matvec u x + b)
  in f64.sum ((hid - y) * (hid - y))

entry main [s][h][d] (w: [h][h]f64) (u: [h][d]f64) (b: [h]f64) (xs: [s][d]f64) (y: [h]f64) =
  loss w u b xs y

entry grad [s][h][d] (w: [h][h]f64) (u: [h][d]f64) (b: [h]f64) (xs: [s][d]f64) (y: [h]f64) =
  vjp (\(w, u, b) -> loss w u b xs y) (w, u, b) 1
