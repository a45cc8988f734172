-- A loop body runs more than once: it may consume only its parameters.
-- ==
-- error: Consuming variable "a".*bound outside this loop

entry main (n: i64) =
  let a = iota n
  in loop s = 0 for i < n do
       let a[i] = i
       in s + a[i]
