-- Prefix `!` on an integer is bitwise complement (as in Futhark).
-- ==
-- input { 0 5 0u8 15u8 -1i64 }
-- output { -1 -6 255u8 240u8 0i64 }

entry main (a: i32) (b: i32) (c: u8) (d: u8) (e: i64) = (!a, !b, !c, !d, !e)
