-- Shape annotations are checked at run time: a sized parameter `[n]`
-- shared by two arguments, `[n][n]` (square), a constant size `[3]t` (on
-- an entry point and on a local function). A
-- mismatch is an error naming the shapes.
-- ==
-- entry: same
-- input { [1, 2] [3, 4] }
-- output { [4, 6] }
-- input { [1, 2] [3] }
-- error: \b[Ss]hape|\b[Ss]izes?\b|\b[Dd]imension|\b[Mm]ismatch

-- ==
-- entry: inner
-- input { [1] [2] }
-- output { [3] }
-- input { [1, 2] [3] }
-- error: \b[Ss]hape|\b[Ss]izes?\b|\b[Dd]imension|\b[Mm]ismatch

-- ==
-- entry: square
-- input { [[1, 2], [3, 4]] }
-- output { 2 }
-- input { [[1, 2, 3], [4, 5, 6]] }
-- error: \b[Ss]hape|\b[Ss]izes?\b|\b[Dd]imension|\b[Mm]ismatch

-- ==
-- entry: fixed
-- input { [1.0, 2.0, 3.0] }
-- output { 6.0 }
-- input { [1.0, 2.0] }
-- error: \b[Ss]hape|\b[Ss]izes?\b|\b[Dd]imension|\b[Mm]ismatch

-- ==
-- entry: fixed_local
-- input { [1.0, 2.0, 3.0] }
-- output { 3.0 }
-- input { [1.0, 2.0, 3.0, 4.0] }
-- error: \b[Ss]hape|\b[Ss]izes?\b|\b[Dd]imension|\b[Mm]ismatch

def add_vecs [n] (a: [n]i32) (b: [n]i32) : [n]i32 = map2 (+) a b

entry same [n] (a: [n]i32) (b: [n]i32) = map2 (+) a b

entry inner (a: []i32) (b: []i32) = add_vecs a b

entry square [n] (m: [n][n]i32) = m[0, n - 1]

entry fixed (v: [3]f64) = v[0] + v[1] + v[2]

entry fixed_local (v: []f64) =
  let third (x: [3]f64) = x[2]
  in third v
