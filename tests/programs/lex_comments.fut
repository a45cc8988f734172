-- | A doc comment before a definition is an ordinary comment.
-- It may span several lines.
def f (x: i32) = -- a comment at the end of a line
  x + -- a comment inside an expression
  1 -- and another

-- A comment that looks like code: def g = 1 / 0

-- | Doubles `f x`.
entry main (x: i32) =
  -- a comment on its own line inside a body
  f x
  -- between two parts of one expression
  * 2

-- The test block comes last, after a blank line.
-- ==
-- input { 3 }
-- output { 8 }
-- input { -1 }
-- output { 0 }
