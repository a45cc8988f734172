-- Loops over arrays with in-place updates: a sieve of Eratosthenes, a
-- bubble sort, and a running sum.
-- ==
-- entry: sieve
-- input { 20i64 }
-- output { [2, 3, 5, 7, 11, 13, 17, 19] }
-- input { 2i64 }
-- output { empty([0]i32) }

-- ==
-- entry: bubble
-- input { [5, 1, 4, 2, 8] }
-- output { [1, 2, 4, 5, 8] }
-- input { [3] }
-- output { [3] }
-- input { empty([0]i32) }
-- output { empty([0]i32) }

-- ==
-- entry: running
-- input { [1, 2, 3, 4] }
-- output { [1, 3, 6, 10] }

entry sieve (n: i64) =
  let ps = replicate n true
  let ps[0] = false
  let ps[1] = false
  let ps =
    loop ps for i < n do
      if i < 2 || !ps[i] then ps
      else let (ps, _) = loop (ps, j) = (ps, i * i) while j < n do
                           (ps with [j] = false, j + i)
           in ps
  in map i32.i64 (filter (\i -> ps[i]) (iota n))

entry bubble (xs: []i32) =
  let n = length xs
  in loop ys = copy xs for i < n do
       loop ys for j < n - 1 - i do
         if ys[j] > ys[j + 1] then
           let a = ys[j]
           let b = ys[j + 1]
           let ys[j] = b
           let ys[j + 1] = a
           in ys
         else ys

entry running (xs: []i32) =
  let n = length xs
  in loop ys = copy xs for i < n - 1 do ys with [i + 1] = ys[i] + ys[i + 1]
