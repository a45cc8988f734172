-- `foldl f acc xs` (f : acc -> elem -> acc, from the left) and
-- `foldr f acc xs` (f : elem -> acc -> acc, from the right), with
-- non-associative operators so that the order shows.
-- ==
-- input { [1, 2, 3] [1.5, 2.5] }
-- output { -6 2 123 321 2i64 4.0 }
-- input { empty([0]i32) empty([0]f64) }
-- output { 0 0 0 0 0i64 0.0 }

entry main (xs: []i32) (ys: []f64) =
  let (n, s) = foldl (\(n, s) y -> (n + 1, s + y)) (0i64, 0.0) ys
  in ( foldl (-) 0 xs
     , foldr (-) 0 xs
     , foldl (\acc d -> acc * 10 + d) 0 xs
     , foldr (\d acc -> acc * 10 + d) 0 xs
     , n, s )
