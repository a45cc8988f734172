-- | A running sum, `scan (+)`, inside a loss, and its gradient by `vjp`:
-- the adjoint of an inclusive `+` scan is a `+` scan of the adjoints in
-- reverse, so the gradient should cost about two scans and a map.
--
-- Run it:   urchin run examples/cumsum.fut -e grad < examples/cumsum.in
-- Time it:  urchin bench examples/cumsum.fut
-- ==
-- entry: main
-- input { [1.0, 2.0, 3.0] }
-- output { 46.0 }

-- The prefix sums are 1, 3, 6; the adjoint of the i-th value is twice
-- the sum of the prefix sums from the i-th on.
-- ==
-- entry: grad
-- input { [1.0, 2.0, 3.0] }
-- output { [20.0, 18.0, 12.0] }

-- The same data for both, to compare their times (`urchin bench`): 10^6
-- values.
-- ==
-- entry: main grad
-- compiled random input { [1000000]f64 }

-- | The sum of the squares of the prefix sums.
def loss (xs: []f64) = f64.sum (map (\s -> s * s) (scan (+) 0 xs))

entry main (xs: []f64) = loss xs

entry grad (xs: []f64) = vjp loss xs 1
