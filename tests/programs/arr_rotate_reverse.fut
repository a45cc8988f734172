-- `rotate r xs` (element i of the result is xs[(i + r) mod n], also for
-- negative r and |r| >= n) and `reverse`.
-- ==
-- entry: rot
-- input { 1i64 [1, 2, 3, 4] }
-- output { [2, 3, 4, 1] }
-- input { -1i64 [1, 2, 3, 4] }
-- output { [4, 1, 2, 3] }
-- input { 0i64 [1, 2, 3, 4] }
-- output { [1, 2, 3, 4] }
-- input { 5i64 [1, 2, 3, 4] }
-- output { [2, 3, 4, 1] }
-- input { -6i64 [1, 2, 3, 4] }
-- output { [3, 4, 1, 2] }

-- ==
-- entry: rev
-- input { [1, 2, 3] }
-- output { [3, 2, 1] }
-- input { [7] }
-- output { [7] }
-- input { empty([0]i32) }
-- output { empty([0]i32) }

-- ==
-- entry: rot2d
-- input { [[1, 2], [3, 4], [5, 6]] }
-- output { [[3, 4], [5, 6], [1, 2]] [[2, 1], [4, 3], [6, 5]] [[5, 6], [3, 4], [1, 2]] }

entry rot (r: i64) (xs: []i32) = rotate r xs

entry rev (xs: []i32) = reverse xs

entry rot2d (xss: [][]i32) = (rotate 1 xss, map (rotate 1) xss, reverse xss)
