-- An array may not be read after an in-place update consumed it, nor
-- through an alias made before.
-- ==
-- error: Using "b", but "a", which it aliases, was consumed

entry main (n: i64) =
  let a = iota n
  let b = a
  let a[0] = 1
  in b[0]
