-- | ADBench's LSTM (the standard AD benchmark's recurrent model, as
-- Futhark's ADBench implementation writes it): `l` layers of cells with
-- element-wise weights over `b` features, run over a sequence of `c`
-- characters; each step predicts the next character and the objective is
-- the mean cross-entropy, `-Σₜ Σ ygoldₜ₊₁ · log softmax (ypredₜ) / ((c −
-- 1) b)`. Its Jacobian (one output: the gradient) with respect to the
-- layers' weights and biases and the extra parameters (input weight,
-- output weight, output bias) comes from `vjp`; the state is not
-- differentiated. The expected outputs below were computed independently
-- (JAX, float64).
--
-- Run it:   urchin run examples/adlstm.fut -e grad < examples/adlstm.in
-- Time it:  urchin bench examples/adlstm.fut
-- ==
-- entry: main
-- input @ adlstm.in
-- output { -0.08304546628681561 }

-- ==
-- entry: grad
-- input @ adlstm.in
-- output { [[[[-0.00026954824257144106, -7.908384778720658e-06, 0.00041759867420138123], [-0.0014790008515356036, 0.00014421581992560823, -5.294160367218109e-05], [-9.083836607716076e-05, 0.0005082733165736953, 0.0025977894948856564], [1.983825262197119e-05, 0.0007791795902206626, -6.618577997250305e-05]], [[0.0004247925385245814, -0.00028747005598694247, -0.0001269650246796994], [-0.0009490311232692735, -0.00035290789160928636, -8.253347456380608e-05], [0.00023602678433300855, -0.005326051948555923, 0.001053954514981589], [0.0032881568307435737, -0.0014921097047926333, -2.9232814326102495e-05]]],
--            [[[0.00020258246754104706, 0.0010388173074199905, 0.0009018866340221806], [-0.0035307164829868503, -0.0002202540728670128, -0.00019699828589803], [0.0001792346395124878, 0.004273268269402433, 0.005408391759722407], [-0.028764675115479768, -0.0034588360861098812, -3.7737426035748646e-05]], [[0.0031624350026323274, 0.006416307001539987, -0.00232328168771531], [0.0024943776033330986, 0.0069138722091886574, -0.0002763740683455404], [0.008161394497832042, 0.037027255686498756, -0.010658532873939516], [0.01855262361503151, 0.009036570425343966, 9.56108518969739e-07]]]]
--          [[0.0008913678457784935, 0.0034257506879145946, -0.004263535727358618], [0.0061079110839942444, -0.0328403617592815, 0.0261094246968814], [0.09900649187525074, -0.14656442151483656, 0.047557929639585786]] }

-- ADBench's shape: 2 layers, 14 features, 1,024 characters.
-- ==
-- entry: main grad
-- compiled random input { [2][2][4][14]f64 [3][14]f64 [2][2][14]f64 [1024][14]f64 }

def sigmoid (x: f64) = 1 / (1 + f64.exp (-x))

-- | One cell: forget, input and output gates and the candidate, each
-- from one of `x` and `hid` times a weight per feature plus a bias.
def cell [b] (w: [4][b]f64) (bias: [4][b]f64) (hid: [b]f64) (c: [b]f64) (x: [b]f64)
    : (*[b]f64, *[b]f64) =
  let forget = sigmoid (x * w[0] + bias[0])
  let ingate = sigmoid (hid * w[1] + bias[1])
  let outgate = sigmoid (x * w[2] + bias[2])
  let change = f64.tanh (hid * w[3] + bias[3])
  let c' = c * forget + ingate * change
  in (outgate * f64.tanh c', c')

def logsumexp [n] (v: [n]f64) =
  let top = f64.maximum v
  in top + f64.log (f64.sum (f64.exp (v - top)))

-- | The prediction of each character from the one before, through the
-- layers (the state of layer `i` is `state[i] = [hidden, cell]`).
def objective [l][b][c] (params: [l][2][4][b]f64) (extra: [3][b]f64)
                        (state: [l][2][b]f64) (seq: [c][b]f64) : f64 =
  let (_, total) =
    loop (state, total) = (copy state, 0) for t < c - 1 do
      let (x, state) =
        loop (x, state) = (seq[t] * extra[0], state) for i < l do
          let (h, c') = cell params[i, 0] params[i, 1] state[i, 0] state[i, 1] x
          in (h, state with [i] = [h, c'])
      let ypred = x * extra[1] + extra[2]
      in (state, total + f64.sum (seq[t + 1] * (ypred - logsumexp ypred)))
  in -total / f64.i64 ((c - 1) * b)

entry main [l][b][c] (params: [l][2][4][b]f64) (extra: [3][b]f64)
                     (state: [l][2][b]f64) (seq: [c][b]f64) =
  objective params extra state seq

entry grad [l][b][c] (params: [l][2][4][b]f64) (extra: [3][b]f64)
                     (state: [l][2][b]f64) (seq: [c][b]f64) =
  vjp (\(params, extra) -> objective params extra state seq) (params, extra) 1
