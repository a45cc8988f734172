-- A loop parameter's annotated size holds for every iteration's result:
-- a body that changes it is refused when the program is checked.
-- ==
-- error: Loop body does not have expected type.*"n" and "n \+ n" do not match

entry fixed_broken [n] (xs: [n]i32) =
  loop (ys: [n]i32) = xs for _i < 2 do ys ++ ys
