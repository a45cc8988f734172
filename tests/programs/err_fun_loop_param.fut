-- Functions may not be loop parameters.
-- ==
-- error: \b[Ff]unction

entry main (x: i32) =
  let g = loop f = (\(y: i32) -> y + 1) for _i < 3 do (\(y: i32) -> f y * 2)
  in g x
