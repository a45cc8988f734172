-- A run-time error lists the calls it happened inside, innermost first,
-- each with its call site: inlined definitions, a local function, and a
-- recursive definition, whose recursion through one call site is one line
-- with its count.
-- ==
-- entry: inlined
-- input { [1, 2] 5i64 }
-- error: Index \[5\] out of bounds.*\n\s*`get` called at \S*err_call_stack.fut:23:\d+\n\s*`at` called at \S*err_call_stack.fut:23:\d+\n\s*`via` called at \S*err_call_stack.fut:28:
-- input { [1, 2] 1i64 }
-- output { 2 }

-- ==
-- entry: recursive
-- input { [1, 2] 5i64 }
-- error: `via` called at \S*err_call_stack.fut:26:\d+\n\s*`down` called at \S*err_call_stack.fut:26:\d+ \(3 times\)\n\s*`down` called at \S*err_call_stack.fut:30:
-- input { [1, 2] 0i64 }
-- output { 1 }

def get (xs: []i32) (i: i64) = xs[i]

-- Every call below is on a line of its own, for the regexes above.
def via (xs: []i32) (i: i64) =
  let at k = get xs k in at i

def down (xs: []i32) (i: i64) (n: i64) : i32 =
  if n == 0 then via xs i else down xs i (n - 1)

entry inlined (xs: []i32) (i: i64) = via xs i

entry recursive (xs: []i32) (i: i64) = down xs i 3
