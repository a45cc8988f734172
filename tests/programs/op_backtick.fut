-- Backtick infix application ``a `f` b`` of a user function; it is
-- left-associative. (Its precedence relative to other operators is not
-- tested: the operands are parenthesised.)
-- ==
-- input { 10 3 2 }
-- output { 7 5 14 5.5 }
-- input { 0 -3 4 }
-- output { 3 -1 6 1.5 }

def sub (a: i32) (b: i32) = a - b

def avg (x: f64) (y: f64) = (x + y) / 2

entry main (a: i32) (b: i32) (c: i32) =
  ( a `sub` b
  , a `sub` b `sub` c
  , (a `sub` b) * 2
  , (f64.i32 a) `avg` (f64.i32 c - 1) )
