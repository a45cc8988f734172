-- Sizes that are expressions (`[n * 2]`, `[n + 1]`) are checked at run
-- time, in parameters and in return types.
-- ==
-- entry: double
-- input { 2i64 [1, 2, 3, 4] }
-- output { [1, 2, 3, 4] }
-- input { 2i64 [1, 2, 3] }
-- error: \b[Ss]hape|\b[Ss]izes?\b|\b[Dd]imension|\b[Mm]ismatch

-- ==
-- entry: grow
-- input { [1, 2] }
-- output { [1, 2, 0] }

entry double (n: i64) (xs: [n * 2]i32) = xs

def append0 [n] (xs: [n]i32) : [n + 1]i32 = xs ++ [0]

entry grow (xs: []i32) = append0 xs

-- A size parameter is read off an argument whose size was computed by the
-- same operation, whatever the operator: `[2 ** k]` from `xs :> [2 ** i]`,
-- `[n - 1]` from `tail`-like coercions. The sizes are then checked.
-- ==
-- entry: halve_all
-- input { [1, 2, 3, 4, 5, 6, 7, 8] }
-- output { 36 }
-- input { [7] }
-- output { 7 }
-- input { [1, 2, 3] }
-- error: \b[Ss]hape|\b[Ss]izes?\b|\b[Dd]imension|\b[Mm]ismatch

-- ==
-- entry: drop_one
-- input { [1, 2, 3] }
-- output { 2i64 }

def halve [k] (xs: [2 ** k]i32) : [2 ** (k - 1)]i32 =
  tabulate (2 ** (k - 1)) (\i -> xs[2 * i] + xs[2 * i + 1])

def tree_sum [k] (xs: [2 ** k]i32) : i32 =
  head (loop xs for i in reverse (iota k) do halve (xs :> [2 ** (i + 1)]i32))

entry halve_all [n] (xs: [n]i32) =
  let k = i64.i32 (63 - i64.clz n)
  in tree_sum (xs :> [2 ** k]i32)

def len_less [m] (_: [m - 1]i32) : i64 = m - 1

entry drop_one [n] (xs: [n]i32) = len_less (xs[1:] :> [n - 1]i32)

-- A size computed by calling a function (`[inc n]`) is matched against an
-- argument whose size was computed by the same call, as Futhark unifies
-- `inc n` with `inc m`.
-- ==
-- entry: cons_tail
-- input { [1, 2, 3] }
-- output { [1, 2, 3] }
-- input { empty([0]i32) }
-- output { empty([0]i32) }

def inc (x: i64) = x + 1

def tail_of [n] 't (a: [inc n]t) = a[1:] :> [n]t

def cons [n] 't (x: t) (a: [n]t) : [inc n]t = [x] ++ a :> [inc n]t

entry cons_tail (xs: []i32) = tail_of (cons 0 xs)
