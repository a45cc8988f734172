-- A parameter that a type uses as a size must be an `i64`; the error
-- names it.
-- ==
-- error: "n" is used as a size

def main (n: f64, a: [n]i32) : []i32 =
  map (+ 2) a
