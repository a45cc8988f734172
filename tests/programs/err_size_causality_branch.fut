-- Causality in branches: a size one branch computes is not known in the
-- other, so a hole there cannot have it (the `if` makes the two types one).
-- ==
-- error: Causality check: size "k" needed for the type of the hole

def main (b: bool) (xs: []i32) =
  if b then filter (> 0) xs else ???
