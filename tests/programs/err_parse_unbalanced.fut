-- A syntax error: an unclosed parenthesis.
-- ==
-- error: \b[Pp]arse|\b[Ss]yntax|\b[Uu]nexpected|\b[Ee]xpected|\b[Uu]nclosed

entry main (xs: []i32) = map (\x -> x + 1 xs
