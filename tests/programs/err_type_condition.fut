-- A type error: the condition of an `if` is not a bool.
-- ==
-- error: \b[Tt]ype|\b[Uu]nif|\b[Mm]ismatch

entry main (x: i32) = if x then 1 else 2
