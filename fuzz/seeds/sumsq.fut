-- | Sum of squares and its gradient: the smallest program on which to
-- measure the cost of reverse-mode AD. `xs * xs` squares elementwise by
-- AUTOMAP (an implicit `map2`), and `vjp` gives the gradient, `2 * xs`.
--
-- Run it:   urchin run examples/sumsq.fut < examples/sumsq.in
--           urchin run examples/sumsq.fut -e grad < examples/sumsq.in
-- Time it:  urchin bench examples/sumsq.fut
-- ==
-- entry: main
-- input { [1.0, 2.0, 3.0] }
-- output { 14.0 }
-- input { empty([0]f64) }
-- output { 0.0 }

-- ==
-- entry: grad
-- input { [1.0, 2.0, 3.0] }
-- output { [2.0, 4.0, 6.0] }

-- The same data for both, to compare their times (`urchin bench`).
-- ==
-- entry: main grad
-- compiled random input { [10000000]f64 }

entry main (xs: []f64) = f64.sum (xs * xs)

entry grad (xs: []f64) = vjp main xs 1
