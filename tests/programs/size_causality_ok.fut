-- What the causality restriction allows: the size is computed before
-- the value that needs it (a `let` first, `|>` evaluating its left side
-- first, a lambda's arguments, a branch's own size in that branch, a
-- section's operand bound first).
-- ==
-- input { [1, -2, 3] }
-- output { 2i64 3i64 [1, 3] [1, 3, 1, 3] }

def main (xs: []i32) =
  let ys = filter (> 0) xs
  let n = filter (> 0) xs |> length
  let m = (\(p: []i32) (q: []i32) -> length p + length q) (filter (> 0) xs) (filter (< 0) xs)
  let same = if n > 0 then filter (> 0) xs else filter (> 0) xs
  let doubled = (ys ++) ys
  in (n, m, same, doubled)
