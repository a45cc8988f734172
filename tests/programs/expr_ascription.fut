-- Type ascription `e : t` fixes the type of literals and checks the type
-- of other expressions.
-- ==
-- entry: lits
-- input { }
-- output { 1i64 2u8 1.5f32 [1i16, 2i16] }

-- ==
-- entry: infer
-- input { 41 }
-- output { 42 }

entry lits = ((1 : i64), (2 : u8), (1.5 : f32), ([1, 2] : []i16))

entry infer (x: i32) =
  let y = (x : i32) + 1
  in (y : i32)
