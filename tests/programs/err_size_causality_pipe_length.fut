-- The example of Futhark's prelude documentation of `<|`: `length` is
-- made before `filter` computes the size its type needs (`|>` works).
-- ==
-- error: Causality check: size "k" needed for the type of the function that `<\|` applies

def main = length <| filter (> 0) [-1, 0, 1i32]
