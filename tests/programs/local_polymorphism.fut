-- A local function with type parameters is polymorphic in them, as in
-- Futhark: each use may be at other types. (One without type parameters
-- has one type: err_local_not_generalised.)
-- ==
-- entry: identity
-- input { 1 true 2.5f64 } output { 1 true 2.5f64 }

entry identity (x: i32) (y: bool) (z: f64) =
  let id 't (v: t) : t = v
  in (id x, id y, id z)

-- Used as a value.
-- ==
-- entry: twice_each
-- input { [1, 2] [true, false] } output { [[1, 1], [2, 2]] [[true, true], [false, false]] }

entry twice_each (xs: []i32) (bs: []bool) =
  let two 't (x: t) = [x, x]
  in (map two xs, map two bs)

-- Nested local functions, and a global polymorphic function inside.
-- ==
-- entry: nested
-- input { 3i64 7 } output { [[7, 7, 7], [7, 7, 7]] [[true, true, true], [true, true, true]] }

entry nested (n: i64) (x: i32) =
  let outer 'a (v: a) =
    let inner 'b (w: b) = replicate n w
    in inner (inner v)
  in (outer x |> take 2, outer true |> take 2)

-- A variable the function shares with its surroundings stays one type;
-- the function's own are generalised.
-- ==
-- entry: captured
-- input { 5 } output { 5 1.5f64 5 false }

entry captured (k: i32) =
  let with_k 'a (v: a) = (k, v)
  in (with_k 1.5, with_k false)

-- A higher-order local function at two types.
-- ==
-- entry: higher_order
-- input { 3 true } output { 5 true }

entry higher_order (x: i32) (b: bool) =
  let twice 'a (f: a -> a) (v: a) = f (f v)
  in (twice (+ 1) x, twice (\c -> !c) b)
