-- ==
-- entry: sums
-- input { empty([0][3]f64) }
-- input { [[1.0, 2.0, 3.0]] }
entry sums (xss: [][3]f64) = scan (map2 (+)) (replicate 3 0) xss
-- ==
-- entry: mixed
-- input { [1.0, 2.0] [[1.0, 2.0], [3.0, 4.0]] }
-- input { empty([0]f64) empty([0][0]f64) }
entry mixed (x: []f64) (m: [][]f64) = m + x |> map f64.sum
