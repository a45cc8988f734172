-- `&&` and `||` cannot be redefined: a definition would not short-circuit.
-- ==
-- error: `&&` cannot be redefined

def (&&) (x: bool) (y: bool) = x || y

def main (x: bool) = x && x
