-- Sum values as data: in arrays (made by `map`, indexed, reduced over),
-- in records and tuples, compared with `==`, and as loop parameters.
-- ==
-- entry: count_some
-- input { [1, -2, 3, -4, 5] } output { 3 }
-- input { empty([0]i32) } output { 0 }

-- ==
-- entry: first_some
-- input { [-1, -2, 3, 4] } output { 3 }
-- input { [-1, -2] } output { 0 }

-- ==
-- entry: same
-- input { 1 1 } output { true }
-- input { 1 2 } output { false }
-- input { -1 -5 } output { true }

-- ==
-- entry: toggle
-- input { 3 } output { 1 }
-- input { 4 } output { 0 }

-- ==
-- entry: in_record
-- input { 4 } output { 8 }
-- input { -4 } output { 0 }

type opt = #some i32 | #none

def pos (x: i32) : opt = if x > 0 then #some x else #none

entry count_some (xs: []i32) =
  i32.sum (map (\o -> match o case #some _ -> 1 case #none -> 0) (map pos xs))

def first (a: opt) (b: opt) : opt = match a case #some _ -> a case #none -> b

entry first_some (xs: []i32) =
  match reduce first #none (map pos xs)
  case #some x -> x
  case #none -> 0

entry same (a: i32) (b: i32) = pos a == pos b

entry toggle (n: i32) =
  let s = loop (s: #on | #off) = #off for _i < n do match s case #on -> #off case #off -> #on
  in match s case #on -> 1 case #off -> 0

entry in_record (x: i32) =
  let r = {v = pos x, w = 2}
  let xs = [r.v, #none]
  in match xs[0] case #some y -> y * r.w case #none -> 0
