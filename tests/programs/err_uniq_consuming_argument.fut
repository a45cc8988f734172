-- A function that consumes its argument may not be passed to another.
-- ==
-- error: Argument of functional type contains consumption.*consuming-argument

def apply 'a 'b (f: a -> b) (x: a) = f x

def consume (xs: *[]i32) = xs[0]

entry main (xs: *[]i32) = apply consume xs
