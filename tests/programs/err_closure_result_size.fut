-- A lambda where a function type is declared has that type's sizes:
-- applied to the parameters the type gives, its result must be as long
-- as the type says (`x + 1` is not `x`).
-- ==
-- error: \bSizes "x" and "x \+ 1" do not match

def v (x: i64) : ([x]bool, bool -> [x]bool) =
  let x' = x + 1
  in (replicate x true, \b -> replicate x' b)
