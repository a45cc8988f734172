-- A lambda may not consume an array it did not get as a unique parameter.
-- ==
-- error: Consuming variable "a", which is not consumable.*bound outside this function

def consume (a: *[]i64) : i64 = a[0]

entry main (n: i64) =
  let a = iota n
  in map (\i -> consume a + i) (iota 3)
