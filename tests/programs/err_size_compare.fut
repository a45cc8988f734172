-- `==` compares two values of one type (`a -> a -> bool`): arrays whose
-- sizes are known to differ cannot be compared.
-- ==
-- error: Sizes "2" and "3" do not match

def main (xs: [2]i32) (ys: [3]i32) = xs == ys
