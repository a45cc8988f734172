-- A size that is a function's application (`[plus a b]`) is the same
-- function's application to the same sizes: a size parameter only such a
-- size names is found from the context's (Futhark's
-- types/sizeparams11), and `:type` shows it as written.
-- ==
-- input { 1i64 2i64 }
-- output { [[true, true, true], [true, true, true], [true, true, true]] }
-- input { 0i64 2i64 }
-- output { [[true, true], [true, true]] }

def plus a b : i64 = a + b

def square [a] [b] : [plus a b][plus b a]bool =
  tabulate_2d (plus a b) (plus b a) (\_ _ -> true)

entry main (x: i64) (y: i64) = copy square : [plus x y][plus y x]bool
