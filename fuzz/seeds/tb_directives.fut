-- Test-block directives that urchin accepts: several entries in one
-- `entry:` line, a case without expected output (must only run cleanly),
-- a `random input` case, Futhark's benchmark/backend tags before `input`,
-- and `structure` / `warning:` directives, which are ignored.
-- ==
-- entry: double double_too
-- input { [1, 2] }
-- output { [2, 4] }
-- input { [5] }
-- nobench no_python input { [3, 4] }
-- output { [6, 8] }
-- random input { [10]i32 }
-- structure { Map 1 }
-- warning: .

entry double (xs: []i32) = map (* 2) xs

entry double_too (xs: []i32) = map (\x -> x + x) xs
