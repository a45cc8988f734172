-- The built-in operators of a numeric module, `i32.+`, `f64.<`, used as
-- values `(u8.*)`, in sections `(i64.- 1)` and infix `x i32.+ y`: the
-- overloaded operator at that one type.
-- ==
-- input { [1, 2] [3, 4] }
-- output { [4, 6] [3u8, 8u8] [0i64, 1i64] 7 [true, false] }

entry main (xs: []i32) (ys: []i32) =
  ( map2 (i32.+) xs ys
  , map2 (u8.*) (map u8.i32 xs) (map u8.i32 ys)
  , map (i64.- 1) [1, 2]
  , 3 i32.+ 4
  , map2 (f64.<) [1.0, 5.0] [2.0, 3.0]
  )
