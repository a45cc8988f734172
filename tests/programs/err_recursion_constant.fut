-- Only functions can be recursive: a constant defined by itself is an
-- error.
-- ==
-- error: only functions can be recursive

def forever : i64 = forever + 1

entry main (x: i64) = x + forever
