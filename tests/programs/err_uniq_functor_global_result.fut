-- Inside a parametric module, a function's result may still not alias a
-- top-level constant that is not the parameter's.
-- ==
-- error: Function result aliases the free variable "global"

module type has = { val xs : []i32 }

def global : []i32 = [1, 2, 3]

module pick (P: has) = {
  def from_global (_: i32) = global
}

module m = pick { def xs : []i32 = [4, 5] }
