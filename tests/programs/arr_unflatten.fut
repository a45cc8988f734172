-- `unflatten xs` (Futhark's `unflatten [n][m] (xs: [n * m]t) : [n][m]t`):
-- the sizes are read off the size of the argument, as a product `n * m`
-- (a parameter's or coercion's type, `flatten`, `tabulate (n * m)`).
-- `unflatten_3d` and `unflatten_4d` likewise, and a function of the user
-- with a size parameter that only a product gives.
-- ==
-- entry: unfl
-- input { 2i64 3i64 [1, 2, 3, 4, 5, 6] }
-- output { [[1, 2, 3], [4, 5, 6]] }
-- input { 3i64 2i64 [1, 2, 3, 4, 5, 6] }
-- output { [[1, 2], [3, 4], [5, 6]] }
-- input { 2i64 2i64 [1, 2, 3] }
-- error: \b[Ss]hape|\b[Ss]izes?\b|\b[Dd]imension|\b[Mm]ismatch

-- ==
-- entry: roundtrip
-- input { [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]] }
-- output { [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]] }

-- ==
-- entry: table
-- input { 2i64 3i64 }
-- output { [[0i64, 1i64, 2i64], [3i64, 4i64, 5i64]] }

-- ==
-- entry: cube
-- input { [1, 2, 3, 4, 5, 6, 7, 8] }
-- output { [[[1, 2], [3, 4]], [[5, 6], [7, 8]]] }

-- ==
-- entry: hyper
-- input { [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16] }
-- output { [[[[1, 2], [3, 4]], [[5, 6], [7, 8]]], [[[9, 10], [11, 12]], [[13, 14], [15, 16]]]] }

-- ==
-- entry: rows_of
-- input { 2i64 3i64 [1, 2, 3, 4, 5, 6] }
-- output { 2i64 3i64 }

entry unfl (n: i64) (m: i64) (xs: []i32) = unflatten (xs :> [n * m]i32)

entry roundtrip [n][m] (a: [n][m]f64) = unflatten (flatten a)

entry table (n: i64) (m: i64) = unflatten (tabulate (n * m) id)

entry cube (xs: [2 * 2 * 2]i32) = unflatten_3d xs

entry hyper (xs: [2 * 2 * 2 * 2]i32) = unflatten_4d xs

def dims [n] [m] (_: [n * m]i32) = (n, m)

entry rows_of (n: i64) (m: i64) (xs: [n * m]i32) = dims xs
