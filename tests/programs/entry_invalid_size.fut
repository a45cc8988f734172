-- An entry point's argument whose size contradicts a parameter's type is
-- an argument of invalid size, as Futhark's compiled programs report it.
-- ==
-- input { 2i64 [1, 2, 3] } output { 6 }
-- input { 2i64 [1, 2] } error: invalid size
-- input { 2i64 [1, 2, 3, 4] } error: invalid size.*parameter `xs` of entry point `main`

entry main (n: i64) (xs: [n + 1]i32) : i32 = i32.sum xs
