-- A type error: a size parameter takes its value from the sizes of the
-- arguments (Futhark's causality restriction), so a local function's size
-- parameter fixed only by its return type has none.
-- ==
-- error: size parameter .* not the size of any parameter

entry main (x: i64) =
  let f [n] (y: i64) : [n]i64 = replicate n y
  let r : [3]i64 = f x
  in r
