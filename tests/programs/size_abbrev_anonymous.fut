-- `square []` as a result: the one anonymous size is the body's.
-- ==
-- input { 2i64 }
-- output { [[0i64, 1i64], [1i64, 2i64]] [[0, 0], [0, 0]] }

type square [n] 't = [n][n]t

def main n : (square [] i64, square [] i32) =
  (tabulate_2d n n (\i j -> i + j), replicate 2 (replicate 2 0))
