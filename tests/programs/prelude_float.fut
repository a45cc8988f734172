-- The functions of the float modules (`real` and `float` in Futhark's
-- prelude) on f64, f32 and f16. Expected values computed with Python's
-- math module and NumPy, not by urchin.

-- ==
-- entry: f64_gamma
-- input { [0.3, 1.5, 2.75] }
-- output { [2.991568987687591, 0.886226925452758, 1.608359421985546] }

-- ==
-- entry: f32_gamma
-- input { [0.30000001192092896f32, 1.5f32, 2.75f32] }
-- output { [2.9915688037872314f32, 0.8862269520759583f32, 1.608359456062317f32] }

-- ==
-- entry: f16_gamma
-- input { [0.300048828125f16, 1.5f16, 2.75f16] }
-- output { [2.990234375f16, 0.88623046875f16, 1.6083984375f16] }

-- ==
-- entry: f64_lgamma
-- input { [0.3, 1.5, 2.75] }
-- output { [1.0957979948180752, -0.12078223763524543, 0.4752146669149373] }

-- ==
-- entry: f32_lgamma
-- input { [0.30000001192092896f32, 1.5f32, 2.75f32] }
-- output { [1.0957978963851929f32, -0.12078224122524261f32, 0.4752146601676941f32] }

-- ==
-- entry: f16_lgamma
-- input { [0.300048828125f16, 1.5f16, 2.75f16] }
-- output { [1.095703125f16, -0.12078857421875f16, 0.47509765625f16] }

-- ==
-- entry: f64_erf
-- input { [0.3, 1.5, 2.75] }
-- output { [0.3286267594591274, 0.9661051464753108, 0.9998993780778803] }

-- ==
-- entry: f32_erf
-- input { [0.30000001192092896f32, 1.5f32, 2.75f32] }
-- output { [0.3286267817020416f32, 0.9661051630973816f32, 0.9998993873596191f32] }

-- ==
-- entry: f16_erf
-- input { [0.300048828125f16, 1.5f16, 2.75f16] }
-- output { [0.32861328125f16, 0.96630859375f16, 1.0f16] }

-- ==
-- entry: f64_erfc
-- input { [0.3, 1.5, 2.75] }
-- output { [0.6713732405408726, 0.033894853524689274, 0.00010062192211963684] }

-- ==
-- entry: f32_erfc
-- input { [0.30000001192092896f32, 1.5f32, 2.75f32] }
-- output { [0.6713732481002808f32, 0.0338948518037796f32, 0.00010062192450277507f32] }

-- ==
-- entry: f16_erfc
-- input { [0.300048828125f16, 1.5f16, 2.75f16] }
-- output { [0.67138671875f16, 0.033905029296875f16, 0.00010061264038085938f16] }

-- ==
-- entry: f64_cbrt
-- input { [0.3, 1.5, 2.75] }
-- output { [0.6694329500821695, 1.1447142425533319, 1.4010196653276936] }

-- ==
-- entry: f32_cbrt
-- input { [0.30000001192092896f32, 1.5f32, 2.75f32] }
-- output { [0.6694329380989075f32, 1.1447142362594604f32, 1.4010196924209595f32] }

-- ==
-- entry: f16_cbrt
-- input { [0.300048828125f16, 1.5f16, 2.75f16] }
-- output { [0.66943359375f16, 1.14453125f16, 1.4013671875f16] }

-- ==
-- entry: f64_log1p
-- input { [0.3, 1.5, 2.75] }
-- output { [0.26236426446749106, 0.9162907318741551, 1.3217558399823195] }

-- ==
-- entry: f32_log1p
-- input { [0.30000001192092896f32, 1.5f32, 2.75f32] }
-- output { [0.2623642683029175f32, 0.9162907600402832f32, 1.3217558860778809f32] }

-- ==
-- entry: f16_log1p
-- input { [0.300048828125f16, 1.5f16, 2.75f16] }
-- output { [0.262451171875f16, 0.91650390625f16, 1.3212890625f16] }

-- ==
-- entry: f64_asinh
-- input { [0.3, 1.5, 2.75] }
-- output { [0.29567304756342244, 1.1947632172871094, 1.7362775864618003] }

-- ==
-- entry: f32_asinh
-- input { [0.30000001192092896f32, 1.5f32, 2.75f32] }
-- output { [0.29567307233810425f32, 1.19476318359375f32, 1.7362775802612305f32] }

-- ==
-- entry: f16_asinh
-- input { [0.300048828125f16, 1.5f16, 2.75f16] }
-- output { [0.295654296875f16, 1.1943359375f16, 1.736328125f16] }

