-- A local function's type parameter is not any one type.
-- ==
-- error: "a" of `inc` stands for any type, but the body assumes it is `i32`

def f (x: i32) =
  let inc 'a (y: a) : i32 = y + 1
  in inc x
