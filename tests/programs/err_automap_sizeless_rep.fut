-- `(+ 1) y` as a `[][]i32` could only replicate `y`, into an array whose
-- length nothing determines (it was `rep([2, 3, 4])`, a value without a
-- length): a type error at the argument.
-- ==
-- error: \blength nothing determines

entry main (y: []i32) : [][]i32 = (+ 1) y
