-- Bitwise operators: `& ^ |` share one level (left-associative) that binds
-- tighter than comparisons and looser than shifts `<< >> >>>`, which in
-- turn bind looser than `+ -`. (Unlike C: `a & b == b` is `(a & b) == b`.)
-- ==
-- input { 12 4 }
-- output { true 65536 12 0 4 0 }
-- input { 5 3 }
-- output { false 256 7 0 3 2 }

entry main (a: i32) (b: i32) =
  ( a & b == b
  , 1 << a + b
  , a | b << 1
  , a + b & a - b
  , a ^ b | a & b
  , a | b ^ a )
