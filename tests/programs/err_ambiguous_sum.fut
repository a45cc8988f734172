-- A sum type that only the body sees, known by the constructors matched
-- on, could have others: Futhark asks for an annotation.
-- ==
-- error: Type is ambiguous

def f (b: bool) : i32 =
  match (if b then #on else #off)
  case #on -> 1
  case #off -> 0
