-- floor, ceil, round (halfway cases round to even) and trunc, at f64 and
-- f32, on positive and negative values.
-- ==
-- entry: rnd
-- input { 2.5 }
-- output { 2.0 3.0 2.0 2.0 }
-- input { 3.5 }
-- output { 3.0 4.0 4.0 3.0 }
-- input { -2.5 }
-- output { -3.0 -2.0 -2.0 -2.0 }
-- input { -2.7 }
-- output { -3.0 -2.0 -3.0 -2.0 }
-- input { 0.5 }
-- output { 0.0 1.0 0.0 0.0 }
-- input { 1.5 }
-- output { 1.0 2.0 2.0 1.0 }
-- input { -0.5 }
-- output { -1.0 -0.0 -0.0 -0.0 }
-- input { 2.2 }
-- output { 2.0 3.0 2.0 2.0 }

-- ==
-- entry: rnd32
-- input { 2.5f32 }
-- output { 2.0 3.0 2.0 2.0 }
-- input { 3.5f32 }
-- output { 3.0 4.0 4.0 3.0 }
-- input { -2.5f32 }
-- output { -3.0 -2.0 -2.0 -2.0 }
-- input { -2.7f32 }
-- output { -3.0 -2.0 -3.0 -2.0 }
-- input { 0.5f32 }
-- output { 0.0 1.0 0.0 0.0 }
-- input { 1.5f32 }
-- output { 1.0 2.0 2.0 1.0 }
-- input { -0.5f32 }
-- output { -1.0 -0.0 -0.0 -0.0 }
-- input { 2.2f32 }
-- output { 2.0 3.0 2.0 2.0 }

entry rnd (x: f64) = (f64.floor x, f64.ceil x, f64.round x, f64.trunc x)

-- The f32 results are widened so that both entries share expected values.
entry rnd32 (x: f32) =
  (f64.f32 (f32.floor x), f64.f32 (f32.ceil x), f64.f32 (f32.round x), f64.f32 (f32.trunc x))
