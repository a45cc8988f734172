-- Slices of vectors: `a[i:j]`, open ends `a[i:]`, `a[:j]`, `a[:]`, strides
-- `a[i:j:s]`, `a[::s]`, negative strides (`a[::-1]` reverses; with a
-- negative stride the default start is the last element and the default
-- end is past the first), empty slices, and slices of slices.
-- ==
-- entry: range
-- input { [0, 1, 2, 3, 4, 5, 6, 7] 1i64 4i64 }
-- output { [1, 2, 3] }
-- input { [0, 1, 2, 3, 4, 5, 6, 7] 0i64 8i64 }
-- output { [0, 1, 2, 3, 4, 5, 6, 7] }
-- input { [0, 1, 2, 3, 4, 5, 6, 7] 3i64 3i64 }
-- output { empty([0]i32) }

-- ==
-- entry: open_ended
-- input { [0, 1, 2, 3, 4, 5, 6, 7] }
-- output { [2, 3, 4, 5, 6, 7] [0, 1] [0, 1, 2, 3, 4, 5, 6, 7] [3, 4] }

-- ==
-- entry: stride
-- input { [0, 1, 2, 3, 4, 5, 6, 7] }
-- output { [1, 3, 5] [0, 2, 4, 6] [0, 3, 6] [2, 5] }

-- ==
-- entry: negative
-- input { [0, 1, 2, 3, 4, 5, 6, 7] }
-- output { [7, 6, 5, 4, 3, 2, 1, 0] [4, 3, 2, 1] [4, 2] [6, 4, 2, 0] [7, 5, 3, 1] }
-- input { [9] }
-- output { [9] empty([0]i32) empty([0]i32) [9] [9] }

entry range (xs: []i32) (i: i64) (j: i64) = xs[i:j]

entry open_ended (xs: []i32) = (xs[2:], xs[:2], xs[:], xs[2:][1:3])

entry stride (xs: []i32) = (xs[1:6:2], xs[::2], xs[::3], xs[2::3])

entry negative (xs: []i32) =
  let n = length xs
  let i = i64.min 4 (n - 1)
  let j = i64.min 0 (n - 1)
  let k = i64.min 6 (n - 1)
  in (xs[::-1], xs[i:j:-1], xs[i:j:-2], xs[k::-2], xs[::-2])
