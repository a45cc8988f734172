-- The sizes in type abbreviations are checked where they are used: a
-- constant size, and size parameters bound by the arguments.
-- ==
-- entry: norm1
-- input { [1.0, -2.0, 3.0] }
-- output { 6.0 }
-- input { [1.0, 2.0] }
-- error: \b[Ss]hape|\b[Ss]izes?\b|\b[Dd]imension|\b[Mm]ismatch

-- ==
-- entry: join
-- input { [1, 2] [3, 4] }
-- output { [1, 2, 3, 4] }
-- input { [1] [3, 4] }
-- error: \b[Ss]hape|\b[Ss]izes?\b|\b[Dd]imension|\b[Mm]ismatch

-- ==
-- entry: rows
-- input { [[1, 2, 3], [4, 5, 6]] }
-- output { 2i64 3i64 }

type vec = [3]f64
type ints [n] = [n]i32
type mat [r] [c] 't = [r][c]t

entry norm1 (v: vec) = f64.sum (map f64.abs v)

def cat [n] (a: ints [n]) (b: ints [n]) = a ++ b

entry join (a: []i32) (b: []i32) = cat a b

def dims [r] [c] (_: mat [r] [c] i32) = (r, c)

entry rows (m: [][]i32) = dims m
