-- The parts of a result that is not unique may alias each other.
-- ==
-- error: Using "b", but the result of applying "f", which it aliases, was consumed

def f (n: i64) : ([]i64, []i64) =
  let a = iota n
  in (a, a)

entry main (n: i64) =
  let (a, b) = f n
  let a[0] = 0
  in (a, b)
