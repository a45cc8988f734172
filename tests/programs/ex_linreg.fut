-- Example: least-squares polynomial fit via the normal equations
-- (X^T X) c = X^T y, solved by Gauss-Jordan elimination in a loop.
-- ==
-- entry: quadratic
-- input { [0.0, 1.0, 2.0, 3.0, 4.0] [1.0, 6.0, 17.0, 34.0, 57.0] }
-- output { [1.0, 2.0, 3.0] }
-- input { [-1.0, 0.0, 1.0, 2.0] [1.0, 0.5, 2.0, 5.5] }
-- output { [0.5, 0.5, 1.0] }

-- ==
-- entry: linear
-- input { [1.0, 2.0, 3.0, 4.0, 5.0] [2.1, 3.9, 6.2, 7.8, 10.1] }
-- output { [0.05, 1.99] }

def matmul [n][m][p] (a: [n][m]f64) (b: [m][p]f64) : [n][p]f64 =
  map (\r -> map (\c -> f64.sum (map2 (*) r c)) (transpose b)) a

-- Gauss-Jordan elimination without pivoting on the augmented matrix.
def solve [n] (a: [n][n]f64) (b: [n]f64) : [n]f64 =
  let m = map2 (\row x -> row ++ [x]) a b
  let m = loop m for i < n do
            let p = m[i, i]
            let pivot = map (/ p) (m[i])
            in map2 (\j row -> if j == i then pivot
                               else map2 (\x y -> x - row[i] * y) row pivot)
                    (iota n) m
  in map (\row -> row[n]) m

def fit [k] (xmat: [k][]f64) (ys: [k]f64) : []f64 =
  let xt = transpose xmat
  in solve (matmul xt xmat) (map (\r -> f64.sum (map2 (*) r ys)) xt)

entry quadratic (xs: []f64) (ys: []f64) = fit (map (\x -> [1, x, x * x]) xs) ys

entry linear (xs: []f64) (ys: []f64) = fit (map (\x -> [1, x]) xs) ys
