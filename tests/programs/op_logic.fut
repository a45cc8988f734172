-- `&&` binds tighter than `||`; comparisons bind tighter than both and
-- looser than arithmetic. `&&` and `||` short-circuit: the right operand
-- is not evaluated (no out-of-bounds error below).
-- ==
-- entry: prec
-- input { true false false }
-- output { true false false false }
-- input { false true true }
-- output { true true true true }
-- input { false false true }
-- output { false false true true }

-- ==
-- entry: short_and
-- input { [1, 2, 3] 5i64 }
-- output { false }
-- input { [1, -2, 3] 1i64 }
-- output { false }
-- input { [1, 2, 3] 2i64 }
-- output { true }

-- ==
-- entry: short_or
-- input { [1, 2, 3] 5i64 }
-- output { true }
-- input { [1, -2, 3] 1i64 }
-- output { false }

-- ==
-- entry: cmp_arith
-- input { 3 2 }
-- output { true false }

entry prec (a: bool) (b: bool) (c: bool) =
  (a || b && c, (a || b) && c, a && b || c, !a || b && c)

entry short_and (xs: []i32) (i: i64) = i < length xs && xs[i] > 0

entry short_or (xs: []i32) (i: i64) = i >= length xs || xs[i] > 0

entry cmp_arith (a: i32) (b: i32) = (a + 1 == b * 2, a * 2 < b + 3 || a == b)
