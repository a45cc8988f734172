-- | MRI-Q from the Parboil benchmarks: the matrix Q used in 3-D MRI
-- reconstruction. For every voxel (x, y, z),
--   Qr = Σₖ |φₖ|² cos (2π (kxₖ x + kyₖ y + kzₖ z)),
--   Qi = Σₖ |φₖ|² sin (2π (kxₖ x + kyₖ y + kzₖ z)),
-- a sum over the k-space samples. `qvoxel` is written for one voxel, on
-- whole k-space vectors (AUTOMAP maps the arithmetic, `f64.cos` and
-- `f64.sin` over them), and AUTOMAP maps it over all voxels. The gradient
-- of Σ (Qr + Qi) with respect to the voxel coordinates is by `vjp`.
--
-- Run it:   urchin run examples/mriq.fut < examples/mriq.in
-- ==
-- entry: main
-- input @ mriq.in
-- output { [-0.422745751406263, -0.38627124296868437]
--          [1.776605897661415, 0.18882064536894183] }

-- ==
-- entry: grad
-- input @ mriq.in
-- output { [-1.8861500580190285, -1.351000311334186]
--          [-0.5042566613447056, -0.9896594210260723]
--          [-2.632910205988852, 1.8849555921538759] }

-- The same data for both, to compare their times (`urchin bench`).
-- ==
-- entry: main grad
-- compiled random input { [2048]f64 [2048]f64 [2048]f64 [4096]f64 [4096]f64 [4096]f64 [2048]f64 [2048]f64 }

def qvoxel [k] (kx: [k]f64) (ky: [k]f64) (kz: [k]f64) (phi_mag: [k]f64) (x: f64) (y: f64) (z: f64) =
  let arg = 2 * f64.pi * (kx * x + ky * y + kz * z)
  in (f64.sum (phi_mag * f64.cos arg), f64.sum (phi_mag * f64.sin arg))

def mriq [k][n] (kx: [k]f64) (ky: [k]f64) (kz: [k]f64) (x: [n]f64) (y: [n]f64) (z: [n]f64)
                (phi_r: [k]f64) (phi_i: [k]f64) : ([n]f64, [n]f64) =
  let phi_mag = phi_r * phi_r + phi_i * phi_i
  in unzip (qvoxel kx ky kz phi_mag x y z)

entry main [k][n] (kx: [k]f64) (ky: [k]f64) (kz: [k]f64) (x: [n]f64) (y: [n]f64) (z: [n]f64)
                  (phi_r: [k]f64) (phi_i: [k]f64) =
  mriq kx ky kz x y z phi_r phi_i

entry grad [k][n] (kx: [k]f64) (ky: [k]f64) (kz: [k]f64) (x: [n]f64) (y: [n]f64) (z: [n]f64)
                  (phi_r: [k]f64) (phi_i: [k]f64) =
  vjp (\(x, y, z) -> let (qr, qi) = mriq kx ky kz x y z phi_r phi_i
                     in f64.sum qr + f64.sum qi)
      (x, y, z) 1
