-- Recursion is not allowed (as in Futhark) and is reported as such.
-- ==
-- error: \b[Rr]ecursi

def fact (n: i32) : i32 = if n <= 1 then 1 else n * fact (n - 1)

entry main (n: i32) = fact n
