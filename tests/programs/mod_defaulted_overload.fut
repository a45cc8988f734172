-- An overloaded definition matches a module type where its default is
-- the type asked for (`i32` here), or where it is annotated; unascribed,
-- it stays overloaded (urchin generalises it).
-- ==
-- entry: main
-- input { 2 3 2f32 0.5f32 } output { 5 2.5f32 5.0f64 }

module type addable = {
  type t
  val add : t -> t -> t
}

module add_i32 : addable with t = i32 = {
  type t = i32
  def add a b = a + b
}

module add_f32 : addable with t = f32 = {
  type t = f32
  def add (a: t) (b: t) = a + b
}

module loose = {
  def add a b = a + b
}

entry main (a: i32) (b: i32) (x: f32) (y: f32) : (i32, f32, f64) =
  (add_i32.add a b, add_f32.add x y, loose.add 2.0 3.0)
