-- Operator characters are read as one operator, as in Futhark: `x==-1` is
-- `x ==- 1`, an unknown operator; the message says how to write it.
-- ==
-- error: Unknown operator "==-"(.|\n)*write a space

def main (x: i32) = x==-1
