-- `split xs` gives (xs[:n], xs[n:]) for `xs: [n + m]t` (Futhark 0.28's
-- form): the sizes are read off the argument's size, here a coercion to a
-- sum.
-- ==
-- input { 2i64 [1, 2, 3, 4, 5] }
-- output { [1, 2] [3, 4, 5] }
-- input { 0i64 [1, 2] }
-- output { empty([0]i32) [1, 2] }
-- input { 2i64 [1, 2] }
-- output { [1, 2] empty([0]i32) }

entry main (i: i64) (xs: []i32) = split (xs :> [i + (length xs - i)]i32)
