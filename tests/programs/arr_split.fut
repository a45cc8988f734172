-- `split i xs` gives (xs[:i], xs[i:]) (urchin's form: the split point is
-- an explicit argument, as in older Futhark).
-- ==
-- input { 2i64 [1, 2, 3, 4, 5] }
-- output { [1, 2] [3, 4, 5] }
-- input { 0i64 [1, 2] }
-- output { empty([0]i32) [1, 2] }
-- input { 2i64 [1, 2] }
-- output { [1, 2] empty([0]i32) }

entry main (i: i64) (xs: []i32) = split i xs
