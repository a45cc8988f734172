-- A loop stores the results of its costly statements (here the
-- matrix-vector product of each step) besides its state, and the reversed
-- loop reads them back. The gradient must be the same as if it had
-- recomputed them: checked by hand on a 1×1 matrix, where two steps of
-- v' = (A v)² from v = 1 give a⁶ and the gradient 6a⁵, and against
-- forward mode (one `jvp` per matrix entry) for `for` and `while` loops.
-- ==
-- entry: grad_for
-- input { [[2.0]] [1.0] }
-- output { [[192.0]] }

-- ==
-- entry: agrees_for agrees_while
-- input { [[0.5, -0.25, 0.125], [0.75, 0.5, -0.5], [-0.3, 0.2, 0.9]] [1.0, -2.0, 0.5] }
-- output { true }

def matvec [n] (a: [n][n]f64) (v: [n]f64) = map (\r -> f64.sum (r * v)) a

def step [n] (a: [n][n]f64) (v: [n]f64) = map (\y -> y * y) (matvec a v)

def f_for [n] (x: [n]f64) (a: [n][n]f64) =
  f64.sum (loop v = x for _i < 2 do step a v)

-- The same, as a `while` loop that also counts its steps.
def f_while [n] (x: [n]f64) (a: [n][n]f64) =
  let (v, _) = loop (v, k) = (x, 0i64) while k < 2 do (step a v, k + 1)
  in f64.sum v

entry grad_for [n] (a: [n][n]f64) (x: [n]f64) = vjp (f_for x) a 1

-- The reverse-mode gradient against forward mode, entry by entry.
def agrees [n] (f: [n][n]f64 -> f64) (a: [n][n]f64) =
  let g = vjp f a 1
  let fwd =
    tabulate_2d n n (\i j ->
      jvp f a (tabulate_2d n n (\k l -> if k == i && l == j then 1 else 0)))
  in and (map2 (\x y -> f64.abs (x - y) <= 1e-12 * (1 + f64.abs y)) (flatten g) (flatten fwd))

entry agrees_for [n] (a: [n][n]f64) (x: [n]f64) = agrees (f_for x) a

entry agrees_while [n] (a: [n][n]f64) (x: [n]f64) = agrees (f_while x) a

-- A rank-2 checkpoint that is not square: each step multiplies the state
-- by k matrices (a [k][m] result, with k ≠ m), which the loop stores.
-- ==
-- entry: agrees_batched
-- input { [[[0.5, -0.25, 0.125], [0.75, 0.5, -0.5], [-0.3, 0.2, 0.9]],
--          [[0.1, 0.4, -0.2], [-0.6, 0.3, 0.25], [0.2, -0.1, 0.5]]]
--         [1.0, -2.0, 0.5] }
-- output { true }

def batched_step [k][m] (bs: [k][m][m]f64) (v: [m]f64) =
  let t = map (\b -> map (\r -> f64.sum (r * v)) b) bs
  in map (\c -> c * c) (map f64.sum (transpose t))

def f_batched [k][m] (x: [m]f64) (bs: [k][m][m]f64) =
  f64.sum (loop v = x for _i < 2 do batched_step bs v)

entry agrees_batched [k][m] (bs: [k][m][m]f64) (x: [m]f64) =
  let g = vjp (f_batched x) bs 1
  let fwd =
    tabulate_3d k m m (\i j l ->
      jvp (f_batched x) bs
          (tabulate_3d k m m (\a c d -> if a == i && c == j && d == l then 1 else 0)))
  in and (map2 (\x y -> f64.abs (x - y) <= 1e-12 * (1 + f64.abs y)) (flatten_3d g) (flatten_3d fwd))
