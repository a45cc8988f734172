-- An abstract type with a size parameter keeps its size outside the
-- module: `comb` asks for two values of one size, and these have sizes
-- `a + 1` and `b + 1`.
-- ==
-- error: \bSizes "a \+ 1" and "b \+ 1" do not match

module num : {
  type t [n]
  val mk : (x: i64) -> t [x]
  val comb [n] : t [n] -> t [n] -> i64
} = {
  type t [n] = [n]i32
  def mk x = replicate x 0
  def comb x y = length (zip x y)
}

def f (x: i64) = num.mk (x + 1)

entry main (a: i64) (b: i64) = num.comb (f a) (f b)
