-- Comparison operators on signed and unsigned integers, floats (NaN is
-- unordered and unequal to itself) and booleans (== and !=).
-- ==
-- entry: ints
-- input { 3 5 }
-- output { false true true true false false }
-- input { 5 5 }
-- output { true false false true false true }
-- input { -1 -7 }
-- output { false true false false true true }

-- ==
-- entry: unsigned
-- input { 200u8 100u8 }
-- output { false true }

-- ==
-- entry: floats
-- input { 1.5 2.5 }
-- output { false true true true false false }
-- input { f64.nan 1.0 }
-- output { false true false false false false }
-- input { f64.nan f64.nan }
-- output { false true false false false false }
-- input { -f64.inf 0.0 }
-- output { false true true true false false }

-- ==
-- entry: bools
-- input { true false }
-- output { false true }
-- input { false false }
-- output { true false }

entry ints (a: i32) (b: i32) = (a == b, a != b, a < b, a <= b, a > b, a >= b)

entry unsigned (a: u8) (b: u8) = (a < b, a > b)

entry floats (a: f64) (b: f64) = (a == b, a != b, a < b, a <= b, a > b, a >= b)

entry bools (a: bool) (b: bool) = (a == b, a != b)
