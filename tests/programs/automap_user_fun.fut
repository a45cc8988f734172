-- AUTOMAP: a user-defined scalar function applied to vectors (mapped) and
-- scalars (replicated) in every combination, and to a matrix.
-- ==
-- entry: vvs_implicit vvs_explicit
-- input { [0.0, 10.0] [1.0, 20.0] 0.5 }
-- output { [0.5, 15.0] }

-- ==
-- entry: ssv_implicit ssv_explicit
-- input { 0.0 10.0 [0.0, 0.25, 1.0] }
-- output { [0.0, 2.5, 10.0] }

-- ==
-- entry: vvv_implicit vvv_explicit
-- input { [0.0, 10.0] [1.0, 20.0] [0.5, 0.1] }
-- output { [0.5, 11.0] }

-- ==
-- entry: mat_implicit mat_explicit
-- input { [[1.0, 2.0], [3.0, -1.0]] }
-- output { [[2.0, 5.0], [10.0, 2.0]] }

def lerp (v: f64) (w: f64) (t: f64) : f64 = v + (w - v) * t

def sq1 (x: f64) : f64 = x * x + 1

entry vvs_implicit [n] (vs: [n]f64) (ws: [n]f64) (t: f64) = lerp vs ws t

entry vvs_explicit [n] (vs: [n]f64) (ws: [n]f64) (t: f64) = map2 (\v w -> lerp v w t) vs ws

entry ssv_implicit (v: f64) (w: f64) (ts: []f64) = lerp v w ts

entry ssv_explicit (v: f64) (w: f64) (ts: []f64) = map (\t -> lerp v w t) ts

entry vvv_implicit [n] (vs: [n]f64) (ws: [n]f64) (ts: [n]f64) = lerp vs ws ts

entry vvv_explicit [n] (vs: [n]f64) (ws: [n]f64) (ts: [n]f64) = map3 lerp vs ws ts

entry mat_implicit (m: [][]f64) = sq1 m

entry mat_explicit (m: [][]f64) = map (map sq1) m
