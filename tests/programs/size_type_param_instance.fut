-- A type parameter stands for one type in an application, sizes
-- included: the arrays given for two parameters of type `t` must have
-- one shape (Futhark's shapes/polymorphic1). The size check leaves a type
-- variable's instance unknown, so this is checked at run time, in each
-- component of a tuple and below the dimensions that enclose `t`.
-- ==
-- entry: pair_arrays
-- input { [1, 2] [3, 4] }
-- output { [1, 2] [3, 4] }
-- input { [1, 2] [3] }
-- error: \b[Ss]hape|\b[Ss]izes?\b|\b[Dd]imension|\b[Mm]ismatch

-- ==
-- entry: pair_tuples
-- input { [[1, 2]] [[3, 4]] }
-- output { 4 }
-- input { [[1, 2]] [[3]] }
-- error: \b[Ss]hape|\b[Ss]izes?\b|\b[Dd]imension|\b[Mm]ismatch

-- ==
-- entry: rows
-- input { [[1, 2], [3, 4]] [5, 6] }
-- output { 3i64 }
-- input { [[1, 2], [3, 4]] [5, 6, 7] }
-- error: \b[Ss]hape|\b[Ss]izes?\b|\b[Dd]imension|\b[Mm]ismatch

def pair 't (x: t) (y: t) = (x, y)

def cons 't (x: t) (xs: []t) = [x] ++ xs

entry pair_arrays (xs: []i32) (ys: []i32) = pair xs ys

entry pair_tuples (xss: [][]i32) (yss: [][]i32) =
  let ((a, i), (b, j)) = pair (xss, 1) (yss, 2)
  in i32.i64 (length a + length b + length a[0]) - i + j - 1

entry rows (xss: [][]i32) (ys: []i32) = length (cons ys xss)
