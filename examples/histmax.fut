-- | The largest value per bin, `reduce_by_index` with `max`, inside a
-- loss, and its gradient by `vjp`: each bin's adjoint goes to the value
-- that was its maximum (the first of equal ones), so the gradient needs
-- the histogram and, per value, whether it won its bin.
--
-- Run it:   urchin run examples/histmax.fut -e grad < examples/histmax.in
-- Time it:  urchin bench examples/histmax.fut
-- ==
-- entry: main
-- input { [1.0, 5.0, 3.0, 4.0, 2.0] }
-- output { 50.0 }

-- Bins of 5 values over k = 3: value i goes to bin (i · 7919) mod 3, so
-- bins 0, 2, 1, 0, 2; their maxima are 4, 3 and 5.
-- ==
-- entry: grad
-- input { [1.0, 5.0, 3.0, 4.0, 2.0] }
-- output { [0.0, 10.0, 6.0, 8.0, 0.0] }

-- The same data for both, to compare their times (`urchin bench`): 10^6
-- values in 1,000 bins.
-- ==
-- entry: main grad
-- compiled random input { [1000000]f64 }

-- | Bins spread over `k`: value i goes to bin (i · 7919) mod k.
def bins (k: i64) (n: i64) = map (\i -> (i * 7919) % k) (iota n)

def nbins (n: i64) : i64 = if n <= 5 then 3 else 1000

-- | The sum of the squares of the bins' maxima.
def loss [n] (vs: [n]f64) =
  let k = nbins n
  let m = reduce_by_index (replicate k f64.lowest) f64.max f64.lowest (bins k n) vs
  in f64.sum (m * m)

entry main [n] (vs: [n]f64) = loss vs

entry grad [n] (vs: [n]f64) = vjp loss vs 1
