-- A type error: an anonymous size in a `type` abbreviation that is not
-- declared size-lifted (`type~`).
-- ==
-- error: \b[Aa]nonymous size

type v = []i32

entry main (x: i32) = x
