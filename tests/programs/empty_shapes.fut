-- An empty array takes the inner sizes its type gives in an annotation
-- or a declared result (an empty literal `[]` cannot know them itself).
-- ==
-- entry: annotated
-- input { 3i64 } output { empty([0][3]i32) }

entry annotated (n: i64) = [] : [0][n]i32

-- ==
-- entry: declared_result
-- input { 2i64 } output { 2i64 empty([0][2]f64) }

def empty_rows (d: i64) : [0][d]f64 = []

entry declared_result (d: i64) = (d, empty_rows d)

-- ==
-- entry: through_polymorphism
-- input { 4i64 } output { empty([0][4]i32) }

def nothing 'a : [0]a = []

entry through_polymorphism (k: i64) : [][k]i32 = copy nothing

-- An argument's sizes past an empty dimension are compared as any
-- others: it comes with its shape, as it does to Futhark's entry points.
-- ==
-- entry: parameter
-- input { empty([0][4]i32) } output { 0i64 }
-- input { empty([0][0]i32) } error: invalid size for parameter `xs`

def rows [n] (xs: [n][4]i32) = n

entry parameter (xs: [][]i32) = rows xs

-- ==
-- entry: in_tuples
-- input { 1 } output { empty([0][2]bool) 1 }

entry in_tuples (x: i32) = ([], x) : ([0][2]bool, i32)

-- A non-empty array of other sizes is still an error.
-- ==
-- entry: mismatch
-- input { [[1, 2]] } error: 3

entry mismatch (xs: [][]i32) = xs : [][3]i32
