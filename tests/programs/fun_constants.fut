-- Top-level definitions without parameters are constants, usable by later
-- definitions.
-- ==
-- input { 2i64 }
-- output { [0i64, 1i64, 2i64, 3i64, 4i64] 90 1 2.5 }
-- input { 0i64 }
-- output { [0i64, 1i64, 2i64, 3i64, 4i64] 30 1 2.5 }

def n: i64 = 5

def factor = 3

def table = [10, 20, 30]

def pair = (1, 2.5)

entry main (i: i64) = (iota n, factor * table[i], pair.0, pair.1)
