-- A type error: a `let` pattern that does not match every value.
-- ==
-- error: \b[Rr]efutable

type t = #foo i32 | #bar

entry main (x: i32) =
  let v : t = #foo x
  let (#foo y) = v
  in y
