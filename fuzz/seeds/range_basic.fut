-- Range expressions: `a..<b` (exclusive), `a...b` (inclusive), `a..>b`
-- (downwards, exclusive), each with an optional second element fixing the
-- stride: `a..s..<b`. The bounds may be any integer type.
-- ==
-- entry: simple
-- input { 5 }
-- output { [0, 1, 2, 3, 4] [1, 2, 3, 4, 5] [5, 4, 3, 2, 1] empty([0]i32) }

-- ==
-- entry: strided
-- input { 10i64 }
-- output { [0i64, 3i64, 6i64, 9i64] [1i64, 4i64, 7i64, 10i64] [10i64, 7i64, 4i64, 1i64] [10i64, 8i64, 6i64, 4i64, 2i64, 0i64] }

-- ==
-- entry: precedence
-- input { 2u8 }
-- output { [2u8, 3u8, 4u8] 3i64 }

-- ==
-- entry: single
-- input { 7 }
-- output { [7] [7] }

entry simple (n: i32) = (0..<n, 1...n, n..>0, n..<n)

entry strided (n: i64) = (0..3..<n, 1..4...n, n..7..>0, n..n-2...0)

-- The bounds are whole operator expressions: `x+1...2*x` is `(x+1)...(2*x)`.
entry precedence (x: u8) = (x...x + 2, length (0..<1 + 2))

entry single (x: i32) = (x...x, x..x+1...x)
