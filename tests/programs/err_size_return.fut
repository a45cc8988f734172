-- A sized return type is checked against the body's size when the
-- program is checked.
-- ==
-- error: Function body does not have expected type.*"n \+ 1" and "n" do not match

def same [n] (xs: [n]i32) : [n + 1]i32 = xs

entry wrong (xs: []i32) = same xs
