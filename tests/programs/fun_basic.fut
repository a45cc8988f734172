-- Top-level functions: return types, curried parameters, calls to earlier
-- functions; a top-level `let` means the same as `def`.
-- ==
-- input { 3 }
-- output { 9 9 27 37 }
-- input { -2 }
-- output { 4 -6 -8 -3 }

def square (x: i32) : i32 = x * x

def add3 (a: i32) (b: i32) (c: i32) = a + b + c

let cube (x: i32) = x * square x

def uses_earlier (x: i32) : i32 = add3 (square x) (cube x) 1

entry main (x: i32) = (square x, add3 x x x, cube x, uses_earlier x)
