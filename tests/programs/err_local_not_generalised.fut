-- A local function without type parameters has one type, as in
-- Futhark: `apply` cannot take an `i32 -> i32 -> i32` and an
-- `i32 -> i32`.
-- ==
-- error: Cannot apply "apply"

def main (x: i32) =
  let apply f v = f v
  in apply (apply (i32.+) x) x
