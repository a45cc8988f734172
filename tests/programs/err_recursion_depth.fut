-- Recursion that does not reach its base case stops with a clean stack
-- overflow error, not a crash.
-- ==
-- input { 5i64 } error: stack overflow

def down (n: i64) : i64 = if n == 0 then 0 else 1 + down (n + 1)

entry main (n: i64) = down n
