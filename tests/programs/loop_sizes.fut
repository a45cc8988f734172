-- Sizes ascribed to loop parameters: a size known outside the loop holds
-- for the initial value and every iteration's result; a new size name is
-- bound afresh in each iteration, so the size may vary.
-- ==
-- entry: fixed
-- input { [1f32, 2f32, 3f32] }
-- output { [8f32, 16f32, 24f32] }

-- ==
-- entry: shrinking
-- input { [1, 2, 3, 4] }
-- output { 1i64 }

-- ==
-- entry: initial_broken
-- input { [1, 2] }
-- error: .

entry fixed [n] (xs: [n]f32) : [n]f32 =
  loop (ys: [n]f32) = xs for _i < 3 do map (* 2) ys

entry shrinking (xs: []i32) : i64 =
  let ys = loop (ys: [m]i32) = xs while length ys > 1 do ys[1:]
  in length ys

entry initial_broken (xs: []i32) =
  loop (ys: [3]i32) = xs for _i < 2 do ys
