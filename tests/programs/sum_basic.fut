-- Sum types: constructors with and without payloads, `match` on them,
-- a parametric abbreviation, sums as values of functions and of `if`.
-- ==
-- entry: shape_area
-- input { 0 2.0 3.0 }
-- output { 6.0 }
-- input { 1 2.0 3.0 }
-- output { 3.0 }
-- input { 2 2.0 3.0 }
-- output { 0.0 }

-- ==
-- entry: unwrap
-- input { true 7 }
-- output { 7 }
-- input { false 7 }
-- output { -1 }

-- ==
-- entry: next_day
-- input { 0 } output { 1 }
-- input { 1 } output { 2 }
-- input { 2 } output { 0 }

type shape = #rect f64 f64 | #tri f64 f64 | #point
type opt 'a = #some a | #none
type day = #mon | #tue | #wed

def area (s: shape) : f64 =
  match s
  case #rect w h -> w * h
  case #tri b h -> b * h / 2.0
  case #point -> 0.0

def make (k: i32) (a: f64) (b: f64) : shape =
  if k == 0 then #rect a b else if k == 1 then #tri a b else #point

entry shape_area k a b = area (make k a b)

def get_or 'a (d: a) (o: opt a) : a =
  match o
  case #some x -> x
  case #none -> d

entry unwrap (b: bool) (x: i32) = get_or (-1) (if b then #some x else #none)

def day_of (i: i32) : day = if i == 0 then #mon else if i == 1 then #tue else #wed

def index (d: day) : i32 = match d case #mon -> 0 case #tue -> 1 case #wed -> 2

def next (d: day) : day = match d case #mon -> #tue case #tue -> #wed case #wed -> #mon

entry next_day (i: i32) = index (next (day_of i))
