-- The other constructors' arrays of a constructor's value take their
-- sizes from context: the other branch, a declared result, a `match`.
-- ==
-- input { true [1f32, 2f32] [3f32] }
-- output { 2i64 }
-- input { false [1f32, 2f32] [3f32] }
-- output { 1i64 }

type~ grid = #full ([]f32) | #empty ([]f32)

def pick (b: bool) (xs: []f32) (ys: []f32) : grid =
  if b then #full xs else #empty ys

def wrap (xs: []f32) : grid = #full xs

def size_of (g: grid) : i64 =
  match g
  case #full a -> length a
  case #empty b -> length b

entry main (b: bool) (xs: []f32) (ys: []f32) : i64 =
  let n = match (#full xs : grid)
          case #full a -> length a
          case #empty e -> length e
  in size_of (pick b xs ys) + size_of (wrap xs) - n
