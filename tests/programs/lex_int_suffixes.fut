-- Every integer suffix i8 i16 i32 i64 u8 u16 u32 u64; the suffix fixes the
-- type (the i8 sum below wraps, so it really is computed at i8).
-- ==
-- entry: signed
-- input { }
-- output { -5i8 300i16 -70000i32 5000000000i64 }

-- ==
-- entry: unsigned
-- input { }
-- output { 255u8 65535u16 4294967295u32 18446744073709551615u64 }

-- ==
-- entry: suffix_types
-- input { }
-- output { -56i8 65535u16 }

entry signed = (-5i8, 300i16, -70000i32, 5000000000i64)

entry unsigned = (255u8, 65535u16, 4294967295u32, 18446744073709551615u64)

entry suffix_types = (100i8 + 100i8, 0xffffu16)
