-- A function in a declared result with an existential size makes arrays
-- of the size the result's array gives it.
-- ==
-- input { 3i64 }
-- output { [7, 7, 7] [0, 0, 0] }
-- input { 0i64 }
-- output { empty([0]i32) empty([0]i32) }

type^ grower = ?[k].(i32 -> [k]i32, [k]i32)

def make (n: i64) : grower =
  let m = n
  in (\x -> replicate m x, replicate n 0)

entry main (n: i64) =
  let (f, zs) = make n
  in (f 7, zs)
