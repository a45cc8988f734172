-- The causality restriction allows an empty array whose rows get a size
-- computed before it is made. (When it runs, an empty array's rows have
-- only the sizes its annotation gives, here none: the case keeps `b`'s
-- rows empty.)
-- ==
-- input { [-1, -2, -3] } output { empty([1][0]i32) }

def main (xs: []i32) =
  let b = [filter (> 0) xs]
  let a = [] : [][]i32
  in a ++ b
