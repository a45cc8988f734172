-- `m.(e)` opens a numeric module in `e`: its names and operators are the
-- module's (`f32.(sum xs / 2)`, where `/` is `f32./`). Attributes are
-- accepted on patterns and ignored (`loop #[true_dep] acc = ...`).
-- ==
-- entry: opened
-- input { [1f32, 3f32] 4.0 }
-- output { 2f32 true }

-- ==
-- entry: pattern_attr
-- input { 4 }
-- output { 6 }

entry opened (xs: []f32) (y: f64) = (f32.(sum xs / 2), f64.(sqrt y == 2 && y > 0))

entry pattern_attr (n: i32) = loop #[true_dep] acc = 0 for i < n do acc + i
