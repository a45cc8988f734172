-- An unknown function name, including an unknown member of a numeric
-- module, is a compile-time error.
-- ==
-- error: \b[Uu]nknown

entry main (x: f64) = f64.sqrtt x
