-- `and` and `or` over boolean arrays (empty: true and false).
-- ==
-- input { [true, true] }
-- output { true true }
-- input { [true, false] }
-- output { false true }
-- input { [false, false] }
-- output { false false }
-- input { empty([0]bool) }
-- output { true false }

entry main (bs: []bool) = (and bs, or bs)
