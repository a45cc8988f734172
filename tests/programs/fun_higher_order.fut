-- Higher-order functions: functions as arguments (named, lambdas,
-- sections, builtins), user-defined composition, a function returning a
-- function.
-- ==
-- input { 5 [1, 5, 2] }
-- output { 11 80 11 30 [-1, 0, 1] [2, 5, 2] 15 }

def twice 'a (f: a -> a) (x: a) : a = f (f x)

def compose 'a 'b 'c (g: b -> c) (f: a -> b) (x: a) : c = g (f x)

def sum_by 'a (f: a -> i32) (xs: []a) : i32 = reduce (+) 0 (map f xs)

def on_pairs (op: i32 -> i32 -> i32) (xs: []i32) (ys: []i32) = map2 op xs ys

def adder (k: i32) : i32 -> i32 = \x -> x + k

entry main (x: i32) (xs: []i32) =
  ( twice (+3) x
  , twice (twice (*2)) x
  , compose (+1) (*2) x
  , sum_by (\v -> v * v) xs
  , on_pairs (-) xs (reverse xs)
  , on_pairs i32.max xs (reverse xs)
  , (adder 10) x )
