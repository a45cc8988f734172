-- Attributes `#[...] e` are accepted on expressions and do not change the
-- result (`#[stripmine(k)]` only matters for AD).
-- ==
-- entry: on_map
-- input { [1, 2, 3] }
-- output { [2, 3, 4] }

-- ==
-- entry: on_loop
-- input { 4 }
-- output { 6 16 }

entry on_map (xs: []i32) = #[sequential] map (+1) xs

entry on_loop (n: i32) =
  let a = #[unroll] loop acc = 0 for i < n do acc + i
  let b = #[stripmine(2)] loop acc = 1 for _i < n do acc * 2
  in (a, b)
