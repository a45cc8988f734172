-- A type error: an array literal whose length is not the constant size
-- its type (through an abbreviation) gives it.
-- ==
-- error: 2 elements, but its type says 3

type vec = [3]f64

def v : vec = [1.0, 2.0]

entry main (x: f64) = v[0] + x
