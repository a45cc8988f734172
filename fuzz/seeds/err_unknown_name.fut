-- An unknown variable name is a compile-time error.
-- ==
-- error: \b[Uu]nknown

entry main (x: i32) = x + y
