-- Array literals: of constants, of expressions, nested (matrices), with a
-- suffix on one element typing the whole array, singletons, of tuples
-- and of records.
-- ==
-- entry: consts
-- input { }
-- output { [1, 2, 3] [[1.5, 2.0], [3.0, 4.5]] [1u8, 2u8, 3u8] [1.0f32, 2.5f32] }

-- ==
-- entry: exprs
-- input { 3 }
-- output { [3, 4, 9] [[3, 0], [0, 3]] [3i64] }

-- ==
-- entry: tuples_records
-- input { 1i64 }
-- output { 2 2.5 2 false }
-- input { 0i64 }
-- output { 1 1.5 1 true }

entry consts = ([1, 2, 3], [[1.5, 2.0], [3.0, 4.5]], [1u8, 2, 3], [1f32, 2.5])

entry exprs (x: i32) = ([x, x + 1, x * x], [[x, 0], [0, x]], [i64.i32 x])

entry tuples_records (i: i64) =
  let ps = [(1, 1.5), (2, 2.5), (3, 3.5)]
  let rs = [{a = 1, b = true}, {a = 2, b = false}]
  in (ps[i].0, ps[i].1, rs[i].a, rs[i].b)
