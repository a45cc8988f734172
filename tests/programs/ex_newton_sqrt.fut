-- Example: Newton's method for square roots, with a fixed number of
-- iterations (mapped over an array) and with a while loop that counts its
-- iterations.
-- ==
-- entry: main
-- input { [2.0, 9.0, 0.25, 1000000.0, 0.0] }
-- output { [1.4142135623730951, 3.0, 0.5, 1000.0, 0.0] }

-- ==
-- entry: iterations
-- input { 2.0 1e-10 }
-- output { 1.4142135623746899 4 }
-- input { 100.0 1e-6 }
-- output { 10.000000000139897 7 }
-- input { 1.0 1e-12 }
-- output { 1.0 0 }

def newton_sqrt (a: f64) : f64 =
  loop x = (if a > 1 then a else 1) for _i < 50 do 0.5 * (x + a / x)

entry main (xs: []f64) = map newton_sqrt xs

entry iterations (a: f64) (eps: f64) =
  loop (x, i) = (a, 0) while f64.abs (x * x - a) > eps do (0.5 * (x + a / x), i + 1)
