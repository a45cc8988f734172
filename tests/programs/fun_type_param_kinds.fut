-- Lifted type parameters `'^a` (may be a function type) and size-lifted
-- `'~a` (may be an array of any size) are accepted and behave like `'a`.
-- ==
-- input { 2 }
-- output { 6 [2, 3] }

def app '^a 'b (f: a -> b) (x: a) : b = f x

def keep '~a (x: a) : a = x

entry main (x: i32) =
  (app (\(g: i32 -> i32) -> g x) (\y -> y * 3), keep [x, x + 1])
