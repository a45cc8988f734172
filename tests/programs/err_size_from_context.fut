-- A size parameter that only the declared result names must be known
-- where the result is used.
-- ==
-- error: Ambiguous size "n"

def count [n] : [n]i64 = 0..1..<n

def main (x: i64) = length count + x
