-- Float literals: decimal point, exponents (e and E, signed), suffixes f32
-- and f64, and integer digits with a float suffix. Unsuffixed ones are f64.
-- ==
-- entry: plain
-- input { }
-- output { 1.5 0.25 100.0 }

-- ==
-- entry: exponent
-- input { }
-- output { 0.001 250.0 1000.0 3.0 }

-- ==
-- entry: suffixed
-- input { }
-- output { 2.0f32 3.0f64 15.0f32 7.0f32 }

entry plain = (1.5, 0.25, 100.0)

entry exponent = (1e-3, 2.5e2, 1E3, 3e0)

entry suffixed = (2.0f32, 3f64, 1.5e1f32, 7f32)
