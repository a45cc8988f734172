-- Converting a signed integer to an unsigned type zero-extends its bits,
-- as Futhark's unsigned modules do (`u16.i8 (-128)` is 128); to a signed
-- type it sign-extends.
-- ==
-- entry: to_u16
-- input { [0i8, 64i8, 127i8, -128i8, -1i8] }
-- output { [0u16, 64u16, 127u16, 128u16, 255u16] }

-- ==
-- entry: to_u64
-- input { [-1i32, 5i32] }
-- output { [4294967295u64, 5u64] }

-- ==
-- entry: to_i64
-- input { [-1i8, 100i8] }
-- output { [-1i64, 100i64] }

entry to_u16 (xs: []i8) = map (\x -> u16.i8 x) xs

entry to_u64 (xs: []i32) = map (\x -> u64.i32 x) xs

entry to_i64 (xs: []i8) = map (\x -> i64.i8 x) xs
