-- AD of `scan` by the general rule: operators over tuples (a linear
-- recurrence, a component-wise pair, integer components that are
-- constants, a segmented scan with boolean flags, dual numbers and 2×2
-- matrices, whose components depend on each other), and `scan`/`reduce`
-- whose operator reads a differentiated variable, also inside a `map`;
-- scans of arrays with an operator on whole arrays (matrix products),
-- whose recurrence is solved by a sequential loop.
-- ==
-- entry: f_linrec
-- input { [0.5, 0.5, 0.5] [1.0, 2.0, 3.0] }
-- output { [1.0, 2.5, 4.25] }
-- input { [2.0, -1.0, 0.25, 3.0] [0.5, 1.0, -2.0, 1.5] }
-- output { [0.5, 0.5, -1.875, -4.125] }

-- ==
-- entry: vjp_linrec
-- input { [0.5, 0.5, 0.5] [1.0, 2.0, 3.0] }
-- output { [0.0, 1.5, 2.5] [1.75, 1.5, 1.0] }

-- ==
-- entry: f_pair
-- input { [1.0, 2.0, 3.0] [4.0, 5.0, 6.0] }
-- output { [1.0, 3.0, 6.0] [4.0, 20.0, 120.0] }

-- ==
-- entry: vjp_pair
-- input { [1.0, 2.0, 3.0] [4.0, 5.0, 6.0] }
-- output { [3.0, 2.0, 1.0] [36.0, 28.0, 20.0] }

-- ==
-- entry: f_counted
-- input { [1.0, 2.0, 3.0, 4.0] }
-- output { [1.0, 1.5, 2.0, 2.5] }

-- ==
-- entry: f_segmented
-- input { [0.5, 1.0, 0.25, 2.0, 0.5] [true, false, true, false, false] }
-- output { [0.5, 2.0, 0.25, 2.75, 4.625] }

-- ==
-- entry: vjp_segmented
-- input { [0.5, 1.0, 0.25, 2.0, 0.5] [true, false, true, false, false] }
-- output { [3.0, 1.5, 8.5, 3.125, 3.75] }

-- ==
-- entry: f_scan_free
-- input { 0.5 [1.0, 2.0, 3.0] }
-- output { [1.0, 4.0, 13.0] }

-- ==
-- entry: vjp_scan_free
-- input { 0.5 [1.0, 2.0, 3.0] }
-- output { 19.0 [8.0, 5.25, 3.0] }

-- ==
-- entry: f_reduce_free
-- input { 0.5 [1.0, 2.0, 3.0] }
-- output { 13.0 }
-- input { -0.25 [1.0, 2.0, 0.5, 1.5] }
-- output { 3.1796875 }

-- ==
-- entry: f_reduce_free_pair
-- input { 2.0 [1.0, 2.0, 3.0] [0.5, 1.5, 1.0] }
-- output { 52.0 0.75 }

-- ==
-- entry: f_map_scan_free
-- input { 0.5 [[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]] }
-- output { [[1.0, 4.0, 13.0], [0.5, -0.75, 0.5]] }

-- ==
-- entry: f_map_linrec
-- input { [[0.5, 0.5], [2.0, -1.0]] [[1.0, 2.0], [3.0, 4.0]] }
-- output { 7.5 }

-- ==
-- entry: f_scan_matmul
-- input { [[[1.0, 2.0], [3.0, 4.0]], [[0.5, 0.0], [1.0, 1.0]], [[0.0, 1.0], [-1.0, 0.5]]] }
-- output { [[[1.0, 2.0], [3.0, 4.0]], [[2.5, 2.0], [5.5, 4.0]], [[-2.0, 3.5], [-4.0, 7.5]]] }

-- ==
-- entry: vjp_scan_matmul
-- input { [[[1.0, 2.0], [3.0, 4.0]], [[0.5, 0.0], [1.0, 1.0]]] }
-- output { [[[1.5, 3.0], [1.5, 3.0]], [[4.0, 4.0], [6.0, 6.0]]] }

-- ==
-- entry: f_scan_matmul_free
-- input { 0.5 [[[1.0, 2.0], [3.0, 4.0]], [[0.5, 0.0], [1.0, 1.0]], [[0.0, 1.0], [-1.0, 0.5]]] }

-- ==
-- entry: f_reduce_matmul_free
-- input { 0.5 [[[1.0, 2.0], [3.0, 4.0]], [[0.5, 0.0], [1.0, 1.0]], [[0.0, 1.0], [-1.0, 0.5]]] }

-- ==
-- entry: f_dual
-- input { [0.5, 2.0, -0.75, 1.5] [1.0, -0.5, 0.25, 2.0] }
-- output { [0.5, 1.0, -0.75, -1.125] [1.0, 1.75, -1.0625, -3.09375] }

-- ==
-- entry: vjp_dual
-- input { [0.5, 2.0, -0.75, 1.5] [1.0, -0.5, 0.25, 2.0] }
-- output { [-2.0625, -1.75, 8.875, -1.8125] [-0.75, -0.4375, 2.5, -0.75] }

-- ==
-- entry: vjp_mat4
-- input { [1.0, 0.5, 0.0] [2.0, 0.0, 1.0] [3.0, 1.0, -1.0] [4.0, 1.0, 0.5] }
-- output { [2.5, 24.0, 19.0] [7.0, 11.0, 27.0] [6.5, 34.0, 14.0] [14.0, 16.0, 20.0] }

-- ys₀ = b₀, ysᵢ = ysᵢ₋₁·aᵢ + bᵢ: the second component of the scan of
-- (a₁, b₁) ⊙ (a₂, b₂) = (a₁a₂, b₁a₂ + b₂).
entry f_linrec (as: []f64) (bs: []f64) : []f64 =
  let (_, ys) = unzip (scan (\(a1, b1) (a2, b2) -> (a1 * a2, b1 * a2 + b2)) (1, 0) (zip as bs))
  in ys

