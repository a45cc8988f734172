-- Nested loops, the inner one using the outer loop variable, filling a
-- matrix with two-index in-place updates.
-- ==
-- entry: pair_sum
-- input { 3i64 }
-- output { 9i64 }

-- ==
-- entry: triangle
-- input { 4 }
-- output { 10 }

-- ==
-- entry: fill
-- input { 2i64 3i64 }
-- output { [[0, 1, 2], [10, 11, 12]] }

entry pair_sum (n: i64) = loop acc = 0i64 for i < n do loop acc for j < n do acc + i * j

entry triangle (n: i32) = loop c = 0 for i < n do loop c for _j < i + 1 do c + 1

entry fill (n: i64) (m: i64) =
  loop a = replicate n (replicate m 0) for i < n do
    loop a for j < m do a with [i, j] = i32.i64 (i * 10 + j)
