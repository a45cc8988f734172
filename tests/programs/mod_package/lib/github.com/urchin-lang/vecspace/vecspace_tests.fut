-- The package's own tests: a space of 3-vectors of `f64`, and one of
-- 2-vectors of `f32`.

import "vecspace"

module v3 = mk_vecspace f64 {def n : i64 = 3}
module v2 = mk_vecspace f32 {def n : i64 = 2}

-- ==
-- entry: dot3
-- input { [1.0, 2.0, 3.0] [4.0, 5.0, 6.0] }
-- output { 32.0 }
entry dot3 (a: []f64) (b: []f64) : f64 = v3.dot (v3.from_array a) (v3.from_array b)

-- ==
-- entry: combine3
-- input { [1.0, 2.0, 3.0] [4.0, 5.0, 6.0] }
-- output { [6.0, 9.0, 12.0] }
entry combine3 (a: []f64) (b: []f64) : []f64 =
  v3.to_array (v3.scale 2 (v3.from_array a) v3.+ v3.from_array b)

-- ==
-- entry: norm2
-- input { [3f32, 4f32] }
-- output { 5f32 }
entry norm2 (a: []f32) : f32 = v2.norm (v2.from_array a)

-- ==
-- entry: zero3
-- input { }
-- output { [0.0, 0.0, 0.0] }
entry zero3 : []f64 = v3.to_array v3.zero

-- A vector of the wrong length is rejected where it becomes a vector.
-- ==
-- entry: dot3
-- input { [1.0, 2.0] [4.0, 5.0] }
-- error: shape
