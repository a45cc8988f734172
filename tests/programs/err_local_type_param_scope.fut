-- A local function's type parameter may not become the type of a value
-- from outside the function (here `x.0`, whose type is not yet known):
-- the function must work for every type.
-- ==
-- error: "b" of `g`.*scope-violation

def f x =
  let g 'b (y: b) = if true then y else x.0
  let (_, _: i32) = x
  in g
