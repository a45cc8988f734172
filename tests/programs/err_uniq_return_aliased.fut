-- A unique result may not alias a parameter that is not unique.
-- ==
-- error: Unique-typed return value of "f" is aliased to "a", which is not consumable

def f (a: []i32) : *[]i32 = a

entry main (xs: []i32) = f xs
