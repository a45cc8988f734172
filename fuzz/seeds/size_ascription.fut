-- A type ascription `e : t` with sizes is checked at run time, with a
-- constant size and with a size parameter.
-- ==
-- entry: asc
-- input { [1, 2, 3] }
-- output { [1, 2, 3] }
-- input { [1, 2] }
-- error: \b[Ss]hape|\b[Ss]izes?\b|\b[Dd]imension|\b[Mm]ismatch

-- ==
-- entry: asc_n
-- input { [1, 2] [3, 4] }
-- output { [1, 2] }
-- input { [1] [3, 4] }
-- error: \b[Ss]hape|\b[Ss]izes?\b|\b[Dd]imension|\b[Mm]ismatch

entry asc (xs: []i32) = (xs : [3]i32)

entry asc_n [n] (xs: []i32) (ys: [n]i32) = (xs : [n]i32)
