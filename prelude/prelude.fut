-- | The urchin prelude: the library functions that need not be primitive,
-- written in urchin itself. Primitives (map, reduce, scan, scatter, hist,
-- iota, replicate, zip, transpose, ...) are built into the interpreter.

-- | The indices of an array: `[0, 1, ..., n-1]`.
def indices [n] 'a (xs: [n]a) : *[n]i64 = iota n

-- | `[f 0, f 1, ..., f (n-1)]`
def tabulate 'a (n: i64) (f: i64 -> a) : *[n]a = map f (iota n)

-- | `tabulate_2d n m f` is the n×m array with `f i j` at `[i, j]`.
def tabulate_2d 'a (n: i64) (m: i64) (f: i64 -> i64 -> a) : *[n][m]a =
  map (\i -> map (\j -> f i j) (iota m)) (iota n)

def head 'a (xs: []a) : a = xs[0]

def last 'a (xs: []a) : a = xs[length xs - 1]

def tail 'a (xs: []a) : []a = xs[1:]

def init 'a (xs: []a) : []a = xs[:length xs - 1]

def take 'a (n: i64) (xs: []a) : [n]a = xs[:n]

def drop 'a (n: i64) (xs: []a) : []a = xs[n:]

-- | The first `n` and the last `m` elements of an array whose size is the
-- sum `n + m`, as its construction says (`xs ++ ys`, `iota (n + m)`,
-- `xs :> [n + m]t`): as in Futhark, the sizes come from the argument's.
def split [n] [m] 'a (xs: [n + m]a) : ([n]a, [m]a) = (xs[:n], xs[n:])

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
def filter 'a (p: a -> bool) (xs: []a) : ?[m].*[m]a =
  let flags = map (\x -> if p x then 1i64 else 0i64) xs
  let offsets = scan (+) 0 flags
  let n = if length xs == 0 then 0 else offsets[length xs - 1]
  let is = map2 (\f o -> if f == 1 then o - 1 else -1) flags offsets
  in scatter (copy xs[:n]) is xs

-- | Whether an array is empty.
def null 'a (xs: []a) : bool = length xs == 0

-- | The identity function.
def id '^a (x: a) : a = x

-- | `const x` ignores its argument and returns `x`.
def const '^a '^b (x: a) (_: b) : a = x

-- | `f` with its two arguments swapped.
def flip '^a '^b '^c (f: a -> b -> c) (b: b) (a: a) : c = f a b

-- | `f` taking its two arguments one at a time.
def curry '^a '^b '^c (f: (a, b) -> c) (a: a) (b: b) : c = f (a, b)

-- | `f` taking its two arguments as a pair.
def uncurry '^a '^b '^c (f: a -> b -> c) ((a, b): (a, b)) : c = f a b

-- | `f` applied `n` times to `x`.
def iterate 'a (n: i32) (f: a -> a) (x: a) : a =
  loop x for _i < n do f x

-- | `f` applied to `x` until `p` holds (possibly never).
def iterate_until 'a (p: a -> bool) (f: a -> a) (x: a) : a =
  loop x while !(p x) do f x

-- | `f` applied to `x` as long as `p` holds.
def iterate_while 'a (p: a -> bool) (f: a -> a) (x: a) : a =
  loop x while p x do f x

-- | `tabulate_3d n m o f` is the n×m×o array with `f i j k` at `[i, j, k]`.
def tabulate_3d 'a (n: i64) (m: i64) (o: i64) (f: i64 -> i64 -> i64 -> a) : *[n][m][o]a =
  map (\i -> tabulate_2d m o (f i)) (iota n)

def flatten_3d 'a (xs: [][][]a) : []a = flatten (flatten xs)

def flatten_4d 'a (xs: [][][][]a) : []a = flatten (flatten_3d xs)

-- | Like `unflatten`, but produces three dimensions.
def unflatten_3d 'a [n] [m] [l] (xs: [n * m * l]a) : [n][m][l]a = unflatten (unflatten xs)

-- | Like `unflatten`, but produces four dimensions.
def unflatten_4d 'a [n] [m] [l] [k] (xs: [n * m * l * k]a) : [n][m][l][k]a =
  unflatten (unflatten_3d xs)

-- | An array of `k` elements, `x` except where `vs` are scattered to `is`
-- (indices out of bounds are ignored).
def spread 'a (k: i64) (x: a) (is: []i64) (vs: []a) : *[k]a =
  scatter (replicate k x) is vs

