-- Functions may not be stored in arrays.
-- ==
-- error: \b[Ff]unction

entry main (x: i32) =
  let fs = [(+ 1), (* 2)]
  in fs[0] x
