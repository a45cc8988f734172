-- A type error: a sum type that would contain itself (the payload of
-- `#a` is the matched value's own type).
-- ==
-- error: \b[Tt]ype|\b[Ii]nfinite

def f x =
  match x
  case #a y -> y
  case #b -> x

entry main (b: bool) = b
