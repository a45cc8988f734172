-- `loop p = init while c do body`, including a loop that never runs.
-- ==
-- entry: collatz
-- input { 6i64 }
-- output { 8 }
-- input { 27i64 }
-- output { 111 }
-- input { 1i64 }
-- output { 0 }

-- ==
-- entry: double_until
-- input { 3 100 }
-- output { 192 }
-- input { 200 100 }
-- output { 200 }

-- ==
-- entry: gcd
-- input { 48 18 }
-- output { 6 }
-- input { 17 5 }
-- output { 1 }

entry collatz (n: i64) =
  let (_, steps) =
    loop (x, steps) = (n, 0) while x != 1 do
      if x % 2 == 0 then (x / 2, steps + 1) else (3 * x + 1, steps + 1)
  in steps

entry double_until (x: i32) (lim: i32) = loop y = x while y < lim do y * 2

entry gcd (a: i32) (b: i32) =
  let (g, _) = loop (a, b) = (a, b) while b != 0 do (b, a % b)
  in g
