-- In-place updates that uniqueness types allow: of unique parameters, of
-- fresh arrays and copies, in one branch of an `if` that returns the array
-- in the other, of loop parameters (consuming the initial value), of one
-- component of a tuple or record while reading the other, and through
-- unique parameters and results.
-- ==
-- entry: params
-- input { [1, 2, 3] } output { [10, 2, 3] }

entry params (xs: *[]i32) : *[]i32 = xs with [0] = 10

-- ==
-- entry: copies
-- input { [1, 2, 3] } output { [1, 2, 3] [1, 20, 3] }

entry copies (xs: []i32) =
  let ys = copy xs
  let ys[1] = 20
  in (xs, ys)

-- ==
-- entry: branches
-- input { true [1, 2, 3] } output { [7, 8, 3] }
-- input { false [1, 2, 3] } output { [1, 8, 3] }

entry branches (c: bool) (xs: *[]i32) =
  let ys = if c then xs with [0] = 7 else xs
  in ys with [1] = 8

-- ==
-- entry: loops
-- input { 4i64 } output { [0i64, 2i64, 4i64, 6i64] }

entry loops (n: i64) =
  let a = iota n
  let r = loop a for i < n do a with [i] = a[i] * 2
  in r

-- ==
-- entry: components
-- input { 3i64 } output { [0i64, 1i64, 2i64] [9i64, 1i64, 2i64] }

entry components (n: i64) =
  let p = (iota n, iota n)
  let p.1[0] = 9
  let r = {a = iota n, b = iota n}
  let r.a[0] = 9
  in (p.0, r.a)

def set (xs: *[]i32) (i: i64) (v: i32) : *[]i32 = xs with [i] = v

-- ==
-- entry: calls
-- input { [1, 2, 3] } output { [5, 6, 3] }

entry calls (xs: []i32) = set (set (copy xs) 0 5) 1 6

-- ==
-- entry: scatters
-- input { 4i64 } output { [9i64, 1i64, 9i64, 3i64] }

entry scatters (n: i64) =
  let a = iota n
  in scatter a [0, 2] [9, 9]
