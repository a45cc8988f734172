-- `|>` (left-associative, lowest precedence) and `<|` (right-associative,
-- just above `|>`).
-- ==
-- entry: fwd bwd
-- input { 3 }
-- output { 93 }
-- input { -5 }
-- output { 85 }

-- ==
-- entry: mixed
-- input { 3 10 }
-- output { 7 }

-- ==
-- entry: lowest
-- input { 3 }
-- output { 6 }

-- ==
-- entry: arrays
-- input { [1, 2, 3] }
-- output { 10 }
-- input { empty([0]i32) }
-- output { 0 }

def sub (a: i32) (b: i32) = a - b

-- sub 100 (sub 10 x)
entry fwd (x: i32) = x |> sub 10 |> sub 100

entry bwd (x: i32) = sub 100 <| sub 10 <| x

-- `x |> (sub <| y)`, i.e. sub y x.
entry mixed (x: i32) (y: i32) = x |> sub <| y

-- `(x + 1) |> sub 10`
entry lowest (x: i32) = x + 1 |> sub 10

entry arrays (xs: []i32) = xs |> map (* 2) |> filter (> 2) |> reduce (+) 0
