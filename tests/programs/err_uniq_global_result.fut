-- A function may not return a top-level constant (or an alias of it).
-- ==
-- error: Function result aliases the free variable "table"

def table : []i32 = [1, 2, 3]

entry main (b: bool) = if b then table else [0]
