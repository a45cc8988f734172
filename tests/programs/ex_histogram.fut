-- Example: histogram of floats in [lo, hi) over k equal bins; values
-- outside the range are dropped (their bin index is out of bounds).
-- ==
-- input { 4i64 0.0 1.0 [0.1, 0.3, 0.35, 0.9, 1.0, -0.5, 0.74, 0.75] }
-- output { [1, 2, 1, 2] }
-- input { 2i64 -1.0 1.0 empty([0]f64) }
-- output { [0, 0] }

entry main (k: i64) (lo: f64) (hi: f64) (xs: []f64) =
  let bin x = if x < lo || x >= hi then -1
              else i64.f64 ((x - lo) / (hi - lo) * f64.i64 k)
  in hist (+) 0 k (map bin xs) (map (\_ -> 1i32) xs)
