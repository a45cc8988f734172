-- A type error: applying a function to more arguments than it takes.
-- ==
-- error: \b[Tt]ype|\b[Uu]nif|\b[Mm]ismatch|\b[Aa]rgument

def inc (x: i32) : i32 = x + 1

entry main (x: i32) = inc x 2
