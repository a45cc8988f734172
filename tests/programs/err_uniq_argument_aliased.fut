-- An argument consumed by a call may not alias another argument of it.
-- ==
-- error: Argument is consumed, but another argument of "scatter" aliases it

entry main (xs: *[]i64) = scatter xs xs xs
