-- argmax via `reduce` over (index, value) pairs; ties go to the smallest
-- index; the empty array gives the neutral element.
-- ==
-- input { [3.0, 7.5, 1.0, 7.5] }
-- output { 1i64 7.5 }
-- input { [-2.0] }
-- output { 0i64 -2.0 }
-- input { [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 0.0] }
-- output { 8i64 9.0 }
-- input { empty([0]f64) }
-- output { -1i64 -f64.inf }

def argmax_op (i1: i64, v1: f64) (i2: i64, v2: f64) : (i64, f64) =
  if v1 > v2 then (i1, v1)
  else if v2 > v1 then (i2, v2)
  else if i1 < i2 then (i1, v1)
  else (i2, v2)

entry main (xs: []f64) = reduce argmax_op (-1, -f64.inf) (zip (indices xs) xs)
