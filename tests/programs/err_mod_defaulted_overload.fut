-- A module's definition with an overloaded numeric type is fixed at its
-- default (`i32`) before the module meets its module type, as in Futhark:
-- it does not match a specification at `f32`.
-- ==
-- error: Defaulted to `i32 -> i32 -> i32`

module type addable = {
  type t
  val add : t -> t -> t
}

module add_f32 : addable = {
  type t = f32
  def add a b = a + b
}
