-- Futhark's intrinsics for strided views of a flat array: gathers of
-- two, three and four dimensions and a scatter of two.
-- ==
-- input { [0i64,1,2,3,4,5,6,7,8,9,10,11] }
-- output { [[1i64, 3], [5, 7]] [[[0i64, 1], [2, 3]], [[4, 5], [6, 7]]] [0i64, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] [100i64, 1, 101, 3, 4, 5, 102, 7, 103, 9, 10, 11] }
entry main (xs: []i64) =
  let a = intrinsics.flat_index_2d xs 1 2 4 2 2
  let b = intrinsics.flat_index_3d xs 0 2 4 2 2 2 1
  let c = flatten_4d (intrinsics.flat_index_4d xs 0 2 6 2 3 3 1 1 1)
  let d = intrinsics.flat_update_2d (copy xs) 0 6 2 [[100, 101], [102, 103]]
  in (a, b, c, d)
