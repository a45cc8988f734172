-- `==` and `!=` compare arrays whole when both sides have one type, as
-- in Futhark; where the types differ AUTOMAP maps the comparison, and of
-- two equally cheap readings the one comparing smaller values wins.
-- Both sides of `==` have one type, sizes included, so `matrices` is
-- `[n][m]i32 -> [n][m]i32 -> (bool, bool)`: arrays of other shapes are
-- arguments of invalid size, empty ones too (they come with their shapes).
-- ==
-- entry: matrices
-- input { [[1, 2], [3, 4]] [[1, 2], [3, 4]] }
-- output { true false }
-- input { [[1, 2], [3, 4]] [[1, 2], [3, 5]] }
-- output { false true }
-- input { [[1, 2], [3, 4]] [[1, 2]] }
-- error: invalid size for parameter `yss` of entry point `matrices`
-- input { empty([0][2]i32) empty([0][2]i32) }
-- output { true false }
-- input { empty([0][2]i32) empty([0][3]i32) }
-- error: invalid size for parameter `yss` of entry point `matrices`
-- input { [[1], [2]] [[1, 2]] }
-- error: invalid size for parameter `yss` of entry point `matrices`

entry matrices (xss: [][]i32) (yss: [][]i32) = (xss == yss, xss != yss)

-- ==
-- entry: in_tuples
-- input { [1, 2] [1, 2] [1.5f64] [1.5f64] }
-- output { true }
-- input { [1, 2] [1, 2] [1.5f64] [f64.nan] }
-- output { false }
-- input { [1, 2] [2, 1] [1.5f64] [1.5f64] }
-- output { false }

entry in_tuples (a: []i32) (b: []i32) (x: []f64) (y: []f64) = (a, 3, x) == (b, 3, y)

-- Arrays of tuples are compared component by component.
-- ==
-- entry: of_tuples
-- input { [1, 2] [true, false] [1, 2] [true, false] }
-- output { true }
-- input { [1, 2] [true, false] [1, 2] [true, true] }
-- output { false }

entry of_tuples (a: []i32) (p: []bool) (b: []i32) (q: []bool) = zip a p == zip b q

-- An element against an array maps over the array.
-- ==
-- entry: against_scalar
-- input { [1, 0, 1] }
-- output { [false, true, false] [true, false, true] }

entry against_scalar (xs: []i32) = (xs == 0, xs != 0)

-- A matrix against a vector compares each row with it.
-- ==
-- entry: rows_against
-- input { [[1, 2], [3, 4], [1, 2]] [1, 2] }
-- output { [true, false, true] }

entry rows_against (xss: [][]i32) (ys: []i32) = xss == ys

-- Explicit maps choose what is compared.
-- ==
-- entry: explicit
-- input { [[1, 2], [3, 4]] [[1, 2], [3, 5]] }
-- output { [true, false] [[true, true], [true, false]] }

entry explicit (xss: [][]i32) (yss: [][]i32) = (map2 (==) xss yss, map2 (map2 (==)) xss yss)

-- A comparison of arrays inside a differentiated function has no
-- derivative of its own.
-- ==
-- entry: in_gradient
-- input { [1.0, 2.0] [1.0, 2.0] }
-- output { [2.0, 4.0] }
-- input { [1.0, 2.0] [1.0, 3.0] }
-- output { [0.0, 0.0] }

entry in_gradient (xs: []f64) (ys: []f64) =
  vjp (\v -> if v == ys then f64.sum (v * v) else 0) xs 1
