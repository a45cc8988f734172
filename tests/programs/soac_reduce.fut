-- `reduce` with the neutral element on empty input, with a user lambda,
-- and with a non-commutative associative operator on tuples (products of
-- 2x2 matrices, whose order matters).
-- ==
-- entry: sum
-- input { [1, 2, 3, 4] }
-- output { 10 }
-- input { empty([0]i32) }
-- output { 0 }

-- ==
-- entry: prod
-- input { [1.5, 2.0, -4.0] }
-- output { -12.0 }
-- input { empty([0]f64) }
-- output { 1.0 }

-- ==
-- entry: maxl
-- input { [3, 9, -2] }
-- output { 9 }
-- input { empty([0]i32) }
-- output { -1000 }

-- ==
-- entry: matprod
-- input { [1, 1, 1, 1, 1] }
-- output { 8 5 5 3 }
-- input { [2, 3] }
-- output { 7 2 3 1 }
-- input { [3, 2] }
-- output { 7 3 2 1 }
-- input { empty([0]i32) }
-- output { 1 0 0 1 }

entry sum (xs: []i32) = reduce (+) 0 xs

entry prod (xs: []f64) = reduce (*) 1 xs

entry maxl (xs: []i32) = reduce (\a b -> if a > b then a else b) (-1000) xs

def mmul (a0: i32, a1: i32, a2: i32, a3: i32) (b0: i32, b1: i32, b2: i32, b3: i32) =
  (a0 * b0 + a1 * b2, a0 * b1 + a1 * b3, a2 * b0 + a3 * b2, a2 * b1 + a3 * b3)

-- The product of the matrices [[x, 1], [1, 0]] in order.
entry matprod (xs: []i32) = reduce mmul (1, 0, 0, 1) (map (\x -> (x, 1, 1, 0)) xs)
