-- The boolean literals `true` and `false`.
-- ==
-- input { true }
-- output { true false false true true }
-- input { false }
-- output { true false true false false }

entry main (b: bool) = (true, false, !b, b && true, b || false)
