-- Arrays of tuples and of records: mapping, filtering, reversing and
-- indexing them, and returning their components via unzip / projections.
-- ==
-- entry: tuples
-- input { [1, 2] }
-- output { [2, 4] [1.5, 2.0] }

-- ==
-- entry: records
-- input { [1.0, 0.5, -2.0] [1.0, 0.5, 0.0] }
-- output { [1.0, -2.0] [1.0, 0.0] }

-- ==
-- entry: reverse_pairs
-- input { [1, 2, 3] [4, 5, 6] }
-- output { [3, 2, 1] [6, 5, 4] }

-- ==
-- entry: index_record
-- input { [1.0, 2.0, 3.0] 2i64 }
-- output { 3.0 9.0 }

entry tuples (xs: []i32) =
  let ps = map (\x -> (x, f64.i32 x / 2)) xs
  let qs = map (\(a, b) -> (a * 2, b + 1)) ps
  in unzip qs

entry records (xs: []f64) (ys: []f64) =
  let pts = map2 (\x y -> {x, y}) xs ys
  let far = filter (\p -> p.x * p.x + p.y * p.y > 1) pts
  in (map (.x) far, map (.y) far)

entry reverse_pairs (xs: []i32) (ys: []i32) = unzip (reverse (zip xs ys))

entry index_record (xs: []f64) (i: i64) =
  let rs = map (\x -> {v = x, sq = x * x}) xs
  in (rs[i].v, rs[i].sq)