-- ==
-- entry: f64_atanh
-- input { [0.3, 1.5, 2.75] }
-- output { [0.07514110152466898, 0.3942286801821351, 0.8431994767851143] }

-- ==
-- entry: f32_atanh
-- input { [0.30000001192092896f32, 1.5f32, 2.75f32] }
-- output { [0.07514110207557678f32, 0.39422866702079773f32, 0.8431994915008545f32] }

-- ==
-- entry: f16_atanh
-- input { [0.300048828125f16, 1.5f16, 2.75f16] }
-- output { [0.07513427734375f16, 0.394287109375f16, 0.84326171875f16] }

-- ==
-- entry: f64_acosh
-- input { [0.3, 1.5, 2.75] }
-- output { [0.7564329108569596, 1.566799236972411, 1.9966315184985717] }

-- ==
-- entry: f32_acosh
-- input { [0.30000001192092896f32, 1.5f32, 2.75f32] }
-- output { [0.7564329504966736f32, 1.566799283027649f32, 1.9966315031051636f32] }

-- ==
-- entry: f16_acosh
-- input { [0.300048828125f16, 1.5f16, 2.75f16] }
-- output { [0.75634765625f16, 1.56640625f16, 1.9970703125f16] }

-- ==
-- entry: f64_sinpi
-- input { [0.3, 1.5, 2.75] }
-- output { [0.8090169943749475, -1.0, 0.7071067811865483] }

-- ==
-- entry: f32_sinpi
-- input { [0.30000001192092896f32, 1.5f32, 2.75f32] }
-- output { [0.80901700258255f32, -1.0f32, 0.7071067690849304f32] }

-- ==
-- entry: f16_sinpi
-- input { [0.300048828125f16, 1.5f16, 2.75f16] }
-- output { [0.80908203125f16, -1.0f16, 0.70703125f16] }

-- ==
-- entry: f64_cospi
-- input { [0.3, 1.5, 2.75] }
-- output { [0.5877852522924731, -1.8369701987210297e-16, -0.7071067811865467] }

-- ==
-- entry: f32_cospi
-- input { [0.30000001192092896f32, 1.5f32, 2.75f32] }
-- output { [0.5877852439880371f32, -1.8369701465288538e-16f32, -0.7071067690849304f32] }

-- ==
-- entry: f16_cospi
-- input { [0.300048828125f16, 1.5f16, 2.75f16] }
-- output { [0.587890625f16, -0.0f16, -0.70703125f16] }

-- ==
-- entry: f64_tanpi
-- input { [0.3, 1.5, 2.75] }
-- output { [0.24007875908011603, 2.414213562373095, -1.49660576266549] }

-- ==
-- entry: f32_tanpi
-- input { [0.30000001192092896f32, 1.5f32, 2.75f32] }
-- output { [0.24007876217365265f32, 2.4142136573791504f32, -1.4966057538986206f32] }

-- ==
-- entry: f16_tanpi
-- input { [0.300048828125f16, 1.5f16, 2.75f16] }
-- output { [0.2401123046875f16, 2.4140625f16, -1.4970703125f16] }

-- ==
-- entry: f64_rsqrt
-- input { [0.3, 1.5, 2.75] }
-- output { [1.8257418583505538, 0.8164965809277261, 0.6030226891555273] }

-- ==
-- entry: f32_rsqrt
-- input { [0.30000001192092896f32, 1.5f32, 2.75f32] }
-- output { [1.8257417678833008f32, 0.8164966106414795f32, 0.6030226945877075f32] }

-- ==
-- entry: f16_rsqrt
-- input { [0.300048828125f16, 1.5f16, 2.75f16] }
-- output { [1.8251953125f16, 0.81640625f16, 0.60302734375f16] }

-- ==
-- entry: f64_recip
-- input { [0.3, 1.5, 2.75] }
-- output { [3.3333333333333335, 0.6666666666666666, 0.36363636363636365] }

-- ==
-- entry: f32_recip
-- input { [0.30000001192092896f32, 1.5f32, 2.75f32] }
-- output { [3.3333332538604736f32, 0.6666666865348816f32, 0.3636363744735718f32] }

-- ==
-- entry: f16_recip
-- input { [0.300048828125f16, 1.5f16, 2.75f16] }
-- output { [3.33203125f16, 0.66650390625f16, 0.363525390625f16] }

-- ==
-- entry: f64_asinpi
-- input { [0.3, 1.5, 2.75] }
-- output { [0.023895679470390917, 0.12235729353912313, 0.24129186976549874] }

