-- A type error: an integer literal that does not fit its type is rejected,
-- not wrapped (here the u8 that the annotation gives 300).
-- ==
-- error: literal 300 does not fit in u8

entry main (x: u8) : u8 = x + 300
