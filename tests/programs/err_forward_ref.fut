-- A function may only call functions defined before it: a call to a later
-- definition (which would allow mutual recursion) is an error.
-- ==
-- error: \b[Uu]nknown|\b[Rr]ecursi|\b[Ss]cope|\b[Uu]ndefined|\bnot defined

def f (x: i32) : i32 = g x + 1

def g (x: i32) : i32 = x * 2

entry main (x: i32) = f x
