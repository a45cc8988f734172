-- An entry point's anonymous parameter sizes are inferred, as Futhark
-- does (`urchin check` shows them), and its arguments are checked against
-- them before the body runs, as against declared sizes: otherwise the
-- body, lowered and optimised trusting them, may drop a check the
-- reference semantics makes, or fail with another error.
-- ==
-- entry: rows
-- input { [0.5] }
-- output { [[0.5]] }
-- input { [0.5, 3.0] }
-- error: invalid size for parameter `zs` of entry point `rows`

-- `is` is `[2]i64`; the right size reaches the update out of bounds.
-- ==
-- entry: pairs
-- input { 1i64 [2i64, 3i64] }
-- error: Index \[5\] out of bounds
-- input { 1i64 [2i64] }
-- error: Value of shape \[1\] cannot match shape \[2\] \(an argument of invalid size for parameter `is` of entry point `pairs`\)

-- A size that an `i64` parameter is, and a sum of sizes.
-- ==
-- entry: sized_by
-- input { [1i64, 2i64] 2i64 }
-- output { [1i64, 3i64] }
-- input { [1i64, 2i64] 3i64 }
-- error: invalid size for parameter `xs`

-- ==
-- entry: one_more
-- input { [1i64] [1i64, 2i64] }
-- output { [2i64, 3i64] }
-- input { [1i64] [1i64] }
-- error: Value of shape \[1\] cannot match shape \[2\]

entry rows (zs: []f64) : [][]f64 =
  if 0 < (loop (w1, acc1) = (0i32, 1i32) while w1 < 0 do (w1 + 1, 0i32)).1
  then [map2 (+) zs (rep 0.0)]
  else (copy (map2 (\(x: f64) (y: i64) -> [0.0]) zs [0i64]) with [3] = [-3.0])

entry pairs (b: i64) (is: []i64) : [][]i64 =
  map2 (\x y -> [0i64]) (replicate 2 0.0)
       (copy (map2 (+) is (rep (-1i64))) with [5] = (loop acc1 = b for i1 < 2 do 5i64))

entry sized_by (xs: []i64) (n: i64) = map2 (+) (iota n) xs

entry one_more [n] (xs: [n]i64) (ys: []i64) = map2 (+) (xs ++ [1]) ys
