-- Identifiers with primes, underscores, digits, capitals, and names that
-- start with a keyword (`iffy`, `letter`, `into`, `loops`, `done_`).
-- ==
-- input { 1 }
-- output { 1221114 }
-- input { 0 }
-- output { 1221113 }

def x' = 1
def x'' = 2
def snake_case_2 = 10
def camelCase = 100
def _under = 1000

entry main (a1: i32) =
  let iffy = 10000
  let letter = 100000
  let into = 1000000
  let loops = 0
  let done_ = x' + x'' + snake_case_2 + camelCase + _under
  let X' = iffy * 2 + letter * 2 + into + loops
  in done_ + X' + a1
