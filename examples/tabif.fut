-- | GMM's `unpackQ` step in miniature (issue 41): a 2-D `tabulate` with
-- an `if` around a gather from the mapped row, and its `if`-free twin.
-- The `if` runs as a select over the whole `d × d` tile, both branches
-- on every element, so it costs about what the twin does and builds no
-- copy of the row per element.
--
-- Run it:   urchin run examples/tabif.fut -e main < examples/tabif.in
-- Time it:  urchin bench examples/tabif.fut
-- ==
-- entry: main
-- input @ tabif.in
-- output { 16.0 }

-- ==
-- entry: twin
-- input @ tabif.in
-- output { 26.0 }

-- 5 rows of 2,080 and d = 64, the issue's sizes.
-- ==
-- entry: twin main
-- compiled random input { [5][2080]f64 64i64 }

entry main [k] [l] (rows: [k][l]f64) (d: i64) : f64 =
  f64.sum (map (\v -> f64.sum (flatten (tabulate_2d d d (\i j ->
    if i == j then 0 else v[(d * j + i) % l])))) rows)

entry twin [k] [l] (rows: [k][l]f64) (d: i64) : f64 =
  f64.sum (map (\v -> f64.sum (flatten (tabulate_2d d d (\i j ->
    v[(d * j + i) % l])))) rows)
