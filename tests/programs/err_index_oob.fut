-- Index out of bounds is a run-time error whose message names the index
-- and the size (12345 and 4321 below); also inside a map and through
-- head of an empty array.
-- ==
-- entry: get
-- input { [1, 2, 3] 3i64 }
-- error: out of bounds
-- input { [1, 2, 3] -1i64 }
-- error: out of bounds

-- ==
-- entry: named
-- input { 12345i64 }
-- error: 12345
-- input { 12345i64 }
-- error: 4321
-- input { 4320i64 }
-- output { 4320i64 }

-- ==
-- entry: in_map
-- input { [10, 20] [0i64, 1i64, 2i64] }
-- error: out of bounds
-- input { [10, 20] [1i64, 0i64] }
-- output { [20, 10] }

entry get (xs: []i32) (i: i64) = xs[i]

entry named (i: i64) = let xs = iota 4321 in xs[i]

entry in_map (xs: []i32) (is: []i64) = map (\i -> xs[i]) is
