-- A recursive function cannot return a function (as in Futhark).
-- ==
-- error: the result of the recursive function `adder` is not first-order

def adder (n: i64) : i64 -> i64 = \x -> if n == 0 then x else adder (n - 1) x + 1

entry main (n: i64) (x: i64) = adder n x
