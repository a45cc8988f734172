-- Comparing two pairs of arrays elementwise and conjoining (issue 37,
-- from mri-q's check): `and (qr == qr_am && qi == qi_am)`. The cheapest
-- reading compares the arrays whole and replicates the `bool` into an
-- array of no length for `and`, which is no reading; of the rest,
-- mapping both comparisons and `&&` is the one that compares elements
-- (docs/AUTOMAP.md, *Equality*). `each` tells the readings apart: one
-- comparing `a` and `b` whole would give `[false, false, false]`.
-- ==
-- entry: same
-- input { [1.0, 2.0] [1.0, 2.0] [3.0, 4.0] [3.0, 4.0] } output { true }
-- input { [1.0, 2.0] [1.0, 2.5] [3.0, 4.0] [3.0, 4.0] } output { false }
-- input { empty([0]f64) empty([0]f64) empty([0]f64) empty([0]f64) } output { true }
-- ==
-- entry: each
-- input { [1.0, 2.0, 3.0] [1.0, 0.0, 3.0] [4.0, 5.0, 6.0] [4.0, 5.0, 0.0] }
-- output { [true, false, false] }

entry same (qr: []f64) (qr_am: []f64) (qi: []f64) (qi_am: []f64) : bool =
  and (qr == qr_am && qi == qi_am)

entry each (a: []f64) (b: []f64) (c: []f64) (d: []f64) : []bool = a == b && c == d
