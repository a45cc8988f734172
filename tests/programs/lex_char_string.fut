-- Character literals are the integer of their code point (any integer
-- type, `i32` by default); string literals are `[]u8` arrays of UTF-8
-- bytes. Escapes as in Futhark (Haskell's): `\n`, `\t`, `\\`, `\'`, `\"`,
-- `\xHH`, `\uHHHH`, decimal `\65`.
-- ==
-- entry: chars
-- input { }
-- output { 97 10u8 39 92i64 65 8364 }

-- ==
-- entry: strings
-- input { }
-- output { [104u8, 105u8] 3i64 [34u8, 9u8, 195u8, 169u8] empty([0]u8) }

entry chars = ('a', '\n' : u8, '\'', '\\' : i64, '\65', '€')

entry strings = ("hi", length "a\nb", "\"\té", "")
