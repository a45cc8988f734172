-- AD through sum types: the payloads are differentiated, the tag is an
-- integer that carries no derivative; sums made by a `map` and taken
-- apart in another.
-- ==
-- entry: f_area
-- input { 0 2.0 5.0 }
-- output { 12.0 }
-- input { 1 2.0 5.0 }
-- output { 10.0 }

-- ==
-- entry: vjp_area jvp_area
-- input { 0 2.0 5.0 }
-- output { 12.0 0.0 }
-- input { 1 2.0 5.0 }
-- output { 5.0 2.0 }

-- ==
-- entry: f_signs
-- input { [1.5, -2.0, 3.0] }
-- output { 13.25 }

-- ==
-- entry: vjp_signs
-- input { [1.5, -2.0, 3.0] }
-- output { [3.0, -1.0, 6.0] }

type shape = #circle f64 | #rect f64 f64

def area (s: shape) : f64 =
  match s
  case #circle r -> 3.0 * r * r
  case #rect w h -> w * h

def mk (k: i32) (a: f64) (b: f64) : shape = if k == 0 then #circle a else #rect a b

entry f_area (k: i32) (a: f64) (b: f64) : f64 = area (mk k a b)

entry vjp_area (k: i32) (a: f64) (b: f64) = vjp (\(a, b) -> f_area k a b) (a, b) 1

entry jvp_area (k: i32) (a: f64) (b: f64) =
  (jvp (\a -> f_area k a b) a 1, jvp (\b -> f_area k a b) b 1)

type sign = #pos f64 | #neg f64

def classify (x: f64) : sign = if x > 0 then #pos x else #neg x

entry f_signs (xs: []f64) : f64 =
  f64.sum (map (\s -> match s case #pos x -> x * x case #neg x -> -x) (map classify xs))

entry vjp_signs (xs: []f64) = vjp f_signs xs 1
