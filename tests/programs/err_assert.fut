-- A failing `assert c e` is a run-time error (checked before e is
-- evaluated, so the division by zero below is never reached).
-- ==
-- entry: check
-- input { 3 }
-- output { 6 }
-- input { 0 }
-- error: \b[Aa]ssert
-- input { -4 }
-- error: \b[Aa]ssert

-- ==
-- entry: in_map
-- input { [1, 2] }
-- output { [10, 5] }
-- input { [1, 0] }
-- error: \b[Aa]ssert

entry check (x: i32) = assert (x > 0) (x * 2)

entry in_map (xs: []i32) = map (\x -> assert (x != 0) (10 / x)) xs
