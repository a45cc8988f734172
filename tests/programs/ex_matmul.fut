-- Example: matrix multiplication via map, transpose and a dot product.
-- ==
-- input { [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]] [[7.0, 8.0], [9.0, 10.0], [11.0, 12.0]] }
-- output { [[58.0, 64.0], [139.0, 154.0]] }
-- input { [[1.0, 0.0], [0.0, 1.0]] [[2.5, -1.0], [3.0, 4.0]] }
-- output { [[2.5, -1.0], [3.0, 4.0]] }

def dot [n] (xs: [n]f64) (ys: [n]f64) : f64 = f64.sum (map2 (*) xs ys)

def matmul [n][m][p] (a: [n][m]f64) (b: [m][p]f64) : [n][p]f64 =
  map (\row -> map (\col -> dot row col) (transpose b)) a

entry main [n][m][p] (a: [n][m]f64) (b: [m][p]f64) = matmul a b
