-- Integer division by zero is a run-time error for `/ % // %%`, at signed
-- and unsigned types, also inside a map. Float division by zero is not an
-- error.
-- ==
-- entry: div
-- input { 1 0 }
-- error: \b[Dd]ivision by zero
-- input { 7 2 }
-- output { 3 }

-- ==
-- entry: rem
-- input { 1 0 }
-- error: \b[Dd]ivision by zero

-- ==
-- entry: quot
-- input { 5i64 0i64 }
-- error: \b[Dd]ivision by zero

-- ==
-- entry: trem
-- input { 5i64 0i64 }
-- error: \b[Dd]ivision by zero

-- ==
-- entry: udiv
-- input { 200u8 0u8 }
-- error: \b[Dd]ivision by zero

-- ==
-- entry: in_map
-- input { [1, 0, 2] }
-- error: \b[Dd]ivision by zero
-- input { [1, 3] }
-- output { [100, 33] }

-- ==
-- entry: fdiv
-- input { 1.0 0.0 }
-- output { f64.inf }

entry div (a: i32) (b: i32) = a / b

entry rem (a: i32) (b: i32) = a % b

entry quot (a: i64) (b: i64) = a // b

entry trem (a: i64) (b: i64) = a %% b

entry udiv (a: u8) (b: u8) = a / b

entry in_map (xs: []i32) = map (100 /) xs

entry fdiv (a: f64) (b: f64) = a / b