-- ==
-- entry: f32_asinpi
-- input { [0.30000001192092896f32, 1.5f32, 2.75f32] }
-- output { [0.023895680904388428f32, 0.12235729396343231f32, 0.2412918657064438f32] }

-- ==
-- entry: f16_asinpi
-- input { [0.300048828125f16, 1.5f16, 2.75f16] }
-- output { [0.023895263671875f16, 0.12237548828125f16, 0.2413330078125f16] }

-- ==
-- entry: f64_acospi
-- input { [0.3, 1.5, 2.75] }
-- output { [0.47610432052960916, 0.37764270646087694, 0.2587081302345013] }

-- ==
-- entry: f32_acospi
-- input { [0.30000001192092896f32, 1.5f32, 2.75f32] }
-- output { [0.4761043190956116f32, 0.3776427209377289f32, 0.258708119392395f32] }

-- ==
-- entry: f16_acospi
-- input { [0.300048828125f16, 1.5f16, 2.75f16] }
-- output { [0.47607421875f16, 0.377685546875f16, 0.2587890625f16] }

-- ==
-- entry: f64_atanpi
-- input { [0.3, 1.5, 2.75] }
-- output { [0.09277357907774235, 0.3128329581890012, 0.3889827415450001] }

-- ==
-- entry: f32_atanpi
-- input { [0.30000001192092896f32, 1.5f32, 2.75f32] }
-- output { [0.09277357906103134f32, 0.31283295154571533f32, 0.38898274302482605f32] }

-- ==
-- entry: f16_atanpi
-- input { [0.300048828125f16, 1.5f16, 2.75f16] }
-- output { [0.0927734375f16, 0.312744140625f16, 0.388916015625f16] }

-- ==
-- entry: f64_hypot
-- input { [3.0, -1.5, 0.0] [4.0, 2.0, 5.0] }
-- output { [5.0, 2.5, 5.0] }

-- ==
-- entry: f64_atan2pi
-- input { [1.0, -1.0, 2.0] [1.0, 1.0, -3.0] }
-- output { [0.25, -0.25, 0.8128329581890013] }

-- ==
-- entry: f64_copysign
-- input { [1.5, -2.0, 3.0] [-1.0, 4.0, 0.0] }
-- output { [-1.5, 2.0, 3.0] }

-- ==
-- entry: f64_nextafter
-- input { [1.0, 1.0, 0.0] [2.0, 0.0, -1.0] }
-- output { [1.0000000000000002, 0.9999999999999999, -5e-324] }

-- ==
-- entry: nextafter_bits
-- input { [1.0, 1.0, 0.0] [2.0, 0.0, -1.0] }
-- output { [4607182418800017409u64, 4607182418800017407u64, 9223372036854775809u64] [1065353217u32, 1065353215u32] [15361u16, 32769u16] }

-- ==
-- entry: f64_ternary
-- input { 2.0 3.0 0.5 }
-- output { 2.5 6.5 6.5 16.0 1.5e-323 8.98846567431158e+307 0.25 0.14285714285714285 }

-- ==
-- entry: f32_fma
-- input { 1.000244140625f32 1.000244140625f32 -1.0f32 }
-- output { 0.0004883408546447754f32 }

-- ==
-- entry: float_bits
-- input { 1.5 }
-- output { 4609434218613702656u64 1069547520u32 15872u16 1.5 1.5f32 1.5f16 1 1 -1.5 64 32 16 }

entry f64_gamma (xs: []f64) = map f64.gamma (xs)

entry f32_gamma (xs: []f32) = map f32.gamma (xs)

entry f16_gamma (xs: []f16) = map f16.gamma (xs)

entry f64_lgamma (xs: []f64) = map f64.lgamma (xs)

entry f32_lgamma (xs: []f32) = map f32.lgamma (xs)

entry f16_lgamma (xs: []f16) = map f16.lgamma (xs)

entry f64_erf (xs: []f64) = map f64.erf (xs)

entry f32_erf (xs: []f32) = map f32.erf (xs)

entry f16_erf (xs: []f16) = map f16.erf (xs)

entry f64_erfc (xs: []f64) = map f64.erfc (xs)

entry f32_erfc (xs: []f32) = map f32.erfc (xs)

entry f16_erfc (xs: []f16) = map f16.erfc (xs)

entry f64_cbrt (xs: []f64) = map f64.cbrt (xs)

entry f32_cbrt (xs: []f32) = map f32.cbrt (xs)

