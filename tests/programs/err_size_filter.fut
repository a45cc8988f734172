-- The result of `filter` has a size of its own (existential), which is
-- not the size of its argument.
-- ==
-- error: "n" and "k" do not match

def keep_pos [n] (xs: [n]i32) : [n]i32 = filter (> 0) xs

entry ret (xs: []i32) = keep_pos xs
