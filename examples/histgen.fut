-- | A histogram with an operator that has no special rule,
-- a ⊙ b = a + b + a·b (associative and commutative), and its gradient by
-- `vjp`: the benchmark of the general `hist` rule of reverse mode (values
-- sorted by bin, then segmented scans).
--
-- Run it:   urchin run examples/histgen.fut -e grad < examples/histgen.in
-- Time it:  urchin bench examples/histgen.fut
-- ==
-- entry: main
-- input { [1.0, 2.0, 3.0, 4.0] }
-- output { 0.1004 }

-- ==
-- entry: grad
-- input { [1.0, 2.0, 3.0, 4.0] }
-- output { [0.0104, 0.01, 0.01, 0.0101] }

-- The same data for both, to compare their times (`urchin bench`): 10^5
-- values in 100 bins.
-- ==
-- entry: main grad
-- compiled random input { [100000]f64 }

-- | Bins spread over `k`: value i goes to bin (i · 7919) mod k.
def bins (k: i64) (n: i64) = map (\i -> (i * 7919) % k) (iota n)

def hgen [n] (is: [n]i64) (k: i64) (vs: [n]f64) =
  f64.sum (hist (\a b -> a + b + a * b) 0 k is (map (\v -> v / 100) vs))

def nbins (n: i64) : i64 = if n <= 4 then 3 else 100

entry main [n] (vs: [n]f64) = hgen (bins (nbins n) n) (nbins n) vs

entry grad [n] (vs: [n]f64) = vjp (hgen (bins (nbins n) n) (nbins n)) vs 1
