-- Applications of one function are equal sizes only if their arguments
-- are: `[inc m]` is not `[inc k]`.
-- ==
-- error: Function body does not have expected type.*"inc k" and "inc m" do not match

def inc (n: i64) = n + 1

def grow (n: i64) : [inc n]i32 = replicate (inc n) 0

entry wrong (k: i64) (m: i64) : [inc k]i32 = grow m
