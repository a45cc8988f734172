-- Uniqueness marks `*[]t` on parameters and return types are parsed and
-- ignored.
-- ==
-- entry: main
-- input { [5, 6, 7] }
-- output { [0, 6, 7] }

-- ==
-- entry: fresh
-- input { 3i64 }
-- output { [0i64, 1i64, 2i64] }

def set0 (xs: *[]i32) : *[]i32 = xs with [0] = 0

entry main (xs: *[]i32) = set0 xs

entry fresh (n: i64) : *[]i64 = iota n
