-- Precedence and associativity of arithmetic: `**` binds tighter than
-- `* / % // %%`, which bind tighter than `+ -`; all of these are
-- left-associative except `**`, which is right-associative.
-- ==
-- entry: arith
-- input { 100 3 2 }
-- output { 106 302 95 16 0 2 99 109 900 16 }
-- input { -7 2 3 }
-- output { -1 -11 -12 -2 1 3 -6 1 -56 -1 }

-- ==
-- entry: pow_right_assoc
-- input { 2 3 2 }
-- output { 512 512.0 }

-- ==
-- entry: concat_level
-- input { [1, 2] }
-- output { [1, 2, 2, 3] }

entry arith (a: i32) (b: i32) (c: i32) =
  ( a + b * c
  , a * b + c
  , a - b - c
  , a / b / c
  , a * b % c
  , a % b * c
  , a - b + c
  , a + b ** c
  , a * b ** c
  , a // b // c )

entry pow_right_assoc (x: i32) (y: i32) (z: i32) =
  (x ** y ** z, f64.i32 x ** f64.i32 y ** f64.i32 z)

-- `++` is at the level of `+`, below application.
entry concat_level (xs: []i32) = xs ++ map (+1) xs
