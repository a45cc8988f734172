-- A `rep` takes its length from sizes (issue 37): the length the size
-- check finds for it (the arrays it is combined with, a parameter's, a
-- declared result's, a coercion's) is the length of the array it makes
-- where it is needed as an array of its own, as in `transpose (rep x)`,
-- the thesis's MRI-Q with implicit maps (figure 4.17b; `qr` and `qi` of
-- its explicit twin `mriq_maps`). A `rep` used only along a `map` stays
-- a value of no length.
-- ==
-- entry: mriq mriq_maps
-- input { [1f32, 2f32] [1f32, 2f32] [1f32, 2f32]
--         [0.5f32, 1f32, 1.5f32] [0.5f32, 1f32, 1.5f32] [0.5f32, 1f32, 1.5f32]
--         [1f32, 2f32] [1f32, 2f32] }
-- output { [6f32, 10f32, 6f32] }
-- ==
-- entry: sgemm sgemm_maps
-- input { [[1f32, 2f32], [3f32, 4f32]] [[1f32, 0f32, 1f32], [0f32, 1f32, 1f32]]
--         [[1f32, 1f32, 1f32], [1f32, 1f32, 1f32]] 2f32 1f32 }
-- output { [[3f32, 5f32, 7f32], [7f32, 9f32, 15f32]] }
-- ==
-- entry: outer outer_anonymous
-- input { [1, 2] [3, 4, 5] }
-- output { [[3, 6], [4, 8], [5, 10]] }
-- input { empty([0]i32) [3, 4] }
-- output { [empty([0]i32), empty([0]i32)] }
-- ==
-- entry: declared coerced
-- input { 2i64 [1, 2, 3] }
-- output { [[1, 2, 3], [1, 2, 3]] }

entry mriq [nK][nX]
  (kx: [nK]f32) (ky: [nK]f32) (kz: [nK]f32)
  (x: [nX]f32) (y: [nX]f32) (z: [nX]f32)
  (phiR: [nK]f32) (phiI: [nK]f32) : [nX]f32 =
  let phiM = phiR * phiR + phiI * phiI
  let as = 2 * f32.pi * (kx * transpose (rep x)
                         + ky * transpose (rep y)
                         + kz * transpose (rep z))
  let qr = f32.sum (f32.cos as * phiM)
  let qi = f32.sum (f32.sin as * phiM)
  in map f32.round (qr + qi)

entry mriq_maps [nK][nX]
  (kx: [nK]f32) (ky: [nK]f32) (kz: [nK]f32)
  (x: [nX]f32) (y: [nX]f32) (z: [nX]f32)
  (phiR: [nK]f32) (phiI: [nK]f32) : [nX]f32 =
  let phiM = map2 (\r i -> r * r + i * i) phiR phiI
  let as = map3 (\x_e y_e z_e ->
                   map (2 * f32.pi *)
                       (map3 (\kx_e ky_e kz_e -> kx_e * x_e + ky_e * y_e + kz_e * z_e)
                             kx ky kz))
                x y z
  let qr = map (\a -> f32.sum (map2 (*) phiM (map f32.cos a))) as
  let qi = map (\a -> f32.sum (map2 (*) phiM (map f32.sin a))) as
  in map f32.round (map2 (+) qr qi)

entry sgemm [n][m][p] (a: [n][m]f32) (b: [m][p]f32) (c: [n][p]f32) (alpha: f32) (beta: f32) : [n][p]f32 =
  alpha * f32.sum (transpose (rep a) * rep (transpose b)) + beta * c

entry sgemm_maps [n][m][p] (a: [n][m]f32) (b: [m][p]f32) (c: [n][p]f32) (alpha: f32) (beta: f32) : [n][p]f32 =
  map2 (\ar cr -> map2 (\bc x -> alpha * f32.sum (map2 (*) ar bc) + beta * x) (transpose b) cr) a c

entry outer [n][m] (xs: [n]i32) (ys: [m]i32) : [m][n]i32 = xs * transpose (rep ys)

-- The length of `rep ys` is that of the parameter `xs`, which no size
-- names.
entry outer_anonymous (xs: []i32) (ys: []i32) = xs * transpose (rep ys)

entry declared [m] (n: i64) (ys: [m]i32) : [n][m]i32 = rep ys

entry coerced [m] (n: i64) (ys: [m]i32) = rep ys :> [n][m]i32
