-- Reverse-mode AD of `hist`/`reduce_by_index` by the general rule (thesis
-- 3.4.2): operators other than +, *, min and max on scalars, tuples (with
-- an integer component, which gets no adjoint) and rows, and the rule for
-- rows with element-wise `+`; operators that read a differentiated
-- variable (`f_hist_free`, `f_rbi_free*`). Bin 0 gets three values, bin 1 one, bin 2
-- two and bin 3 none; indices 7 and -1 are out of range, so their values
-- are ignored and get no adjoint.
-- ==
-- entry: f_rbi_custom
-- input { [0.1, 0.2, 0.3, 0.4] [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8] }
-- output { [1.5168, 0.8, 1.652, 0.4] }

-- a ⊙ b = (1 + a)(1 + b) − 1: each factor gets its bin's adjoint times
-- the product of the other (1 + ·) of the bin.
-- ==
-- entry: vjp_rbi_custom
-- input { [0.1, 0.2, 0.3, 0.4] [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8] }
-- output { [2.288, 3.0, 6.12, 4.0] [2.288, 6.63, 1.936, 0.0, 2.4, 1.573, 4.68, 0.0] }

-- ==
-- entry: f_rbi_affine
-- input { [1.0, 1.5, 0.5, 2.0] [0.1, 0.2, 0.3, 0.4]
--         [1.0, 2.0, 3.0, 4.0, 0.5, 0.5, 2.0, 3.0]
--         [0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0] }
-- output { [1.5, 0.75, 2.0, 2.0] [4.65, 2.6, 6.7, 0.4] }

-- Bin 2: a = da₂·va₁·va₆ and b = (db₂·va₁ + vb₁)·va₆ + vb₆, seeded with
-- (1, 3): v̄a₁ = da₂·va₆ + 3·db₂·va₆ = 2.8, v̄b₁ = 3·va₆ = 6, ….
-- ==
-- entry: vjp_rbi_affine
-- input { [1.0, 1.5, 0.5, 2.0] [0.1, 0.2, 0.3, 0.4]
--         [1.0, 2.0, 3.0, 4.0, 0.5, 0.5, 2.0, 3.0]
--         [0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0] }
-- output { [1.5, 0.5, 4.0, 1.0] [1.5, 1.0, 12.0, 4.0]
--          [1.65, 2.8, 0.8, 0.0, 1.9, 6.3, 5.8, 0.0]
--          [1.5, 6.0, 0.5, 0.0, 2.0, 1.0, 3.0, 0.0] }

-- ==
-- entry: f_hist_mat2
-- input { [1.0, 0.5, -0.5, 1.0, 0.25, 2.0, 1.5, -1.0]
--         [0.5, 1.0, 0.25, -1.0, 1.0, 0.5, 2.0, 1.0]
--         [0.0, 0.5, 1.0, 0.25, -0.5, 1.0, 0.5, 0.5]
--         [1.0, -0.5, 0.5, 2.0, 1.0, 0.25, -1.0, 1.5] }

-- ==
-- entry: f_hist_decay
-- input { [1.0, 2.0, 3.0, 4.0, 0.5, 0.5, 2.0, 3.0] }
-- output { [2.25, 0.5, 3.0, 0.0] }

-- Bin 0: ((v₀·½ + v₂)·½ + v₅).
-- ==
-- entry: vjp_hist_decay
-- input { [1.0, 2.0, 3.0, 4.0, 0.5, 0.5, 2.0, 3.0] }
-- output { [0.25, 1.5, 0.5, 0.0, 2.0, 1.0, 3.0, 0.0] }

-- ==
-- entry: f_rbi_rows_add
-- input { [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]
--         [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0],
--          [1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]] }
-- output { [[10.0, 14.0], [4.0, 6.0], [13.0, 16.0], [7.0, 8.0]] }

-- ==
-- entry: vjp_rbi_rows_add
-- input { [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]
--         [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0],
--          [1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]] }
-- output { [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]
--          [[1.0, 2.0], [5.0, 6.0], [1.0, 2.0], [0.0, 0.0],
--           [3.0, 4.0], [1.0, 2.0], [5.0, 6.0], [0.0, 0.0]] }

-- ==
-- entry: f_rbi_rows_mul
-- input { [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]
--         [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0],
--          [1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]] }
-- output { [[15.0, 96.0], [3.0, 8.0], [75.0, 144.0], [7.0, 8.0]] }

-- ==
-- entry: vjp_rbi_rows_mul
-- input { [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]
--         [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0],
--          [1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]] }
-- output { [[15.0, 48.0], [1.0, 2.0], [15.0, 24.0], [1.0, 1.0]]
--          [[15.0, 48.0], [25.0, 36.0], [3.0, 16.0], [0.0, 0.0],
--           [3.0, 4.0], [5.0, 24.0], [15.0, 24.0], [0.0, 0.0]] }

def is : []i64 = [0, 2, 0, 7, 1, 0, 2, -1]

entry f_rbi_custom (dest: []f64) (vs: []f64) : []f64 =
  reduce_by_index (copy dest) (\a b -> a + b + a * b) 0 is vs

entry vjp_rbi_custom (dest: []f64) (vs: []f64) =
  vjp (\(dest, vs) -> f_rbi_custom dest vs) (dest, vs) [1, 2, 3, 4]

