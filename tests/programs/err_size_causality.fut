-- Futhark's causality restriction: an empty array's rows must have their
-- size when the array is made, so it may not be made equal to a size
-- computed after it (here by `filter`, which `++` makes the rows of `a`
-- equal to).
-- ==
-- error: Causality check: size "k" needed for the type of the empty array

def main (xs: []i32) =
  let a = [] : [][]i32
  let b = [filter (> 0) xs]
  in a ++ b
