-- A call for a unique parameter consumes the argument, here through an
-- alias made by `transpose`.
-- ==
-- error: Using "c", but "a", which it aliases, was consumed

def f (a: *[][]i64) : i64 = a[0, 0]

entry main (n: i64) =
  let a = replicate n (iota n)
  let c = transpose a
  in f a + c[0, 0]
