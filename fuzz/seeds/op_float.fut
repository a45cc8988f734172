-- Floating-point `+ - * / **` at f64 and f32. Float division by zero is not
-- an error: it gives infinities or NaN. f32 arithmetic is done in single
-- precision (16777216 + 1 rounds back to 16777216 in f32, not in f64).
-- ==
-- entry: f64ops
-- input { 7.5 2.0 }
-- output { 9.5 5.5 15.0 3.75 56.25 }
-- input { -1.5 2.0 }
-- output { 0.5 -3.5 -3.0 -0.75 2.25 }
-- input { 2.0 0.5 }
-- output { 2.5 1.5 1.0 4.0 1.4142135623730951 }

-- ==
-- entry: f32ops
-- input { 7.5f32 2.0f32 }
-- output { 9.5f32 5.5f32 15.0f32 3.75f32 56.25f32 }
-- input { 3.0f32 -2.0f32 }
-- output { 1.0f32 5.0f32 -6.0f32 -1.5f32 0.111111112f32 }

-- ==
-- entry: div_zero
-- input { 1.0 }
-- output { f64.inf -f64.inf f64.nan }

-- ==
-- entry: f32_precision
-- input { 16777216f32 }
-- output { 0f32 }
-- input { 1f32 }
-- output { 1f32 }

-- ==
-- entry: f64_precision
-- input { 16777216.0 }
-- output { 1.0 }

entry f64ops (a: f64) (b: f64) = (a + b, a - b, a * b, a / b, a ** b)

entry f32ops (a: f32) (b: f32) = (a + b, a - b, a * b, a / b, a ** b)

entry div_zero (a: f64) = (a / 0, -a / 0, (a - a) / (a - a))

entry f32_precision (x: f32) = (x + 1) - x

entry f64_precision (x: f64) = (x + 1) - x
