-- `f <| x` evaluates `f` before `x`: the function's type cannot have a
-- size that `x` computes (here a loop parameter whose size changes; an
-- empty initial value `[]` is not the size `xs ++ xs` keeps).
-- ==
-- error: Causality check: size "k[0-9]*" needed for the type of the function that `<\|` applies

def main : []i32 =
  (.0) <| loop (xs: []i32, j) = ([], 0) for i < 10 do (xs ++ xs, j + 1)
