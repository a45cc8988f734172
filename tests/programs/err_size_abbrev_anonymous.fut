-- An anonymous size given to a type abbreviation is one size wherever the
-- abbreviation uses it: `square []` is a square array.
-- ==
-- error: Sizes "n \+ 1" and "n \+ 2" do not match

type square [n] 't = [n][n]t

def main n : square [] i64 = tabulate_2d (n + 1) (n + 2) (\i j -> i + j)
