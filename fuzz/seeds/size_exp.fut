-- Sizes that are expressions (`[n * 2]`, `[n + 1]`) are checked at run
-- time, in parameters and in return types.
-- ==
-- entry: double
-- input { 2i64 [1, 2, 3, 4] }
-- output { [1, 2, 3, 4] }
-- input { 2i64 [1, 2, 3] }
-- error: \b[Ss]hape|\b[Ss]izes?\b|\b[Dd]imension|\b[Mm]ismatch

-- ==
-- entry: grow
-- input { [1, 2] }
-- output { [1, 2, 0] }

-- ==
-- entry: wrong
-- input { [1, 2] }
-- error: \b[Ss]hape|\b[Ss]izes?\b|\b[Dd]imension|\b[Mm]ismatch

entry double (n: i64) (xs: [n * 2]i32) = xs

def append0 [n] (xs: [n]i32) : [n + 1]i32 = xs ++ [0]

entry grow (xs: []i32) = append0 xs

def same [n] (xs: [n]i32) : [n + 1]i32 = xs

entry wrong (xs: []i32) = same xs
