-- Explicit `rep`: a replicated value without a length of its own takes the
-- length of the arrays it is mapped with.
-- ==
-- entry: rep_add rep_add_explicit
-- input { [1, 2, 3] 5 }
-- output { [6, 7, 8] }
-- input { empty([0]i32) 5 }
-- output { empty([0]i32) }

entry rep_add (xs: []i32) (k: i32) = map2 (+) xs (rep k)

entry rep_add_explicit [n] (xs: [n]i32) (k: i32) = map2 (+) xs (replicate n k)
