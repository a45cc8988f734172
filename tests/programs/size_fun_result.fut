-- A function value returned under an arrow type gets the sizes of that
-- type when it is applied: its argument those of the parameter's type
-- (so `unflatten` finds its product there).
-- ==
-- entry: unpack
-- input { 2 3 [1, 2, 3, 4, 5, 6] }
-- output { [[1, 4], [2, 5], [3, 6]] }
-- input { 2 2 [1, 2, 3] }
-- error: \b[Ss]hape|\b[Ss]izes?\b|\b[Dd]imension|\b[Mm]ismatch

def unpack_2d 't n m : [i64.i32 n * i64.i32 m]t -> [][]t = unflatten

entry unpack n m (xs: []i32) : [][]i32 = unpack_2d n m xs |> transpose

