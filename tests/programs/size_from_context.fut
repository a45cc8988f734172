-- A size parameter that only the declared result names takes its value
-- from where the result is used, as in Futhark: an ascription, or the
-- declared result of the definition that uses it, through `map`.
-- ==
-- entry: counted
-- input { 3i64 } output { [0i64, 1i64, 2i64] }
-- input { 0i64 } output { empty([0]i64) }

def count [n] : [n]i64 = 0..1..<n

entry counted (x: i64) = copy count : [x]i64

-- ==
-- entry: padded
-- input { [[1, 2], [3, 4]] 3i64 } output { [[1, 2, 0], [3, 4, 0]] }

def pad [k] [m] (xs: [k]i32) : [m]i32 = tabulate m (\i -> if i < k then xs[i] else 0)

entry padded [r] (xss: [r][]i32) (m: i64) : [r][m]i32 = map pad xss

-- ==
-- entry: summed
-- input { 2i64 3i64 } output { [0i64, 1i64, 2i64, 3i64, 4i64] }

entry summed (a: i64) (b: i64) = copy count : [a + b]i64
