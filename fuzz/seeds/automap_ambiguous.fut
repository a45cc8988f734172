-- AUTOMAP ambiguity: `length xss` may be mapped (one length per row) or
-- the argument of the product replicated; both need one insertion, so the
-- program is rejected as ambiguous.
-- ==
-- error: \b[Aa]mbiguous

entry main (xss: [][]f32) = i64.product (length xss)
