-- A constant declared with an anonymous size (`[]`) has an existential
-- size, as in Futhark, so it does not match a specification that names
-- its size: the module's `xs` could be of any length.
-- ==
-- error: \bSizes "n" and "k" do not match

module type withvec = {
  val n : i64
  val xs : [n]i64
}

module v : withvec = {
  def n = 3i64
  def xs : []i64 = iota n
}
