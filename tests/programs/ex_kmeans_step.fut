-- Example: one step of k-means in 2-D: assign each point to its nearest
-- centroid (ties to the lower index), then move each centroid to the mean
-- of its points (a centroid without points stays put).
-- ==
-- input { [0.0, 1.0, 0.0, 10.0, 11.0, 10.0, 5.0] [0.0, 0.0, 1.0, 10.0, 10.0, 11.0, 5.0] [0.0, 10.0, 20.0] [0.0, 10.0, 20.0] }
-- output { [0i64, 0i64, 0i64, 1i64, 1i64, 1i64, 0i64] [1.5, 10.333333333333334, 20.0] [1.5, 10.333333333333334, 20.0] }

def dist2 (x1: f64) (y1: f64) (x2: f64) (y2: f64) : f64 =
  (x1 - x2) * (x1 - x2) + (y1 - y2) * (y1 - y2)

def closer (i1: i64, d1: f64) (i2: i64, d2: f64) : (i64, f64) =
  if d2 < d1 || (d2 == d1 && i2 < i1) then (i2, d2) else (i1, d1)

entry main [n][k] (px: [n]f64) (py: [n]f64) (cx: [k]f64) (cy: [k]f64) =
  let nearest x y =
    let ds = map2 (\a b -> dist2 x y a b) cx cy
    in (reduce closer (k, f64.inf) (zip (iota k) ds)).0
  let assign = map2 nearest px py
  let counts = hist (+) 0 k assign (replicate n 1i64)
  let sx = hist (+) 0 k assign px
  let sy = hist (+) 0 k assign py
  let mean c s old = if c == 0 then old else s / f64.i64 c
  in (assign, map3 mean counts sx cx, map3 mean counts sy cy)
