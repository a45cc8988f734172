-- Indexing guarded by a condition inside a map: the index may be out of
-- bounds in the lanes that take the other branch (which must not fail),
-- never in those that take it (which must). Where both branches are
-- cheap, urchin runs them on every lane and selects, so these also check
-- that a failure is reported only where it is real.
-- ==
-- entry: strict_lower
-- input { [[1, 2, 3], [4, 5, 6], [7, 8, 9]] }
-- output { [[0, 0, 0], [4, 0, 0], [7, 8, 0]] }
-- input { empty([0][0]i32) }
-- output { empty([0][0]i32) }

-- ==
-- entry: lower_each
-- input { [[[1, 2], [3, 4]], [[5, 6], [7, 8]]] }
-- output { [[[0, 0], [3, 0]], [[0, 0], [7, 0]]] }

-- ==
-- entry: smooth
-- input { [3.0, 6.0, 9.0, 0.0] }
-- output { [3.0, 6.0, 5.0, 0.0] }
-- input { [1.0] }
-- output { [1.0] }

-- ==
-- entry: shifted
-- input { [10, 20, 30] [0i64, 2i64, 1i64] }
-- output { [-1, 20, 10] }
-- input { [10, 20, 30] [0i64, 4i64] }
-- error: out of bounds

-- ==
-- entry: clamped
-- input { [10, 20, 30] [-5i64, 0i64, 2i64, 3i64, 7i64] }
-- output { [-1, 10, 30, -2, -2] }
-- input { [10, 20, 30] [-5i64, 1i64] }
-- output { [-1, 20] }

-- ==
-- entry: wrong_guard
-- input { [10, 20, 30] [0i64, 1i64] }
-- output { [10, 20] }
-- input { [10, 20, 30] [0i64, 3i64, -1i64] }
-- error: [Ii]ndex \[3\] out of bounds

def strict_lower_of [d] (l: [d][d]i32) : [d][d]i32 =
  tabulate_2d d d (\i j -> if j < i then l[i, j] else 0)

entry strict_lower [d] (l: [d][d]i32) = strict_lower_of l

entry lower_each [k][d] (ls: [k][d][d]i32) = map strict_lower_of ls

-- A three-point average inside, the ends left as they are.
entry smooth [n] (xs: [n]f64) =
  tabulate n (\i -> if i > 0 && i < n - 1 then (xs[i - 1] + xs[i] + xs[i + 1]) / 3 else xs[i])

-- The element before each index; -1 before the first.
entry shifted (xs: []i32) (is: []i64) =
  map (\i -> if i > 0 then xs[i - 1] else -1) is

-- Nested guards: below the range -1, above it -2.
entry clamped [n] (xs: [n]i32) (is: []i64) =
  map (\i -> if i < 0 then -1 else if i >= n then -2 else xs[i]) is

-- A guard that does not protect the index: the lanes that take the
-- branch fail, and the error names the first of them.
entry wrong_guard (xs: []i32) (is: []i64) =
  map (\i -> if i >= 0 then xs[i] else 0) is
