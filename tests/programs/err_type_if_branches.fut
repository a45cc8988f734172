-- A type error: the branches of an `if` have different types.
-- ==
-- error: \b[Tt]ype|\b[Uu]nif|\b[Mm]ismatch

entry main (c: bool) = if c then 1i32 else 2.5
