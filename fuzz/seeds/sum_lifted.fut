-- Lifted abbreviations: a `type^` whose constructors carry functions (the
-- constructor is known where the `match` is, so the function is applied
-- directly), and a `type~` with an anonymous size.
-- ==
-- entry: apply
-- input { 5 } output { 6 10 }

-- ==
-- entry: lengths
-- input { [1, 2, 3] } output { 3i64 }

type^ op = #unary (i32 -> i32) | #binary (i32 -> i32 -> i32)

def run (o: op) (x: i32) : i32 =
  match o
  case #unary f -> f x
  case #binary g -> g x x

entry apply (x: i32) = (run (#unary (+ 1)) x, run (#binary (+)) x)

type~ vec = []i32

def len (v: vec) = length v

entry lengths (xs: []i32) = len xs
