-- Unary `-` (binds tighter than binary operators) and `!` on booleans.
-- Negating the most negative value wraps to itself.
-- ==
-- entry: neg
-- input { 3 10 }
-- output { -3 7 -13 -13 3 }
-- input { -4 1 }
-- output { 4 5 3 3 -4 }

-- ==
-- entry: neg_float
-- input { 2.5 }
-- output { -2.5 -1.5 }

-- ==
-- entry: neg_wrap
-- input { -128i8 }
-- output { -128i8 }
-- input { 5i8 }
-- output { -5i8 }

-- ==
-- entry: neg_unsigned
-- input { 1u8 }
-- output { 255u8 }

-- ==
-- entry: not
-- input { true true }
-- output { false false false true }
-- input { false true }
-- output { true true true false }

entry neg (a: i32) (b: i32) = (-a, -a + b, - a - b, -(a + b), -(-a))

entry neg_float (x: f64) = (-x, -x + 1)

entry neg_wrap (x: i8) = -x

entry neg_unsigned (x: u8) = -x

entry not (a: bool) (b: bool) = (!a, !a && b, !(a && b), !(!a))
