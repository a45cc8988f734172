-- Sizes in module types: a module's size constant names one size
-- wherever it is used (the module's and its users'); a function's
-- anonymous result size is its body's (`iota n` has `n` elements), so
-- it can be zipped with another array of `n` elements; an abstract
-- type's size parameter is kept.
-- ==
-- entry: main
-- input { 4i64 } output { 6i64 [0i64, 2i64, 4i64, 6i64] 8i64 }

module type withvec = {
  val n : i64
  val xs : [n]i64
  val grid : (m: i64) -> [m]i64
}

module v : withvec = {
  def n = 3i64
  def xs = iota n
  def grid (m: i64) : []i64 = map (* 2) (iota m)
}

module num : {
  type t [n]
  val mk : (x: i64) -> t [x]
  val comb [n] : t [n] -> t [n] -> i64
} = {
  type t [n] = [n]i32
  def mk x = replicate x 0
  def comb x y = length (zip x y) * 2
}

def total : i64 = i64.sum (map2 (+) v.xs (iota v.n))

entry main (m: i64) : (i64, [m]i64, i64) =
  let g = v.grid m
  in (total, map2 (\a _ -> a) g (iota m), num.comb (num.mk m) (num.mk m))
