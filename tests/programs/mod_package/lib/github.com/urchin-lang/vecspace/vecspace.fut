-- | Small vector spaces over any real numbers: a module type for them, and
-- a parametric module that makes the space of `n`-vectors of a numeric
-- module's type.

-- | A vector space: its scalars, its vectors and their operations.
module type vector_space = {
  -- | The numbers vectors are made of.
  type scalar
  -- | A vector.
  type vector

  val zero : vector
  val (+) : vector -> vector -> vector
  val scale : scalar -> vector -> vector
  val dot : vector -> vector -> scalar
  val norm : vector -> scalar
  val from_array : []scalar -> vector
  val to_array : vector -> []scalar
}

-- | The vectors of `D.n` numbers of `R` (a numeric module such as `f64`).
-- Vectors are abstract: users see them through the operations only.
module mk_vecspace (R: real) (D: {val n : i64}) : vector_space with scalar = R.t = {
  type scalar = R.t
  type vector = [D.n]R.t

  def zero : vector = replicate D.n (R.i32 0)
  def (+) (a: vector) (b: vector) : vector = map2 (R.+) a b
  def scale (s: scalar) (v: vector) : vector = map (R.* s) v
  def dot (a: vector) (b: vector) : scalar = R.sum (map2 (R.*) a b)
  def norm (v: vector) : scalar = R.sqrt (dot v v)
  def from_array (xs: []scalar) : vector = xs :> [D.n]R.t
  def to_array (v: vector) : []scalar = v
}
