-- Two unique components of a result may not alias each other.
-- ==
-- error: A unique-typed component of the return value of "main" is aliased to some other component

entry main (n: i64) : (*[]i64, *[]i64) =
  let a = iota n
  in (a, a)
