-- `reduce_comm` with commutative operators: a sum, a (min, max) pair and a
-- count.
-- ==
-- input { [3i64, -1i64, 4i64, 1i64, -5i64] }
-- output { 2i64 -5i64 4i64 2 }
-- input { empty([0]i64) }
-- output { 0i64 1000000i64 -1000000i64 0 }

entry main (xs: []i64) =
  let s = reduce_comm (+) 0 xs
  let (lo, hi) =
    reduce_comm (\(a, b) (c, d) -> (i64.min a c, i64.max b d))
                (1000000, -1000000) (map (\x -> (x, x)) xs)
  let negs = reduce_comm (+) 0 (map (\x -> if x < 0 then 1 else 0) xs)
  in (s, lo, hi, negs)
