-- The value written in place may not alias the array written to.
-- ==
-- error: The value written by this in-place update aliases "a"

entry main (a: *[][]i32) = a with [1] = a[0]
