-- | The urchin prelude: the library functions that need not be primitive,
-- written in urchin itself. Primitives (map, reduce, scan, scatter, hist,
-- iota, replicate, zip, transpose, ...) are built into the interpreter.

-- | The indices of an array: `[0, 1, ..., n-1]`.
def indices 'a (xs: []a) : []i64 = iota (length xs)

-- | `[f 0, f 1, ..., f (n-1)]`
def tabulate 'a (n: i64) (f: i64 -> a) : []a = map f (iota n)

-- | `tabulate_2d n m f` is the n×m array with `f i j` at `[i, j]`.
def tabulate_2d 'a (n: i64) (m: i64) (f: i64 -> i64 -> a) : [][]a =
  map (\i -> map (\j -> f i j) (iota m)) (iota n)

def head 'a (xs: []a) : a = xs[0]

def last 'a (xs: []a) : a = xs[length xs - 1]

def tail 'a (xs: []a) : []a = xs[1:]

def init 'a (xs: []a) : []a = xs[:length xs - 1]

def take 'a (n: i64) (xs: []a) : []a = xs[:n]

def drop 'a (n: i64) (xs: []a) : []a = xs[n:]

def split 'a (n: i64) (xs: []a) : ([]a, []a) = (xs[:n], xs[n:])

-- | Whether every element is true.
def and (xs: []bool) : bool = reduce (&&) true xs

-- | Whether some element is true.
def or (xs: []bool) : bool = reduce (||) false xs

def all 'a (f: a -> bool) (xs: []a) : bool = and (map f xs)

def any 'a (f: a -> bool) (xs: []a) : bool = or (map f xs)

-- | A left fold, sequentially.
def foldl 'a 'b (f: a -> b -> a) (acc: a) (bs: []b) : a =
  loop acc for b in bs do f acc b

-- | A right fold, sequentially.
def foldr 'a 'b (f: b -> a -> a) (acc: a) (bs: []b) : a =
  loop acc for b in reverse bs do f b acc

-- | The elements satisfying `p`, in order: a scan of the flags gives each
-- kept element its position, and a scatter puts it there.
def filter 'a (p: a -> bool) (xs: []a) : []a =
  let flags = map (\x -> if p x then 1i64 else 0i64) xs
  let offsets = scan (+) 0 flags
  let n = if length xs == 0 then 0 else offsets[length xs - 1]
  let is = map2 (\f o -> if f == 1 then o - 1 else -1) flags offsets
  in scatter (copy xs[:n]) is xs
