-- Chained projections on nested tuples: `t.0.1` and `t.1.1.0` (the lexer
-- must not read `0.1` as a float here).
-- ==
-- input { 2 }
-- output { 3 6 4 }

entry main (x: i32) =
  let t = ((x, x + 1), (x * 2, (x * 3, x * 4)))
  in (t.0.1, t.1.1.0, t.1.0)
