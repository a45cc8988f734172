-- A type error: a `match` that does not cover every constructor.
-- ==
-- error: Unmatched cases.*#bar

type t = #foo | #bar i32

entry main (x: i32) =
  let v : t = if x > 0 then #foo else #bar x
  in match v
     case #foo -> 1
     case #bar 0 -> 2
