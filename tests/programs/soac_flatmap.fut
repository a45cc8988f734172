-- `flatmap f xs`: the irregular results of `f` concatenated, with the
-- shape, flag and offset arrays describing the segments, and the regular
-- results; empty segments (first, middle, last) and an empty input.
-- ==
-- entry: copies
-- input { [0i64, 2i64, 0i64, 3i64, 1i64, 0i64] [5i32, 10i32, 15i32, 20i32, 30i32, 40i32] }
-- output { [0i64, 2i64, 0i64, 3i64, 1i64, 0i64]
--          [true, false, true, false, false, true]
--          [0i64, 0i64, 2i64, 2i64, 5i64, 6i64]
--          [10i32, 10i32, 20i32, 20i32, 20i32, 30i32]
--          [10i32, 20i32, 30i32, 40i32, 60i32, 80i32] }
-- input { empty([0]i64) empty([0]i32) }
-- output { empty([0]i64) empty([0]bool) empty([0]i64) empty([0]i32) empty([0]i32) }

-- ==
-- entry: ranges
-- input { [3i64, 1i64, 2i64] }
-- output { [3i64, 1i64, 2i64] [true, false, false, true, true, false]
--          [0i64, 3i64, 4i64] [0i64, 1i64, 2i64, 0i64, 0i64, 1i64] }

-- ==
-- entry: sized_ok
-- input { [1, 2, 3] }
-- output { [1, 2, 3] }
-- input { [1, 2] }
-- error: .

entry copies (ks: []i64) (xs: []i32) =
  flatmap (\(k, x) -> (replicate k x, x * 2)) (zip ks xs)

entry ranges (ks: []i64) = flatmap' iota ks

entry sized_ok (xs: []i32) : [3]i32 = sized 3 xs

-- An array whose size varies per element, indexed per element, over no
-- elements at all (the evaluator runs such a statement lane by lane).
-- ==
-- entry: last_of_iota
-- input { [3i64, 1i64] }
-- output { [2i64, 0i64] }
-- input { empty([0]i64) }
-- output { empty([0]i64) }

entry last_of_iota (ks: []i64) = map (\k -> (iota k)[k - 1]) ks
