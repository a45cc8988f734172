-- `opaque`, `manifest` and `trace` return their argument (what `trace`
-- prints is tested in tests/trace_cli.rs).
-- ==
-- input { [1, 2, 3] }
-- output { [2, 3, 4] 6 [1, 2, 3] }

entry main (xs: []i32) = (map (+ 1) (opaque xs), i32.sum (trace xs), manifest xs)
