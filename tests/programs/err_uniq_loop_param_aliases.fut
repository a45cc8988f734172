-- The next value of a loop parameter the body consumes may not alias an
-- array from outside the loop: the next iteration would consume it.
-- ==
-- error: Return value for consuming loop parameter "arr" aliases "barr".*consuming-loop-param-aliases

entry main (n: i64) =
  let arr = iota n
  let barr = iota n
  let arr = loop arr for i < n do
              let arr[i] = 0
              in barr
  in arr[0]
