-- Function types in annotations: `t1 -> t2`, curried `t1 -> t2 -> t3`,
-- named parameters `(x: t1) -> t2`, and a function as a return type.
-- ==
-- input { 5 }
-- output { 6 10 -1 15 }

def apply (f: i32 -> i32) (x: i32) = f x

def apply_named (f: (x: i32) -> i32) (y: i32) : i32 = f y

def apply2 (f: i32 -> i32 -> i32) : i32 = f 1 2

def ret_fun (k: i32) : i32 -> i32 = \x -> x * k

entry main (x: i32) = (apply (+1) x, apply_named (*2) x, apply2 (-), ret_fun 3 x)
