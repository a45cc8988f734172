-- The f64 module's functions: sqrt exp log log2 log10, sin cos tan,
-- asin acos atan atan2 (all four quadrants), sinh cosh tanh, pow (and
-- `**`); NaN and -inf at the edges of the domains.
-- ==
-- entry: exps
-- input { 2.0 }
-- output { 1.4142135623730951 7.38905609893065 0.6931471805599453 1.0 0.3010299956639812 }
-- input { 100.0 }
-- output { 10.0 2.6881171418161356e43 4.605170185988092 6.643856189774724 2.0 }
-- input { 0.25 }
-- output { 0.5 1.2840254166877414 -1.3862943611198906 -2.0 -0.6020599913279624 }
-- input { 0.0 }
-- output { 0.0 1.0 -f64.inf -f64.inf -f64.inf }
-- input { -1.0 }
-- output { f64.nan 0.36787944117144233 f64.nan f64.nan f64.nan }

-- ==
-- entry: trig
-- input { 0.5 }
-- output { 0.479425538604203 0.8775825618903728 0.5463024898437905 }
-- input { -1.0 }
-- output { -0.8414709848078965 0.5403023058681398 -1.5574077246549023 }
-- input { 3.0 }
-- output { 0.1411200080598672 -0.9899924966004454 -0.1425465430742778 }

-- ==
-- entry: inv_trig
-- input { 0.5 }
-- output { 0.5235987755982989 1.0471975511965979 0.4636476090008061 }
-- input { -1.0 }
-- output { -1.5707963267948966 3.141592653589793 -0.7853981633974483 }
-- input { 0.0 }
-- output { 0.0 1.5707963267948966 0.0 }

-- ==
-- entry: atan2
-- input { 1.0 1.0 }
-- output { 0.7853981633974483 }
-- input { 1.0 -1.0 }
-- output { 2.356194490192345 }
-- input { -1.0 -1.0 }
-- output { -2.356194490192345 }
-- input { 0.0 -1.0 }
-- output { 3.141592653589793 }
-- input { 2.0 0.0 }
-- output { 1.5707963267948966 }

-- ==
-- entry: hyper
-- input { 0.5 }
-- output { 0.5210953054937474 1.1276259652063807 0.46211715726000974 }
-- input { -2.0 }
-- output { -3.626860407847019 3.7621956910836314 -0.9640275800758169 }
-- input { 0.0 }
-- output { 0.0 1.0 0.0 }

-- ==
-- entry: pow
-- input { 2.0 10.0 }
-- output { 1024.0 1024.0 }
-- input { 9.0 0.5 }
-- output { 3.0 3.0 }
-- input { 2.0 -1.0 }
-- output { 0.5 0.5 }
-- input { 1.5 2.5 }
-- output { 2.7556759606310752 2.7556759606310752 }

entry exps (x: f64) = (f64.sqrt x, f64.exp x, f64.log x, f64.log2 x, f64.log10 x)

entry trig (x: f64) = (f64.sin x, f64.cos x, f64.tan x)

entry inv_trig (x: f64) = (f64.asin x, f64.acos x, f64.atan x)

entry atan2 (y: f64) (x: f64) = f64.atan2 y x

entry hyper (x: f64) = (f64.sinh x, f64.cosh x, f64.tanh x)

entry pow (x: f64) (y: f64) = (f64.pow x y, x ** y)
