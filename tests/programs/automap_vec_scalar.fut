-- AUTOMAP: a vector combined with a scalar (the scalar is replicated) and
-- two vectors combined element-wise; each `_implicit` entry must give the
-- same result as its `_explicit` twin with the maps written out.
-- ==
-- entry: add_implicit add_explicit
-- input { [1, 2, 3] 10 }
-- output { [11, 12, 13] }
-- input { empty([0]i32) 10 }
-- output { empty([0]i32) }

-- ==
-- entry: affine_implicit affine_explicit
-- input { [1.0, -2.0] 3.0 }
-- output { [2.0, -7.0] }

-- ==
-- entry: vv_implicit vv_explicit
-- input { [1, 2, 3] [4, 5, 6] }
-- output { [5, 12, 21] }

entry add_implicit (xs: []i32) (y: i32) = xs + y

entry add_explicit (xs: []i32) (y: i32) = map (\x -> x + y) xs

entry affine_implicit (xs: []f64) (k: f64) = k * xs - 1

entry affine_explicit (xs: []f64) (k: f64) = map (\x -> k * x - 1) xs

entry vv_implicit [n] (xs: [n]i32) (ys: [n]i32) = xs * ys + xs

entry vv_explicit [n] (xs: [n]i32) (ys: [n]i32) = map2 (\x y -> x * y + x) xs ys
