-- Unsigned integer arithmetic wraps around modulo 2^width at every width.
-- ==
-- entry: wrap_u8
-- input { 255u8 1u8 }
-- output { 0u8 254u8 255u8 }
-- input { 0u8 1u8 }
-- output { 1u8 255u8 0u8 }
-- input { 200u8 100u8 }
-- output { 44u8 100u8 32u8 }
-- input { 16u8 16u8 }
-- output { 32u8 0u8 0u8 }

-- ==
-- entry: wrap_u16
-- input { 65535u16 1u16 }
-- output { 0u16 65534u16 65535u16 }
-- input { 0u16 1u16 }
-- output { 1u16 65535u16 0u16 }
-- input { 300u16 300u16 }
-- output { 600u16 0u16 24464u16 }

-- ==
-- entry: wrap_u32
-- input { 4294967295u32 1u32 }
-- output { 0u32 4294967294u32 4294967295u32 }
-- input { 0u32 1u32 }
-- output { 1u32 4294967295u32 0u32 }
-- input { 65536u32 65536u32 }
-- output { 131072u32 0u32 0u32 }

-- ==
-- entry: wrap_u64
-- input { 18446744073709551615u64 1u64 }
-- output { 0u64 18446744073709551614u64 18446744073709551615u64 }
-- input { 0u64 1u64 }
-- output { 1u64 18446744073709551615u64 0u64 }
-- input { 4294967296u64 4294967296u64 }
-- output { 8589934592u64 0u64 0u64 }

entry wrap_u8 (a: u8) (b: u8) = (a + b, a - b, a * b)

entry wrap_u16 (a: u16) (b: u16) = (a + b, a - b, a * b)

entry wrap_u32 (a: u32) (b: u32) = (a + b, a - b, a * b)

entry wrap_u64 (a: u64) (b: u64) = (a + b, a - b, a * b)
