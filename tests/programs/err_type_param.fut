-- A type error: an argument of the wrong primitive type for an annotated
-- parameter (f64.sqrt expects f64, x is i32).
-- ==
-- error: \b[Tt]ype|\b[Uu]nif|\b[Mm]ismatch

entry main (x: i32) = f64.sqrt x
