-- `let [n] p = e` binds `n` to a size of the value `p` names, and an
-- existential size `?[k].` in a return type binds nothing outside.
-- ==
-- entry: positives
-- input { [1, -2, 3] }
-- output { 2i64 [1, 3] }
-- input { [-1] }
-- output { 0i64 empty([0]i32) }

-- ==
-- entry: evens
-- input { [1, 2, 3, 4, 6] }
-- output { 3i64 }

entry positives (xs: []i32) =
  let [n] (ys: [n]i32) = filter (> 0) xs
  in (n, ys)

def only_evens (xs: []i32) : ?[k].[k]i32 = filter (\x -> x % 2 == 0) xs

entry evens (xs: []i32) = length (only_evens xs)
