-- A program that uses the `vecspace` package, laid out in `lib/` beside
-- it as `futhark pkg sync` does: the space of 3-vectors of `f64`, a
-- function on its vectors, and its gradient by `vjp`.

import "lib/github.com/urchin-lang/vecspace/vecspace"

module v = mk_vecspace f64 {def n : i64 = 3}

-- | Half the squared distance between two vectors.
def energy (a: v.vector) (b: v.vector) : f64 =
  let d = a v.+ v.scale (-1) b
  in v.dot d d / 2

-- ==
-- entry: distance
-- input { [1.0, 2.0, 3.0] [1.0, 0.0, 3.0] }
-- output { 2.0 }
entry distance (a: []f64) (b: []f64) : f64 =
  f64.sqrt (2 * energy (v.from_array a) (v.from_array b))

-- The gradient of the energy with respect to `a` is `a - b`.
-- ==
-- entry: gradient
-- input { [1.0, 2.0, 3.0] [1.0, 0.0, 5.0] }
-- output { [0.0, 2.0, -2.0] }
entry gradient (a: []f64) (b: []f64) : []f64 =
  let b = v.from_array b
  in v.to_array (vjp (\x -> energy x b) (v.from_array a) 1)

-- A module of the same type from another numeric module.
module w = mk_vecspace f32 {def n : i64 = 2}

-- ==
-- entry: norm_f32
-- input { [6f32, 8f32] }
-- output { 10f32 }
entry norm_f32 (a: []f32) : f32 = w.norm (w.from_array a)
