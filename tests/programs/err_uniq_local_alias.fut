-- A local function that returns its argument returns an alias of it: its
-- result cannot be written into that same array.
-- ==
-- error: aliases

entry main (xs: []i32) =
  let x = copy xs
  let same y = y
  let x[:] = same x
  in x
