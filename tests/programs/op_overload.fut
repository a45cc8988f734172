-- Arithmetic operators and integer literals are overloaded over the
-- numeric types: the same expression shape at i8, u16, f32 and u64, each
-- computed (and wrapped) at its own type.
-- ==
-- input { 100i8 40000u16 0.25f32 9223372036854775808u64 }
-- output { -55i8 14465u16 1.5f32 1u64 }

entry main (a: i8) (b: u16) (c: f32) (d: u64) =
  (a * 2 + 1, b * 2 + 1, c * 2 + 1, d * 2 + 1)
