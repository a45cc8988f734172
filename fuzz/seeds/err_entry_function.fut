-- A type error: an entry point is called with data from outside, so it
-- cannot take a function.
-- ==
-- error: entry point .* function

entry main (f: i32 -> i32) = f 1