-- | The exclusive scan: `[ne, op ne a0, ...]`, without the last total.
def exscan [n] 'a (op: a -> a -> a) (ne: a) (as: [n]a) : *[n]a =
  scatter (replicate n ne) (map (+ 1) (iota n)) (scan op ne as)

-- | `xs` with its size imposed as `n`: a size coercion, failing at run time
-- when the sizes differ.
def sized [m] 't (n: i64) (xs: [m]t) : [n]t = xs :> [n]t

-- | A map of `f`, whose array results may differ in size, flattened: the
-- size of each segment (the *shape*), a flag at the start of each segment,
-- each segment's offset, the concatenated array results, and the other
-- results. `f` runs once per segment for its size and its other result, and
-- once per element of the data (segments may be empty, so an element finds
-- its segment by counting the segment starts up to it).
def flatmap [n] 'a 'b 'c (f: a -> ?[k].([k]b, c)) (as: [n]a)
    : ?[m].([n]i64, [m]bool, [n]i64, [m]b, [n]c) =
  let shape = map (\x -> length (f x).0) as
  let offset = map2 (-) (scan (+) 0 shape) shape
  let m = i64.sum shape
  let starts = hist (+) 0 m offset (replicate n 1i64)
  let seg = map (\s -> s - 1) (scan (+) 0 starts)
  let data = map2 (\s i -> (f as[s]).0[i - offset[s]]) seg (iota m)
  in (shape, map (> 0) starts, offset, data, map (\x -> (f x).1) as)

-- | `flatmap` of a function with only an array result.
def flatmap' [n] 'a 'b (f: a -> ?[k].[k]b) (as: [n]a)
    : ?[m].([n]i64, [m]bool, [n]i64, [m]b) =
  let (shape, flags, offset, data, _) = flatmap (\x -> (f x, ())) as
  in (shape, flags, offset, data)

-- | The elements satisfying `p` and those that do not, each in order.
def partition [n] 'a (p: a -> bool) (as: [n]a) : ?[k].([k]a, [n - k]a) =
  let flags = map p as
  let yes = scan (+) 0 (map (\f -> if f then 1i64 else 0) flags)
  let no = scan (+) 0 (map (\f -> if f then 0 else 1i64) flags)
  let k = if n == 0 then 0 else yes[n - 1]
  let is = map3 (\f y o -> if f then y - 1 else k + o - 1) flags yes no
  let xs = scatter (copy as) is as
  in (xs[:k], xs[k:])

-- | The elements satisfying `p1`, those satisfying `p2` but not `p1`, and
-- the rest, each in order.
def partition2 [n] 'a (p1: a -> bool) (p2: a -> bool) (as: [n]a)
    : ?[k][l].([k]a, [l]a, [n - k - l]a) =
  let (xs, rest) = partition p1 as
  let (ys, zs) = partition p2 rest
  in (xs, ys, zs)

-- | `reduce_by_index` into a two-dimensional array; pairs of indices out of
-- bounds are ignored.
def reduce_by_index_2d [k] [m] 'a (dest: *[k][m]a) (f: a -> a -> a) (ne: a) (is: [](i64, i64)) (as: []a) : *[k][m]a =
  let flat = map (\(i, j) -> if i >= 0 && i < k && j >= 0 && j < m then i * m + j else -1) is
  in unflatten (reduce_by_index (flatten dest) f ne flat as :> [k * m]a)

-- | `reduce_by_index` into a three-dimensional array.
def reduce_by_index_3d [k] [m] [l] 'a (dest: *[k][m][l]a) (f: a -> a -> a) (ne: a) (is: [](i64, i64, i64)) (as: []a) : *[k][m][l]a =
  let flat = map (\(i, j, h) ->
                    if i >= 0 && i < k && j >= 0 && j < m && h >= 0 && h < l
                    then (i * m + j) * l + h else -1) is
  in unflatten_3d (reduce_by_index (flatten_3d dest) f ne flat as :> [k * m * l]a)

-- | `scatter` into a three-dimensional array.
def scatter_3d [k] [m] [l] 'a (dest: *[k][m][l]a) (is: [](i64, i64, i64)) (vs: []a) : *[k][m][l]a =
  let flat = map (\(i, j, h) ->
                    if i >= 0 && i < k && j >= 0 && j < m && h >= 0 && h < l
                    then (i * m + j) * l + h else -1) is
  in unflatten_3d (scatter (flatten_3d dest) flat vs :> [k * m * l]a)

