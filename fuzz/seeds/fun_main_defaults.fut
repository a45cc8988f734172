-- `main` is an entry point however it is declared, so overloaded numeric
-- types in it default as Futhark's do (integers to `i32`): no annotation
-- is needed.
-- ==
-- input { [[1, 2], [3, 4]] }
-- output { [[101, 102], [103, 104]] }

def main xss = map (map (+ 100)) xss
