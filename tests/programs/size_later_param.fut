-- A size computed from sizes that later parameters bind is checked once
-- every parameter is bound (`[m + k]` before `[m]` and `[k]`), and a
-- parameter used as a size (`[n]`) is an `i64` without an annotation.
-- ==
-- entry: fill
-- input { [[0, 0, 0], [5, 5, 5]] [1] [2, 3] }
-- output { [[1, 2, 3], [5, 5, 5]] }
-- input { [[0, 0], [5, 5]] [1] [2, 3] }
-- error: \b[Ss]hape|\b[Ss]izes?\b|\b[Dd]imension|\b[Mm]ismatch

-- ==
-- entry: join_to
-- input { 3i64 [1] [2, 3] }
-- output { [1, 2, 3] }
-- input { 4i64 [1] [2, 3] }
-- error: cannot match shape

entry fill [n] [m] [k] (y: *[n][m + k]i32) (a: [m]i32) (b: [k]i32) : *[n][m + k]i32 =
  let y[0] = concat a b
  in y

entry join_to n xs ys : []i32 = xs ++ ys :> [n]i32