-- The composition of affine maps x ↦ a·x + b.
def affine (a1: f64, b1: f64) (a2: f64, b2: f64) : (f64, f64) = (a1 * a2, b1 * a2 + b2)

entry f_rbi_affine (da: []f64) (db: []f64) (va: []f64) (vb: []f64) : ([]f64, []f64) =
  unzip (reduce_by_index (zip (copy da) (copy db)) affine (1, 0) is (zip va vb))

entry vjp_rbi_affine (da: []f64) (db: []f64) (va: []f64) (vb: []f64) =
  vjp (\(da, db, va, vb) -> f_rbi_affine da db va vb) (da, db, va, vb)
      ([1, 1, 1, 1], [1, 2, 3, 4])

-- 2×2 matrix products (not commutative).
def mat2 (a: f64, b: f64, c: f64, d: f64) (e: f64, f: f64, g: f64, h: f64) =
  (a * e + b * g, a * f + b * h, c * e + d * g, c * f + d * h)

entry f_hist_mat2 (as: []f64) (bs: []f64) (cs: []f64) (ds: []f64) =
  unzip4 (hist mat2 (1, 0, 0, 1) 4 is (zip4 as bs cs ds))

-- A per-bin sum with older values decayed by ½ per later value; the
-- counts are an integer component (no adjoint).
entry f_hist_decay (vs: []f64) : []f64 =
  let op (x1: f64, n1: i64) (x2: f64, n2: i64) = (x1 * 0.5 ** f64.i64 n2 + x2, n1 + n2)
  let (s, _) = unzip (hist op (0, 0) 4 is (zip vs (map (\_ -> 1i64) vs)))
  in s

entry vjp_hist_decay (vs: []f64) = vjp f_hist_decay vs [1, 2, 3, 4]

entry f_rbi_rows_add [d] (dest: [4][d]f64) (vs: [8][d]f64) : [4][d]f64 =
  reduce_by_index (copy dest) (map2 (+)) (replicate d 0) is vs

entry vjp_rbi_rows_add [d] (dest: [4][d]f64) (vs: [8][d]f64) =
  vjp (\(dest, vs) -> f_rbi_rows_add dest vs) (dest, vs) [[1, 2], [3, 4], [5, 6], [7, 8]]

-- Element-wise `*` on rows: by the general rule.
entry f_rbi_rows_mul [d] (dest: [4][d]f64) (vs: [8][d]f64) : [4][d]f64 =
  reduce_by_index (copy dest) (map2 (*)) (replicate d 1) is vs

entry vjp_rbi_rows_mul [d] (dest: [4][d]f64) (vs: [8][d]f64) =
  vjp (\(dest, vs) -> f_rbi_rows_mul dest vs) (dest, vs) (replicate 4 (replicate d 1))

-- ==
-- entry: f_hist_free
-- input { 0.5 [1.0, 2.0, 3.0, 4.0] }
-- output { [5.5, 2.0, 4.0] }

-- ==
-- entry: f_rbi_free
-- input { 0.5 [1.0, 0.5, 2.0] [1.0, 2.0, 3.0, 4.0, 0.5, 0.25] }

-- ==
-- entry: vjp_rbi_free
-- input { 0.5 [1.0, 0.5, 2.0] [1.0, 2.0, 3.0, 4.0, 0.5, 0.25] }
-- output { 15.5625 [4.21875, 2.0, 1.25] [4.21875, 1.25, 2.53125, 0.0, 2.0, 5.625] }

-- ==
-- entry: f_rbi_free_pair
-- input { 0.5 [1.0, 2.0, 0.5, 1.5] [0.5, 1.0, 2.0, -1.0] }

-- Operators that read the differentiated `c` (associative for every c:
-- 1 + c·(a ⊙ b) = (1 + c·a)(1 + c·b)), reversed as segmented scans.
entry f_hist_free (c: f64) (vs: []f64) : []f64 =
  hist (\a b -> a + b + c * a * b) 0 3 [0, 1, 0, 2] vs

entry f_rbi_free (c: f64) (d: []f64) (vs: []f64) : []f64 =
  reduce_by_index (copy d) (\a b -> a + b + c * a * b) 0 [0, 1, 0, 7, 2, 0] vs

entry vjp_rbi_free (c: f64) (d: []f64) (vs: []f64) =
  vjp (\(c, d, vs) -> f64.sum (f_rbi_free c d vs)) (c, d, vs) 1

entry f_rbi_free_pair (c: f64) (as: []f64) (bs: []f64) : ([]f64, []f64) =
  unzip (reduce_by_index (replicate 2 (0, 1))
                         (\(a1, b1) (a2, b2) -> (a1 + a2 + c * a1 * a2, b1 * b2)) (0, 1)
                         [1, 0, 1, -1] (zip as bs))

-- ==
-- entry: f_hist_rows_free
-- input { 0.5 [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [0.5, 0.25]] }
-- output { [[8.5, 14.0], [3.0, 4.0]] }

-- Rows with an element-wise operator that reads `c`: interchanged into a
-- map of scalar histograms over the columns before AD.
entry f_hist_rows_free (c: f64) (vss: [][]f64) : [][]f64 =
  hist (map2 (\a b -> a + b + c * a * b)) (replicate 2 0) 2 [0, 1, 0, 5] vss
