-- Point-free and unannotated definitions: a definition whose body is a
-- function takes that function's parameters (`def main = map f` is
-- `def main x = map f x`), and `main`, like an `entry`, defaults its
-- overloaded numeric types (to `i32`, `f64`).
-- ==
-- input { [1, 2, 3] }
-- output { [2, 3, 4] }

-- ==
-- entry: curried
-- input { 2 5 }
-- output { 7 }

-- ==
-- entry: composed
-- input { [1.0, 4.0] }
-- output { [4.5, 9.0] }

-- ==
-- entry: annotated
-- input { 6 }
-- output { 36 }

-- ==
-- entry: renamed
-- input { 10 }
-- output { 12 }

def inc (x: i32) = x + 1

def plus (x: i32) (y: i32) = x + y

def f (f: i32) = f + 2

def main = map inc

entry curried (x: i32) = plus x

entry composed = map ((+ 1) >-> (* 3) >-> (/ 2) >-> (+ 1.5))

entry annotated : i32 -> i32 = \x -> x * x

entry renamed = f
