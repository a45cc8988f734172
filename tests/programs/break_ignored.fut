-- `#[break]` stops only in the REPL: `urchin run` and `urchin test` go on
-- without a word, as compiled Futhark does.
-- ==
-- input { 3 } output { 70 }

def f (x: i32) = let y = x * 2 in #[break] y + 1

def main (x: i32) = #[break] (f x * 10)
