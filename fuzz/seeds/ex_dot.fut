-- Example: dot product with map2 and reduce.
-- ==
-- input { [1.0, 2.0, 3.0] [4.0, 5.0, 6.0] }
-- output { 32.0 }
-- input { [-1.5] [2.0] }
-- output { -3.0 }
-- input { empty([0]f64) empty([0]f64) }
-- output { 0.0 }

def dot [n] (xs: [n]f64) (ys: [n]f64) : f64 = reduce (+) 0 (map2 (*) xs ys)

entry main [n] (xs: [n]f64) (ys: [n]f64) = dot xs ys
