-- Functions may not be returned from an `if`.
-- ==
-- error: \b[Ff]unction

entry main (b: bool) (x: i32) =
  let f = if b then (+ 1) else (* 2)
  in f x
