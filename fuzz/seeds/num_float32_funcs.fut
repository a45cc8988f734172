-- The f32 module's functions, computed in single precision.
-- ==
-- entry: fns
-- input { 2.0f32 }
-- output { 1.41421354f32 7.38905621f32 0.693147182f32 1.0f32 0.30103001f32 0.909297407f32 -0.416146845f32 -2.18503976f32 3.62686038f32 3.76219559f32 0.964027584f32 }
-- input { 0.5f32 }
-- output { 0.707106769f32 1.64872122f32 -0.693147182f32 -1.0f32 -0.30103001f32 0.47942555f32 0.87758255f32 0.546302497f32 0.521095276f32 1.12762594f32 0.462117165f32 }

-- ==
-- entry: inv
-- input { 0.5f32 }
-- output { 0.52359879f32 1.04719758f32 0.463647604f32 0.244978666f32 0.125f32 }
-- input { -0.25f32 }
-- output { -0.252680242f32 1.82347655f32 -0.244978666f32 -0.124354996f32 -0.015625f32 }

entry fns (x: f32) =
  ( f32.sqrt x, f32.exp x, f32.log x, f32.log2 x, f32.log10 x
  , f32.sin x, f32.cos x, f32.tan x, f32.sinh x, f32.cosh x, f32.tanh x )

entry inv (x: f32) = (f32.asin x, f32.acos x, f32.atan x, f32.atan2 x 2, f32.pow x 3)
