-- User-defined operators: defined prefix `def (+^) x y` or infix
-- `def x *^ y`; they bind like the built-in operator their name starts
-- with (`+^` like `+`, `*^` like `*`, `>>=` like `>>`), left-associative.
-- ==
-- input { 2 3 }
-- output { 23 4 32 8 60 }

-- ==
-- entry: sections
-- input { 4 }
-- output { 41 14 [10, 21] 123 }

-- ==
-- entry: polymorphic
-- input { [1, 2] [3] }
-- output { [3, 1, 2] }

-- ==
-- entry: shadowed
-- input { 10 4 }
-- output { 6 14 }

def (+^) (x: i32) (y: i32) = x * 10 + y

def (a: i32) *^ (b: i32) = a * b + 1

def (>>=) (x: i32) (f: i32 -> i32) = f x

def (<+>) 't (xs: []t) (ys: []t) = ys ++ xs

entry main (a: i32) (b: i32) =
  ( a +^ b
  , a +^ b *^ 1 - a * 10
  , b +^ a
  , a *^ b + 1
  , a +^ b >>= (\x -> x + 37)
  )

entry sections (x: i32) = ((+^ 1) x, (1 +^) x, map2 (+^) [1, 2] [0, 1], (+^) ((+^) 1 2) 3)

entry polymorphic (xs: []i32) (ys: []i32) = xs <+> ys

-- A parameter named `(+)` shadows the built-in operator in its body.
def apply_op (+) (x: i32) (y: i32) : i32 = x + y

entry shadowed (x: i32) (y: i32) = (apply_op (-) x y, apply_op (\a b -> a + b) x y)
