-- A local function without a result type whose body makes a fresh array
-- (a `map`) returns one that aliases no argument, as Futhark infers: it
-- may be written into the array it was computed from.
-- ==
-- input { [1, 2, 3] } output { [2, 4, 6] }

entry main (xs: []i32) =
  let x = copy xs
  let double y = map (* 2) y
  let x[:] = double x
  in x
