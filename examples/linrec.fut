-- | A linear recurrence yᵢ = aᵢ · yᵢ₋₁ + bᵢ as a `scan` over pairs (the
-- composition of affine maps), and its gradient by `vjp`: the benchmark
-- of the general `scan` rule of reverse mode (an operator on tuples that
-- is not a known operator).
--
-- Run it:   urchin run examples/linrec.fut -e grad < examples/linrec.in
-- Time it:  urchin bench examples/linrec.fut
-- ==
-- entry: main
-- input { [0.5, 0.5, 0.5] [1.0, 2.0, 3.0] }
-- output { 7.75 }

-- ==
-- entry: grad
-- input { [0.5, 0.5, 0.5] [1.0, 2.0, 3.0] }
-- output { [0.0, 1.5, 2.5] [1.75, 1.5, 1.0] }

-- The same data for both, to compare their times (`urchin bench`).
-- ==
-- entry: main grad
-- compiled random input { [100000]f64 [100000]f64 }

def linrec [n] (as: [n]f64) (bs: [n]f64) =
  let (_, ys) = unzip (scan (\(a1, b1) (a2, b2) -> (a1 * a2, b1 * a2 + b2)) (1, 0) (zip as bs))
  in f64.sum ys

entry main [n] (as: [n]f64) (bs: [n]f64) = linrec as bs

entry grad [n] (as: [n]f64) (bs: [n]f64) = vjp (\(as, bs) -> linrec as bs) (as, bs) 1
