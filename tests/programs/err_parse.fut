-- A syntax error: a `let` without a bound expression.
-- ==
-- error: \b[Pp]arse|\b[Ss]yntax|\b[Uu]nexpected|\b[Ee]xpected

entry main (x: i32) =
  let y = in x + y
