-- Conversions through the numeric modules: `t.i64`, `t.i32`, `t.f32`, ...
-- Int -> float; float -> int truncates towards zero; bool -> number;
-- narrowing integer conversions wrap; widening a signed source to a signed
-- type sign-extends, widening an unsigned source zero-extends; f64 -> f32
-- rounds.
-- ==
-- entry: int_to_float
-- input { 3i64 -7 }
-- output { 3.0f32 -7.0 3.0 }

-- ==
-- entry: float_to_int
-- input { 2.7f32 -3.9 }
-- output { 2i64 -3i32 -3i64 2i32 }
-- input { -2.5f32 7.99 }
-- output { -2i64 7i32 7i64 -2i32 }

-- ==
-- entry: bools
-- input { true }
-- output { 1i32 1.0 1u8 1i64 }
-- input { false }
-- output { 0i32 0.0 0u8 0i64 }

-- ==
-- entry: narrowing
-- input { 300 }
-- output { 44u8 44i8 300i16 }
-- input { -1 }
-- output { 255u8 -1i8 -1i16 }
-- input { 200 }
-- output { 200u8 -56i8 200i16 }
-- input { 70000 }
-- output { 112u8 112i8 4464i16 }

-- ==
-- entry: widening
-- input { -1i8 }
-- output { -1i32 -1i64 -1i16 -1.0 }
-- input { 100i8 }
-- output { 100i32 100i64 100i16 100.0 }

-- ==
-- entry: unsigned_src
-- input { 200u8 }
-- output { 200i32 -56i8 200.0 200i64 }

-- ==
-- entry: from_i64
-- input { 4294967297i64 }
-- output { 1i32 1u32 }
-- input { -1i64 }
-- output { -1i32 4294967295u32 }

-- ==
-- entry: f64_to_f32
-- input { 16777217.0 }
-- output { 16777216.0f32 -1.0 }
-- input { 0.5 }
-- output { 0.5f32 0.0 }

entry int_to_float (n: i64) (m: i32) = (f32.i64 n, f64.i32 m, f64.i64 n)

entry float_to_int (x: f32) (y: f64) = (i64.f32 x, i32.f64 y, i64.f64 y, i32.f32 x)

entry bools (b: bool) = (i32.bool b, f64.bool b, u8.bool b, i64.bool b)

entry narrowing (x: i32) = (u8.i32 x, i8.i32 x, i16.i32 x)

entry widening (x: i8) = (i32.i8 x, i64.i8 x, i16.i8 x, f64.i8 x)

entry unsigned_src (x: u8) = (i32.u8 x, i8.u8 x, f64.u8 x, i64.u8 x)

entry from_i64 (x: i64) = (i32.i64 x, u32.i64 x)

entry f64_to_f32 (x: f64) = (f32.f64 x, f64.f32 (f32.f64 x) - x)
