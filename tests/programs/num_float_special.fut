-- isnan / isinf, the constants inf nan pi e, highest lowest (for floats
-- these are +inf and -inf, as in Futhark), and epsilon (checked through
-- its defining property, in the right precision).
-- ==
-- entry: classify
-- input { 1.0 }
-- output { false false }
-- input { f64.nan }
-- output { true false }
-- input { f64.inf }
-- output { false true }
-- input { -f64.inf }
-- output { false true }

-- ==
-- entry: consts
-- input { }
-- output { f64.inf -f64.inf true 3.141592653589793 2.718281828459045 f64.nan }

-- ==
-- entry: consts32
-- input { }
-- output { f32.inf true 3.1415927f32 2.7182817f32 }

-- ==
-- entry: limits
-- input { }
-- output { f64.inf -f64.inf f32.inf -f32.inf }

-- ==
-- entry: eps
-- input { }
-- output { true true true true 2.220446049250313e-16 1.1920929e-7f32 }

entry classify (x: f64) = (f64.isnan x, f64.isinf x)

entry consts = (f64.inf, -f64.inf, f64.isnan f64.nan, f64.pi, f64.e, f64.nan)

entry consts32 = (f32.inf, f32.isnan f32.nan, f32.pi, f32.e)

entry limits = (f64.highest, f64.lowest, f32.highest, f32.lowest)

entry eps =
  ( 1 + f64.epsilon > 1
  , 1 + f64.epsilon / 2 == 1
  , 1 + f32.epsilon > 1
  , 1 + f32.epsilon / 2 == 1
  , f64.epsilon
  , f32.epsilon )
