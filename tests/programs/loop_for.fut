-- `loop p = init for i < n do body`, with i32 and i64 bounds, zero
-- iterations, and a negative bound (no iterations).
-- ==
-- entry: sum_to
-- input { 5 }
-- output { 10 }
-- input { 0 }
-- output { 0 }
-- input { -3 }
-- output { 0 }

-- ==
-- entry: sum_sq_i64
-- input { 4i64 }
-- output { 14i64 }

-- ==
-- entry: factorial
-- input { 5 }
-- output { 120 }
-- input { 0 }
-- output { 1 }

-- ==
-- entry: float_acc
-- input { 3 }
-- output { 0.875 }

entry sum_to (n: i32) = loop acc = 0 for i < n do acc + i

entry sum_sq_i64 (n: i64) = loop acc = 0 for i < n do acc + i * i

entry factorial (n: i32) = loop acc = 1 for i < n do acc * (i + 1)

-- 1/2 + 1/4 + 1/8
entry float_acc (n: i32) =
  let (acc, _) = loop (acc, w) = (0.0, 0.5) for _i < n do (acc + w, w / 2)
  in acc
