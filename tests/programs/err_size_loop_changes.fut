-- A loop parameter whose size changes (`zs` is a `filter`'s result) cannot
-- be used where the body needs it to keep the size of another.
-- ==
-- error: Loop body does not have expected type

def main [n] (xs: [n]i32) (ys: [n]i32) =
  loop (xs, ys) for i < 10 do
    let zs = filter (> 0) (map2 (+) xs ys)
    in (xs, zs)
