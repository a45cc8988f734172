-- Example: Mandelbrot escape counts (iterations until |z|^2 > 4, capped at
-- a limit) for a few points of the complex plane.
-- ==
-- input { 100 [0.0, 1.0, -1.0, 0.5, -2.0, 0.3, 2.0, -0.75, 0.25, 0.26] [0.0, 1.0, 0.0, 0.5, 0.0, 0.5, 2.0, 0.1, 0.0, 0.0] }
-- output { [100, 2, 100, 5, 100, 100, 1, 33, 100, 30] }

def escape (limit: i32) (cr: f64) (ci: f64) : i32 =
  let (_, _, i) =
    loop (zr, zi, i) = (0.0, 0.0, 0) while i < limit && zr * zr + zi * zi <= 4.0 do
      (zr * zr - zi * zi + cr, 2.0 * zr * zi + ci, i + 1)
  in i

entry main (limit: i32) (crs: []f64) (cis: []f64) = map2 (escape limit) crs cis
