-- A local function's type parameter stands for any type, and not every
-- type supports `==` (as for a top-level definition's).
-- ==
-- error: "t" of `eq` stands for any type.*supports equality

entry same (a: i32) (b: i32) =
  let eq 't (u: t) (v: t) = u == v
  in eq a b
