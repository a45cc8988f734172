-- SOACs nested in each other: row sums (map of reduce), column sums
-- (reduce of vectors, also of an empty matrix), scans per row, filters
-- per row, a total.
-- ==
-- entry: rows_cols
-- input { [[1, 2, 3], [4, -5, 6]] }
-- output { [6, 5] [5, -3, 9] [[1, 3, 6], [4, -1, 5]] [3i64, 2i64] }
-- input { empty([0][3]i32) }
-- output { empty([0]i32) [0, 0, 0] empty([0][3]i32) empty([0]i64) }

-- ==
-- entry: total
-- input { [[1.0, 2.0], [3.5, 0.5]] }
-- output { 7.0 }

entry rows_cols [n][m] (xss: [n][m]i32) =
  ( map (\row -> reduce (+) 0 row) xss
  , reduce (map2 (+)) (replicate m 0) xss
  , map (scan (+) 0) xss
  , map (\row -> length (filter (> 0) row)) xss )

entry total (xss: [][]f64) = reduce (+) 0 (map (reduce (+) 0) xss)
