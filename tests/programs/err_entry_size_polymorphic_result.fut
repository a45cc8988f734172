-- An entry point is called from outside, where nothing infers a size
-- parameter: one that only the result has is Futhark's error.
-- ==
-- error: \bEntry point functions must not be size-polymorphic in their return type

entry zeros [m] (k: i64) : [k][m]i32 = replicate k (replicate m 0)
