-- An operator section's type has its operand's sizes: an operand that
-- computes a size (here `filter`) must be bound with `let` first.
-- ==
-- error: Causality check: size "k" needed for the type of the operator section

def main (xs: []i32) (mat: [][]i32) = map (filter (> 0) xs ++) mat
