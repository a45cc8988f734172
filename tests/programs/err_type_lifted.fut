-- A type error: a function type in a `type` abbreviation that is not
-- declared lifted (`type^`).
-- ==
-- error: \b[Ff]unction type

type f = i32 -> i32

entry main (x: i32) = x
