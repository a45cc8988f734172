-- A function type that names a parameter, `(k: i64) -> [k]i32 -> i64`,
-- binds `k` in its arrow: a lambda given that type has the size `k` only
-- by naming its own parameter and annotating with it (`\n (xs: [n]i32)
-- -> ...` is accepted); with `\_ xs -> ...` the size of `xs` is its own
-- (Futhark's shapes_paramsize1).
-- ==
-- error: Sizes "k" and "\?" do not match

type^ f = (k: i64) -> [k]i32 -> i64

def f : f = \_ xs -> length xs

def g : f = \n (xs: [n]i32) -> length xs

def main [K] (input: [K]i32) = f K input + g K input
