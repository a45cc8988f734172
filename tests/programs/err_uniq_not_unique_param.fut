-- Only a parameter declared unique (`*[]t`) may be updated in place.
-- ==
-- error: Consuming variable "xs", which is not consumable

entry main (xs: []i32) =
  let xs[0] = 1
  in xs
