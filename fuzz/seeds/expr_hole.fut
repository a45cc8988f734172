-- A typed hole `???` stands for a value of any type; evaluating it is a
-- run-time error (also when its type is a function's).
-- ==
-- input { true }
-- output { [1, 2, 3] }
-- input { false }
-- error: \b[Hh]ole

-- ==
-- entry: applied
-- input { 1i64 }
-- error: \b[Hh]ole

entry main (b: bool) = if b then [1, 2, 3] else ???

entry applied (x: i64) : bool = ??? x x
