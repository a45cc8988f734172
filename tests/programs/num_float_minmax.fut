-- Float module functions sum product minimum maximum (neutral elements on
-- empty input: 0, 1, +inf, -inf) and min max abs sgn neg.
-- ==
-- entry: agg
-- input { [1.5, -2.0, 4.0] }
-- output { 3.5 -12.0 -2.0 4.0 }
-- input { empty([0]f64) }
-- output { 0.0 1.0 f64.inf -f64.inf }

-- ==
-- entry: agg32
-- input { [0.5f32, 8f32, -1f32] }
-- output { 7.5f32 -4.0f32 -1.0f32 8.0f32 }

-- ==
-- entry: bin
-- input { -2.5 1.0 }
-- output { -2.5 1.0 2.5 -1.0 2.5 }
-- input { 3.0 3.0 }
-- output { 3.0 3.0 3.0 1.0 -3.0 }
-- input { 0.0 -1.0 }
-- output { -1.0 0.0 0.0 0.0 -0.0 }

entry agg (xs: []f64) = (f64.sum xs, f64.product xs, f64.minimum xs, f64.maximum xs)

entry agg32 (xs: []f32) = (f32.sum xs, f32.product xs, f32.minimum xs, f32.maximum xs)

entry bin (a: f64) (b: f64) = (f64.min a b, f64.max a b, f64.abs a, f64.sgn a, f64.neg a)
