-- Function composition `>->` (left to right) and `<-<` (right to left);
-- both bind tighter than `|>`.
-- ==
-- entry: fwd
-- input { 5 }
-- output { 12 }

-- ==
-- entry: bwd
-- input { 5 }
-- output { 11 }

-- ==
-- entry: chain
-- input { [1, 2] }
-- output { [5, 7] }

-- ==
-- entry: with_pipe
-- input { 5 }
-- output { 22 12 }

def inc (x: i32) = x + 1

def dbl (x: i32) = x * 2

entry fwd (x: i32) = (inc >-> dbl) x

entry bwd (x: i32) = (inc <-< dbl) x

entry chain (xs: []i32) = map (inc >-> dbl >-> inc) xs

entry with_pipe (x: i32) = (x |> (dbl <-< inc <-< dbl), x |> inc >-> dbl)
