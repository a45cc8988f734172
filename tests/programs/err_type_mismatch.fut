-- A type error: adding a bool to an integer (no AUTOMAP insertion can fix
-- a mismatch of element types).
-- ==
-- error: \b[Tt]ype|\b[Uu]nif|\b[Mm]ismatch

entry main (x: i32) = x + true
