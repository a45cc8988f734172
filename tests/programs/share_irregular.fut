-- Two maps over the same array compute the same costly statement, a
-- `scan` over `iota k`, whose length differs from element to element. The
-- simplifier's sharing (`core::share`) must not make the first map return
-- it for the second: as an array of rows it would be irregular.
-- ==
-- input { [0i64, 4i64, 1i64, 3i64] }
-- output { [0i64, 6i64, 0i64, 3i64] [0i64, 3i64, 0i64, 1i64] }

entry main (ks: []i64) =
  let a = map (\k -> let s = scan (+) 0 (iota k) in if k > 0 then s[k - 1] else 0) ks
  let b = map (\k -> let s = scan (+) 0 (iota k) in if k > 1 then s[k - 2] else 0) ks
  in (a, b)
