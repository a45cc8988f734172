-- Type parameters `'a 'b`: polymorphic top-level functions used at several
-- types (top-level definitions are generalised).
-- ==
-- input { 3 1.5 }
-- output { 3 1.5 1.5 3 1.5 6 8 [3, 3] }

def id 'a (x: a) : a = x

def swap 'a 'b ((x, y): (a, b)) : (b, a) = (y, x)

def first 'a (xs: []a) : a = xs[0]

def both 'a 'b (f: a -> b) ((x, y): (a, a)) : (b, b) = (f x, f y)

def dup 'a (x: a) : []a = [x, x]

entry main (x: i32) (y: f64) =
  let (s0, s1) = swap (x, y)
  let (b0, b1) = both (\z -> z * 2) (x, x + 1)
  in (id x, id y, s0, s1, first [y, 2.0], b0, b1, dup x)
