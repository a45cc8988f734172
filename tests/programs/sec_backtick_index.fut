-- Sections of backtick operators, ``(`f` y)`` and ``(x `f`)``, the
-- function itself ``(`f`)``, and index sections `(.[i])`, `(.[i:j])`,
-- `(.[i].f)`.
-- ==
-- entry: backtick
-- input { 10 }
-- output { 7 -7 3 }

-- ==
-- entry: index
-- input { [[1, 2, 3], [4, 5, 6]] 1 }
-- output { [2, 5] [[2, 3], [5, 6]] 5 }

-- ==
-- entry: path
-- input { [1, 2, 3] }
-- output { 20 [3, 30] }

def sub (a: i32) (b: i32) = a - b

entry backtick (x: i32) = ((`sub` 3) x, (3 `sub`) x, (`sub`) x 7)

entry index (xss: [][]i32) (i: i64) = (map (.[i]) xss, map (.[i:]) xss, (.[1, i]) xss)

entry path (xs: []i32) =
  let rs = map (\x -> {a = [x, x * 10]}) xs
  in ((.[1].a[1]) rs, (.[2].a) rs)
