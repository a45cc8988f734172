-- Recursive functions (as in Futhark 0.28): each becomes a function of
-- the core IR, called rather than inlined.

-- ==
-- entry: fact
-- input { 0i64 } output { 1i64 }
-- input { 10i64 } output { 3628800i64 }

def factorial (n: i64) : i64 = if n == 0 then 1 else n * factorial (n - 1)

entry fact (n: i64) = factorial n

-- Two recursive calls, return type inferred.
-- ==
-- entry: fib
-- input { 0i32 } output { 0i32 }
-- input { 15i32 } output { 610i32 }

def fibonacci (n: i32) = if n < 2 then n else fibonacci (n - 1) + fibonacci (n - 2)

entry fib (n: i32) = fibonacci n

-- Polymorphic recursion over arrays (monomorphic recursive uses),
-- instantiated at two types.
-- ==
-- entry: lengths
-- input { [1, 2, 3] [true, false] } output { 3i64 2i64 }
-- input { empty([0]i32) [true] } output { 0i64 1i64 }

def len 't (xs: []t) : i64 = if length xs == 0 then 0 else 1 + len (drop 1 xs)

entry lengths (xs: []i32) (bs: []bool) = (len xs, len bs)

-- Size-polymorphic recursion: the arrays shrink at every call.
-- ==
-- entry: sort
-- input { [5, 3, 9, 1, 3, 7] } output { [1, 3, 3, 5, 7, 9] }
-- input { empty([0]i32) } output { empty([0]i32) }

def qsort [n] (xs: [n]i32) : [n]i32 =
  if n <= 1 then xs
  else let p = xs[0]
       let lo = filter (< p) xs
       let eq = filter (== p) xs
       let hi = filter (> p) xs
       in sized n (qsort lo ++ eq ++ qsort hi)

entry sort (xs: []i32) = qsort xs

-- A recursive higher-order function used from two call sites with
-- different functions, one of which reads a parameter of the caller.
-- ==
-- entry: twice
-- input { 3i64 1i64 5i64 } output { 4i64 40i64 }

def repeat (n: i64) (f: i64 -> i64) (x: i64) : i64 =
  if n == 0 then x else repeat (n - 1) f (f x)

entry twice (n: i64) (x: i64) (k: i64) = (repeat n (+ 1) x, repeat n (* 2) k)

-- A recursive call inside a `map` (and calls from inside a `map`, whose
-- arguments differ from element to element).
-- ==
-- entry: tree
-- input { [0i64, 1i64, 2i64, 3i64] } output { [1i64, 2i64, 4i64, 8i64] }

def count (n: i64) : i64 =
  if n == 0 then 1 else 1 + i64.sum (map (\i -> count i) (iota n))

entry tree (ns: []i64) = map count ns

-- Tuples in and out, a loop inside the recursion, and a partial
-- application used twice.
-- ==
-- entry: pairs
-- input { 4i64 } output { 4i64 14i64 20i64 }

def walk (n: i64) (acc: (i64, i64)) : (i64, i64) =
  if n == 0 then acc
  else let s = loop s = 0 for i < n do s + i
       in walk (n - 1) (acc.0 + 1, acc.1 + s + 1)

entry pairs (n: i64) =
  let f = walk n
  let (a, b) = f (0, 0)
  let (_, d) = f (0, 6)
  in (a, b, d)

-- Differentiating code that calls a recursive function on values that
-- do not depend on the input is fine: the call is kept as it is.
-- ==
-- entry: grad_scaled
-- input { 2.0f64 4i64 } output { 24.0f64 }

entry grad_scaled (x: f64) (n: i64) =
  vjp (\y -> y * y * f64.i64 (factorial n / 4)) x 1.0
