-- Derivatives of the special functions of the float modules (erf, erfc,
-- gamma, lgamma, cbrt, log1p, asinh, acosh, atanh, hypot, sinpi, cospi,
-- tanpi, copysign, lerp, fma): checked against finite differences by
-- tests/ad_check.rs. Primal values from Python's math module.
-- ==
-- entry: f_special
-- input { 0.7 1.3 }
-- output { 8.124333382380403 }

entry f_special (x: f64) (y: f64) : f64 =
  f64.erf x + f64.erfc y + f64.gamma y + f64.lgamma x + f64.cbrt x + f64.log1p x
  + f64.asinh x + f64.acosh (y + 1) + f64.atanh (x / 2) + f64.hypot x y
  + f64.sinpi x + f64.cospi y + f64.tanpi (x / 4)

-- ==
-- entry: f_composed
-- input { 0.7 1.3 }
-- output { 2.45863873285329 }

entry f_composed (x: f64) (y: f64) : f64 =
  f64.copysign (x * y) (-1) + f64.lerp x y 0.25 + f64.fma x y x + f64.gamma x * x

-- Second derivatives of lgamma and gamma go through ψ and ψ′.
-- ==
-- entry: lgamma_second
-- input { 1.0 0.5 }
-- output { 1.6449340668482264 4.934802200544679 -0.5772156649015329 }

entry lgamma_second (x: f64) (y: f64) : (f64, f64, f64) =
  let d f z = jvp f z 1
  in (d (d f64.lgamma) x, d (d f64.lgamma) y, d f64.gamma x)

-- `nextafter` moves with x, a step in y: ∂/∂x = 1, ∂/∂y = 0.
-- ==
-- entry: f_nextafter
-- input { 0.7 1.3 }
-- output { 1.6099999999999999 }

entry f_nextafter (x: f64) (y: f64) : f64 = f64.nextafter x y + x * y
