-- A `let` binding a function may not consume (the function could be
-- applied twice).
-- ==
-- error: Let-bound expression of higher-order type .* contains consumption.*contains-consumption

def update (xs: *[]i32) (i: i64) (y: i32) = xs with [i] = y

entry main (xs: *[]i32) =
  let f = update xs
  in (f 0 0, f 1 1)
