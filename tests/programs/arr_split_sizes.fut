-- `split` finds its sizes wherever the argument's size was made a sum:
-- by `++`, by `iota`/`tabulate`/`replicate` of a sum, and through
-- `transpose`, the rows of a `map`, and the results of AD.
-- ==
-- entry: concat
-- input { [1, 2] [3, 4, 5] }
-- output { [1, 2] [3, 4, 5] }
-- input { empty([0]i32) [3] }
-- output { empty([0]i32) [3] }

entry concat (xs: []i32) (ys: []i32) = split (xs ++ ys)

-- ==
-- entry: iota_sum
-- input { 2i64 3i64 }
-- output { [0i64, 1i64] [2i64, 3i64, 4i64] }

entry iota_sum (n: i64) (m: i64) = split (iota (n + m))

-- ==
-- entry: rows
-- input { 1i64 2i64 }
-- output { [[0i64], [0i64]] [[1i64, 2i64], [1i64, 2i64]] }

entry rows (n: i64) (m: i64) =
  tabulate (n + m) (\i -> replicate 2 i) |> transpose |> map split |> unzip

-- ==
-- entry: jacobian
-- input { [1f64, 2f64] [3f64] }
-- output { [[2f64, 0f64], [0f64, 4f64]] [[0f64], [0f64]] }

def f [n] [m] (xs: [n]f64, _ys: [m]f64) = map (\x -> x * x) xs

entry jacobian [n] [m] (xs: [n]f64) (ys: [m]f64) =
  let seeds =
    tabulate (n + m) (\i -> (tabulate n (\j -> f64.bool (i == j)),
                              tabulate m (\j -> f64.bool (i == n + j))))
  in jmp f (xs, ys) seeds |> transpose |> map split |> unzip
