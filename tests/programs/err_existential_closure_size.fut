-- An existential size of a declared result is one size: the function in
-- the pair must make arrays as long as the pair's array, even where the
-- function comes first (`n` is not `n + 1`).
-- ==
-- error: \bSizes "n \+ 1" and "n" do not match

type^ grower = ?[k].(i32 -> [k]i32, [k]i32)

def make (n: i64) : grower =
  let m = n + 1
  in (\x -> replicate n x, replicate m 0)
