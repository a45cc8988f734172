-- `scatter dest is vs`: writes vs[k] to dest[is[k]]; out-of-bounds indices
-- (negative or too large) are ignored, as in Futhark; no indices leaves
-- dest unchanged.
-- ==
-- entry: basic
-- input { [0, 0, 0, 0, 0] [4i64, 0i64, 2i64] [10, 20, 30] }
-- output { [20, 0, 30, 0, 10] }
-- input { [1, 2, 3] [-1i64, 3i64, 1i64] [7, 8, 9] }
-- output { [1, 9, 3] }
-- input { [1, 2] empty([0]i64) empty([0]i32) }
-- output { [1, 2] }

-- ==
-- entry: perm
-- input { [1.5, 2.5, 3.5] }
-- output { [3.5, 2.5, 1.5] }

entry basic (dest: []i32) (is: []i64) (vs: []i32) = scatter (copy dest) is vs

entry perm (xs: []f64) =
  let n = length xs
  in scatter (replicate n 0) (map (\i -> n - 1 - i) (indices xs)) xs
