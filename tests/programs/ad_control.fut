-- AD of control flow: for loops (scalar and array state, indexing by the
-- loop counter, `for x in xs`, nested), while loops (iteration count
-- depending on the input), `if` (on scalars, per element in a map, with
-- array branches), and strip-mined loops (`#[stripmine(k)]`, k = 1, 2, 3,
-- which must not change the result).
-- ==
-- entry: f_pow
-- input { 1.5 }
-- output { 7.59375 }

-- ==
-- entry: vjp_pow jvp_pow
-- input { 1.5 }
-- output { 25.3125 }

-- ==
-- entry: f_loop_index
-- input { [1.0, 2.0, 3.0] }
-- output { 11.25 }

-- ==
-- entry: vjp_loop_index
-- input { [1.0, 2.0, 3.0] }
-- output { [0.5, 2.0, 6.0] }

-- ==
-- entry: f_loop_array
-- input { [0.5, 1.0] }
-- output { [0.301300048828125, 0.39111328125] }

-- ==
-- entry: vjp_loop_array
-- input { [0.5, 1.0] }
-- output { [0.06005859375, 0.3984375] }

-- ==
-- entry: f_for_in
-- input { [2.0, 3.0] 0.5 }
-- output { 7.0 }

-- ==
-- entry: vjp_for_in
-- input { [2.0, 3.0] 0.5 }
-- output { [1.5, 2.0] 6.0 }

-- ==
-- entry: f_nested
-- input { 0.7 }
-- output { 1.8922848603280131 }

-- ==
-- entry: vjp_nested jvp_nested
-- input { 0.7 }
-- output { 0.02103420765699127 }

-- ==
-- entry: f_while
-- input { 1.5 }
-- output { 656.8408355712891 }
-- input { 3.0 }
-- output { 81.0 }

-- ==
-- entry: vjp_while jvp_while
-- input { 1.5 }
-- output { 7006.30224609375 }
-- input { 3.0 }
-- output { 108.0 }

-- ==
-- entry: f_if
-- input { 2.0 }
-- output { 4.0 }
-- input { -2.0 }
-- output { 6.0 }

-- ==
-- entry: vjp_if
-- input { 2.0 }
-- output { 4.0 }
-- input { -2.0 }
-- output { -3.0 }

-- ==
-- entry: f_if_map
-- input { [0.5, 2.0] }
-- output { [0.125, 0.9092974268256817] }

-- ==
-- entry: vjp_if_map
-- input { [0.5, 2.0] }
-- output { [0.75, -0.4161468365471424] }

-- ==
-- entry: f_if_arrays
-- input { 2.0 [1.0, 2.0] }
-- output { [2.0, 4.0] }
-- input { -1.0 [1.0, 2.0] }
-- output { [2.0, 1.0] }

-- ==
-- entry: vjp_if_arrays
-- input { 2.0 [1.0, 2.0] }
-- output { 7.0 [2.0, 6.0] }
-- input { -1.0 [1.0, 2.0] }
-- output { 0.0 [3.0, 1.0] }

-- Loops whose initial value is also a free variable of the body.
-- ==
-- entry: f_init_free
-- input { 1.5 }
-- output { 5.0625 }

-- ==
-- entry: vjp_init_free jvp_init_free
-- input { 1.5 }
-- output { 13.5 }

-- ==
-- entry: f_init_free_array
-- input { [1.0, 2.0] }
-- output { [1.0, 8.0] }

-- ==
-- entry: vjp_init_free_array
-- input { [1.0, 2.0] }
-- output { [3.0, 12.0] }

-- ==
-- entry: f_init_free_while
-- input { 2.0 }
-- output { 16.0 }

-- ==
-- entry: vjp_init_free_while
-- input { 2.0 }
-- output { 32.0 }

-- ==
-- entry: f_strip1 f_strip2 f_strip3
-- input { 0.8 }
-- output { 0.7272272926723157 }

-- ==
-- entry: vjp_strip1 vjp_strip2 vjp_strip3
-- input { 0.8 }
-- output { 0.7534107874925624 }

entry f_pow (x: f64) : f64 = loop acc = 1 for _i < 5 do acc * x

entry vjp_pow (x: f64) = vjp f_pow x 1

entry jvp_pow (x: f64) = jvp f_pow x 1

entry f_loop_index [n] (xs: [n]f64) : f64 =
  loop acc = 0 for i < n do acc * 0.5 + xs[i] * xs[i]

entry vjp_loop_index (xs: []f64) = vjp f_loop_index xs 1

entry f_loop_array (xs: []f64) : []f64 =
  loop ys = xs for _i < 3 do map (\y -> 0.5 * y * y + 0.25) ys

-- The loop is element-wise, so ȳ = 1 gives each element's derivative.
entry vjp_loop_array [n] (xs: [n]f64) = vjp f_loop_array xs (replicate n 1)

entry f_for_in (xs: []f64) (a: f64) : f64 = loop acc = a for x in xs do acc * x + 1

entry vjp_for_in (xs: []f64) (a: f64) = vjp (\(xs, a) -> f_for_in xs a) (xs, a) 1

entry f_nested (x: f64) : f64 =
  loop a = x for _i < 2 do
    loop b = a for _j < 3 do b * 0.5 + f64.sin b

entry vjp_nested (x: f64) = vjp f_nested x 1

entry jvp_nested (x: f64) = jvp f_nested x 1

-- Squares until the value reaches 50, at most 4 times.
entry f_while (x: f64) : f64 =
  let (y, _) = loop (y, k) = (x, 0i32) while k < 4 && y < 50 do (y * y, k + 1)
  in y

entry vjp_while (x: f64) = vjp f_while x 1

entry jvp_while (x: f64) = jvp f_while x 1

entry f_if (x: f64) : f64 = if x > 0 then x * x else -3 * x

entry vjp_if (x: f64) = vjp f_if x 1

entry f_if_map (xs: []f64) : []f64 =
  map (\x -> if x > 1 then f64.sin x else x * x * x) xs

entry vjp_if_map [n] (xs: [n]f64) = vjp f_if_map xs (replicate n 1)

entry f_if_arrays (c: f64) (xs: []f64) : []f64 =
  if c > 0 then map (* c) xs else reverse xs

entry vjp_if_arrays (c: f64) (xs: []f64) =
  vjp (\(c, xs) -> f_if_arrays c xs) (c, xs) [1, 3]

entry f_init_free (x: f64) : f64 = loop y = x for _i < 3 do y * x

entry vjp_init_free (x: f64) = vjp f_init_free x 1

entry jvp_init_free (x: f64) = jvp f_init_free x 1

entry f_init_free_array (xs: []f64) : []f64 = loop ys = xs for _i < 2 do map2 (*) ys xs

entry vjp_init_free_array [n] (xs: [n]f64) = vjp f_init_free_array xs (replicate n 1)

entry f_init_free_while (x: f64) : f64 = loop y = x while y < 10 do y * x

entry vjp_init_free_while (x: f64) = vjp f_init_free_while x 1

def step (a: f64) = a * 0.9 + 0.1 * f64.sin a

entry f_strip1 (x: f64) : f64 = #[stripmine(1)] loop a = x for _i < 10 do step a

entry f_strip2 (x: f64) : f64 = #[stripmine(2)] loop a = x for _i < 10 do step a

entry f_strip3 (x: f64) : f64 = #[stripmine(3)] loop a = x for _i < 10 do step a

entry vjp_strip1 (x: f64) = vjp f_strip1 x 1

entry vjp_strip2 (x: f64) = vjp f_strip2 x 1

entry vjp_strip3 (x: f64) = vjp f_strip3 x 1
