-- A reading of AUTOMAP's that replicates a value into an array whose
-- length nothing determines is no reading. `(keep xs 1).1` is cheapest
-- read as `(keep xs (rep 1)).1` (one `rep`), whose value would be an
-- array of `1`s of no length; AUTOMAP maps `keep` over `xs` instead
-- (`map (.1) (map2 keep xs (rep 1))`, two insertions). A `rep` whose
-- length a parameter's size gives is kept (`add xs 1`).
-- ==
-- entry: second
-- input { [5, 6, 7] } output { [1, 1, 1] }
-- input { empty([0]i32) } output { empty([0]i32) }
-- ==
-- entry: add_one
-- input { [5, 6, 7] } output { [6, 7, 8] }

def keep 'a (x: a) (y: a) : (a, a) = (x, y)

def add [n] (a: [n]i32) (b: [n]i32) : [n]i32 = map2 (+) a b

entry second (xs: []i32) = (keep xs 1).1

entry add_one (xs: []i32) = add xs 1
