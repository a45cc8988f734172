-- A parametric module's function may return a value of its parameter
-- (`P.xs`): Futhark checks aliasing in the module's body against the
-- parameter's type, so applying it to a module of constants is no error.
-- ==
-- entry: main
-- input { 0 } output { [4, 5] }
-- input { 1 } output { [1, 2, 3] }

module type has = { val xs : []i32 }

module pick (P: has) = {
  def from_param (_: i32) = P.xs
}

module m = pick { def xs : []i32 = [4, 5] }

def global : []i32 = [1, 2, 3]

entry main (k: i32) = if k == 0 then m.from_param k else copy global
