-- Patterns in `match`: literals (negative, float, bool), tuples, records,
-- constructors nested in them, wildcards and variables; the first case
-- that matches is taken.
-- ==
-- entry: classify
-- input { -1 } output { 10 }
-- input { 0 } output { 20 }
-- input { 5 } output { 5 }

-- ==
-- entry: floats
-- input { 0.5f32 } output { 1 }
-- input { -2f32 } output { 2 }
-- input { 3f32 } output { 3 }

-- ==
-- entry: pairs
-- input { 1 2 } output { 100 }
-- input { 1 3 } output { 4 }
-- input { 7 2 } output { 9 }

-- ==
-- entry: nested
-- input { 0 5 } output { 5 }
-- input { 0 4 } output { 40 }
-- input { 1 5 } output { 6 }
-- input { 2 5 } output { -1 }

-- ==
-- entry: bools
-- input { true false } output { 1 }
-- input { false true } output { 2 }
-- input { true true } output { 3 }
-- input { false false } output { 3 }

type t = #a i32 | #b {x: i32, y: bool} | #c

entry classify (x: i32) =
  match x
  case -1 -> 10
  case 0 -> 20
  case n -> n

entry floats (x: f32) =
  match x
  case 0.5 -> 1
  case -2f32 -> 2
  case _ -> 3

entry pairs (x: i32) (y: i32) =
  match (x, y)
  case (1, 2) -> 100
  case (a, b) -> a + b

def mk (k: i32) (v: i32) : t =
  if k == 0 then #a v else if k == 1 then #b {x = v, y = v > 3} else #c

entry nested (k: i32) (v: i32) =
  match (mk k v, v)
  case (#a 4, _) -> 40
  case (#a n, _) -> n
  case (#b {x, y = true}, _) -> x + 1
  case (#b {x = _, y = false}, w) -> w
  case (#c, _) -> -1

entry bools (a: bool) (b: bool) =
  match (a, b)
  case (true, false) -> 1
  case (false, true) -> 2
  case _ -> 3
