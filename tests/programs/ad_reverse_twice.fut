-- Reverse mode over reverse mode: each `f_` entry is itself a gradient,
-- so the checker differentiates a derivative program (its `withacc`
-- and `upd` from gathers inside maps, reversed loops, reduce and scan
-- rules) in both modes. `hess_*` compares the Hessian-vector product by
-- vjp of vjp with jvp of vjp.
-- ==
-- entry: f_grad_ring
-- input { [1.0, 2.0, 3.0] }
-- output { [5.0, 4.0, 3.0] }

-- ==
-- entry: f_grad_rows
-- input { [[1.0, 2.0], [3.0, 0.5]] }
-- output { [[12.0, 12.25], [6.0, 2.0]] }

-- ==
-- entry: f_grad_loop
-- input { [0.5, 1.0, 1.5] }

-- ==
-- entry: f_grad_scan
-- input { 0.5 [1.0, 2.0, 0.5] }

-- ==
-- entry: f_grad_hist
-- input { [0.5, 1.0, 1.5, 2.0] }

-- ==
-- entry: hess_ring
-- input { [1.0, 2.0, 3.0] [1.0, -1.0, 0.5] }
-- output { true }

-- Σᵢ xsᵢ·xs₍ᵢ₊₁₎ mod n: its gradient reads xs at two gathered indices.
def ring (xs: []f64) : f64 =
  f64.sum (map (\i -> xs[i] * xs[(i + 1) % length xs]) (iota (length xs)))

entry f_grad_ring (xs: []f64) : []f64 = vjp ring xs 1

-- A free row read inside a nested map.
entry f_grad_rows (xss: [][]f64) : [][]f64 =
  vjp (\xss -> f64.sum (map (\r -> f64.sum (map (\i -> r[i] * r[i] * xss[0][i]) (iota (length r)))) xss)) xss 1

entry f_grad_loop (xs: []f64) : []f64 =
  vjp (\xs -> f64.sum (loop ys = xs for _i < 3 do map (\y -> f64.sin y * 1.5 + y * ys[0]) ys)) xs 1

entry f_grad_scan (c: f64) (xs: []f64) : (f64, []f64) =
  vjp (\(c, xs) -> f64.sum (scan (\a b -> a + b + c * a * b) 0 (map (\x -> x * x) xs))) (c, xs) 1

entry f_grad_hist (vs: []f64) : []f64 =
  vjp (\vs -> let h = hist (*) 1 2 [0, 1, 0, 1] vs in f64.sum (map (\x -> x * x) h)) vs 1

entry hess_ring [n] (xs: [n]f64) (v: [n]f64) : bool =
  let by_rev = vjp (\xs -> f64.sum (map2 (*) (f_grad_ring xs) v)) xs 1
  let by_fwd = jvp f_grad_ring xs v
  in and (map2 (\a b -> f64.abs (a - b) < 1e-9) by_rev by_fwd)
