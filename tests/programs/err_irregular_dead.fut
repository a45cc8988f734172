-- A map whose lanes build rows of different lengths fails, even when its
-- result is never used: the simplifier keeps dead code that may fail, so
-- the fast evaluator agrees with the reference semantics. Rows of equal
-- length, or rows taken from the input, are fine.
-- ==
-- input { [false, true] }
-- error: shape
-- input { [true, true] }
-- output { 2i64 }

entry main (bs: []bool) : i64 =
  let _rows = map (\b -> if b then [0i32, 0i32] else [0i32]) bs
  in length bs

-- ==
-- entry: rows_of_input
-- input { [[1, 2], [3, 4]] }
-- output { 2i64 }

entry rows_of_input (xss: [][]i32) : i64 =
  let _rows = map (\xs -> xs) xss
  in length xss
