-- A size-lifted type (`type~`) may not be an array's element type: its
-- values' sizes may differ from one another (language reference, "Type
-- abbreviations"), and the message says so rather than calling it a
-- function.
-- ==
-- error: size-lifted type "sum": its values may have sizes of their own

type~ sum = #foo ([]i32) | #bar ([]i32)

def main (xs: []i32) (ys: []i32) = [#foo xs, #bar ys] : []sum