entry vjp_linrec [n] (as: [n]f64) (bs: [n]f64) =
  vjp (\(as, bs) -> f_linrec as bs) (as, bs) (replicate n 1)

entry f_pair (xs: []f64) (ys: []f64) : ([]f64, []f64) =
  unzip (scan (\(a1, b1) (a2, b2) -> (a1 + a2, b1 * b2)) (0, 1) (zip xs ys))

entry vjp_pair [n] (xs: [n]f64) (ys: [n]f64) =
  vjp (\(xs, ys) -> let (a, b) = f_pair xs ys in f64.sum a + f64.sum b) (xs, ys) 1

-- The running mean: an integer count rides along with the sum.
entry f_counted (xs: []f64) : []f64 =
  let ps = scan (\(s1, n1) (s2, n2) -> (s1 + s2, n1 + n2)) (0, 0i64) (zip xs (map (\_ -> 1i64) xs))
  in map (\(s, n) -> s / f64.i64 n) ps

-- A segmented scan of a ⊕ b = a + b + a·b, restarting at each flag.
entry f_segmented (vs: []f64) (fs: []bool) : []f64 =
  let (r, _) = unzip (scan (\(v1, f1) (v2, f2) -> (if f2 then v2 else v1 + v2 + v1 * v2, f1 || f2))
                           (0, false) (zip vs fs))
  in r

entry vjp_segmented [n] (vs: [n]f64) (fs: [n]bool) =
  vjp (\vs -> f64.sum (f_segmented vs fs)) vs 1

-- a ⊙ b = a + b + c·a·b is associative for every c (1 + c·(a ⊙ b) =
-- (1 + c·a)(1 + c·b)), and reads the differentiated c.
entry f_scan_free (c: f64) (xs: []f64) : []f64 =
  scan (\a b -> a + b + c * a * b) 0 xs

entry vjp_scan_free [n] (c: f64) (xs: [n]f64) =
  vjp (\(c, xs) -> f64.sum (f_scan_free c xs)) (c, xs) 1

entry f_reduce_free (c: f64) (xs: []f64) : f64 =
  reduce (\a b -> a + b + c * a * b) 0 xs

entry f_reduce_free_pair (c: f64) (xs: []f64) (ys: []f64) : (f64, f64) =
  reduce (\(a1, b1) (a2, b2) -> (a1 + a2 + c * a1 * a2, b1 * b2)) (0, 1) (zip xs ys)

entry f_map_scan_free (c: f64) (xss: [][]f64) : [][]f64 =
  map (\xs -> scan (\a b -> a + b + c * a * b) 0 xs) xss

entry f_map_linrec (ass: [][]f64) (bss: [][]f64) : f64 =
  f64.sum (map2 (\as bs -> f64.sum (f_linrec as bs)) ass bss)

def matmul [n] (a: [n][n]f64) (b: [n][n]f64) : [n][n]f64 =
  map (\r -> map (\c -> f64.sum (map2 (*) r c)) (transpose b)) a

entry f_scan_matmul (ms: [][2][2]f64) : [][2][2]f64 =
  scan matmul [[1, 0], [0, 1]] ms

entry vjp_scan_matmul [n] (ms: [n][2][2]f64) =
  vjp (\ms -> f64.sum (flatten (flatten (f_scan_matmul ms)))) ms 1

-- a ⊙ b = a·S·b with S = [[1, c], [0, 1]] is associative, with neutral
-- element S⁻¹, and reads c.
entry f_scan_matmul_free (c: f64) (ms: [][2][2]f64) : [][2][2]f64 =
  scan (\a b -> matmul (matmul a [[1, c], [0, 1]]) b) [[1, -c], [0, 1]] ms

entry f_reduce_matmul_free (c: f64) (ms: [][2][2]f64) : [2][2]f64 =
  reduce (\a b -> matmul (matmul a [[1, c], [0, 1]]) b) [[1, -c], [0, 1]] ms

-- Dual numbers multiply associatively, (a₁, b₁)·(a₂, b₂) = (a₁a₂, a₁b₂ +
-- b₁a₂): the scan is a running product with its derivative. Unlike the
-- operators above, its transposed Jacobians are not diagonal (b depends
-- on a), so the adjoint recurrence couples the components.
entry f_dual (as: []f64) (bs: []f64) : ([]f64, []f64) =
  unzip (scan (\(a1, b1) (a2, b2) -> (a1 * a2, a1 * b2 + b1 * a2)) (1, 0) (zip as bs))

entry vjp_dual [n] (as: [n]f64) (bs: [n]f64) =
  vjp (\(as, bs) -> let (a, b) = f_dual as bs in f64.sum a + f64.sum b) (as, bs) 1

-- 2×2 matrix products as a scan over 4-tuples of scalars: every entry of
-- the product depends on two of each operand's, a dense 4×4 Jacobian.
def f_mat4 (as: []f64) (bs: []f64) (cs: []f64) (ds: []f64) =
  unzip4 (scan (\(a, b, c, d) (e, f, g, h) -> (a * e + b * g, a * f + b * h, c * e + d * g, c * f + d * h))
               (1, 0, 0, 1) (zip4 as bs cs ds))

entry vjp_mat4 [n] (as: [n]f64) (bs: [n]f64) (cs: [n]f64) (ds: [n]f64) =
  vjp (\(as, bs, cs, ds) ->
         let (w, x, y, z) = f_mat4 as bs cs ds
         in f64.sum w + 2 * f64.sum x + 3 * f64.sum y + 4 * f64.sum z)
      (as, bs, cs, ds) 1