entry f16_cbrt (xs: []f16) = map f16.cbrt (xs)

entry f64_log1p (xs: []f64) = map f64.log1p (xs)

entry f32_log1p (xs: []f32) = map f32.log1p (xs)

entry f16_log1p (xs: []f16) = map f16.log1p (xs)

entry f64_asinh (xs: []f64) = map f64.asinh (xs)

entry f32_asinh (xs: []f32) = map f32.asinh (xs)

entry f16_asinh (xs: []f16) = map f16.asinh (xs)

entry f64_atanh (xs: []f64) = map f64.atanh (xs / 4)

entry f32_atanh (xs: []f32) = map f32.atanh (xs / 4)

entry f16_atanh (xs: []f16) = map f16.atanh (xs / 4)

entry f64_acosh (xs: []f64) = map f64.acosh (xs + 1)

entry f32_acosh (xs: []f32) = map f32.acosh (xs + 1)

entry f16_acosh (xs: []f16) = map f16.acosh (xs + 1)

entry f64_sinpi (xs: []f64) = map f64.sinpi (xs)

entry f32_sinpi (xs: []f32) = map f32.sinpi (xs)

entry f16_sinpi (xs: []f16) = map f16.sinpi (xs)

entry f64_cospi (xs: []f64) = map f64.cospi (xs)

entry f32_cospi (xs: []f32) = map f32.cospi (xs)

entry f16_cospi (xs: []f16) = map f16.cospi (xs)

entry f64_tanpi (xs: []f64) = map f64.tanpi (xs / 4)

entry f32_tanpi (xs: []f32) = map f32.tanpi (xs / 4)

entry f16_tanpi (xs: []f16) = map f16.tanpi (xs / 4)

entry f64_rsqrt (xs: []f64) = map f64.rsqrt (xs)

entry f32_rsqrt (xs: []f32) = map f32.rsqrt (xs)

entry f16_rsqrt (xs: []f16) = map f16.rsqrt (xs)

entry f64_recip (xs: []f64) = map f64.recip (xs)

entry f32_recip (xs: []f32) = map f32.recip (xs)

entry f16_recip (xs: []f16) = map f16.recip (xs)

entry f64_asinpi (xs: []f64) = map f64.asinpi (xs / 4)

entry f32_asinpi (xs: []f32) = map f32.asinpi (xs / 4)

entry f16_asinpi (xs: []f16) = map f16.asinpi (xs / 4)

entry f64_acospi (xs: []f64) = map f64.acospi (xs / 4)

entry f32_acospi (xs: []f32) = map f32.acospi (xs / 4)

entry f16_acospi (xs: []f16) = map f16.acospi (xs / 4)

entry f64_atanpi (xs: []f64) = map f64.atanpi (xs)

entry f32_atanpi (xs: []f32) = map f32.atanpi (xs)

entry f16_atanpi (xs: []f16) = map f16.atanpi (xs)

entry f64_hypot (xs: []f64) (ys: []f64) = map2 f64.hypot xs ys

entry f64_atan2pi (xs: []f64) (ys: []f64) = map2 f64.atan2pi xs ys

entry f64_copysign (xs: []f64) (ys: []f64) = map2 f64.copysign xs ys

entry f64_nextafter (xs: []f64) (ys: []f64) = map2 f64.nextafter xs ys

entry nextafter_bits (xs: []f64) (ys: []f64) =
  (map f64.to_bits (map2 f64.nextafter xs ys),
   [f32.to_bits (f32.nextafter 1 2), f32.to_bits (f32.nextafter 1 0)],
   [f16.to_bits (f16.nextafter 1 2), f16.to_bits (f16.nextafter 0 (-1))])

entry f64_ternary (a: f64) (b: f64) (c: f64) =
  (f64.lerp a b c, f64.mad a b c, f64.fma a b c, f64.ldexp a 3, f64.ldexp b (-1074),
   f64.ldexp 0.5 1024, f64.from_fraction 1 4, f64.from_fraction 1 7)

entry f32_fma (a: f32) (b: f32) (c: f32) = f32.fma a b c

entry float_bits (x: f64) =
  (f64.to_bits x, f32.to_bits (f32.f64 x), f16.to_bits (f16.f64 x),
   f64.from_bits (f64.to_bits x), f32.from_bits (f32.to_bits (f32.f64 x)),
   f16.from_bits (f16.to_bits (f16.f64 x)), f64.get_bit 51 x, f32.get_bit 22 (f32.f64 x),
   f64.set_bit 63 x 1, f64.num_bits, f32.num_bits, f16.num_bits)