-- | `f x` and `jmp f x xs`.
def jmp2 [n] 'a 'b (f: a -> b) (x: a) (xs: [n]a) : (b, [n]b) = (f x, jmp f x xs)

-- | `f x` and `mjp f x ys`.
def mjp2 [n] 'a 'b (f: a -> b) (x: a) (ys: [n]b) : (b, [n]a) = (f x, mjp f x ys)

-- | `with_vjp` where `f` returns a tape `c` for the adjoint `f'` besides
-- its result `b`: `f' (tape, ȳ)` is the adjoint of `x`.
def with_vjp_tape 'a 'b 'c (f: a -> (c, b)) (f': (c, b) -> a) (x: a) : b =
  (with_vjp f (\x' (_, adj) -> f' ((f x').0, adj)) x).1

-- | A single-precision float from an integer (Futhark's prelude).
def r32 (x: i32) : f32 = f32.i32 x

-- | An integer from a single-precision float.
def t32 (x: f32) : i32 = i32.f32 x

-- | A double-precision float from an integer.
def r64 (x: i32) : f64 = f64.i32 x

-- | An integer from a double-precision float.
def t64 (x: f64) : i32 = i32.f64 x

-- | Negation of a boolean: `not x` is `!x`, as a function (for `map`).
def not (x: bool) : bool = !x

-- | The identity, which stops at a breakpoint in the REPL first (as
-- `#[break]` does).
def break 't (x: t) : t = #[break] x

-- | The intrinsics of Futhark's compiler that programs may call by name:
-- gathers from, and scatters into, strided views of a flat array.
-- `flat_index_2d as offset n1 s1 n2 s2` is the `n1`×`n2` array whose
-- element `[i, j]` is `as[offset + i*s1 + j*s2]`; `flat_update_2d as
-- offset s1 s2 vs` writes `vs[i, j]` there instead.
module intrinsics = {
  def flat_index_2d [n] 'a (as: [n]a) (offset: i64) (n1: i64) (s1: i64) (n2: i64) (s2: i64)
      : [n1][n2]a =
    tabulate_2d n1 n2 (\i j -> as[offset + i * s1 + j * s2])

  def flat_index_3d [n] 'a (as: [n]a) (offset: i64) (n1: i64) (s1: i64) (n2: i64) (s2: i64)
                    (n3: i64) (s3: i64) : [n1][n2][n3]a =
    tabulate_3d n1 n2 n3 (\i j l -> as[offset + i * s1 + j * s2 + l * s3])

  def flat_index_4d [n] 'a (as: [n]a) (offset: i64) (n1: i64) (s1: i64) (n2: i64) (s2: i64)
                    (n3: i64) (s3: i64) (n4: i64) (s4: i64) : [n1][n2][n3][n4]a =
    tabulate_3d n1 n2 n3 (\i j l ->
      tabulate n4 (\m -> as[offset + i * s1 + j * s2 + l * s3 + m * s4]))

  def flat_update_2d [n] [k] [l] 'a (as: *[n]a) (offset: i64) (s1: i64) (s2: i64)
                     (vs: [k][l]a) : *[n]a =
    let is = tabulate_2d k l (\i j -> offset + i * s1 + j * s2)
    in scatter as (flatten is) (flatten vs)

  def flat_update_3d [n] [k] [l] [p] 'a (as: *[n]a) (offset: i64) (s1: i64) (s2: i64) (s3: i64)
                     (vs: [k][l][p]a) : *[n]a =
    let is = tabulate_3d k l p (\i j m -> offset + i * s1 + j * s2 + m * s3)
    in scatter as (flatten_3d is) (flatten_3d vs)

  def flat_update_4d [n] [k] [l] [p] [q] 'a (as: *[n]a) (offset: i64) (s1: i64) (s2: i64)
                     (s3: i64) (s4: i64) (vs: [k][l][p][q]a) : *[n]a =
    let is = tabulate_3d k l p (\i j m -> tabulate q (\r -> offset + i * s1 + j * s2 + m * s3 + r * s4))
    in scatter as (flatten_4d is) (flatten_4d vs)
}
