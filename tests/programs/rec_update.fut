-- Record update `r with field = e`: the original is unchanged, updates
-- chain, nested records are updated by rebuilding the inner record, and
-- updates work on loop-carried records.
-- ==
-- entry: update
-- input { 1.0 2.0 }
-- output { 1.0 2.0 10.0 2.0 }

-- ==
-- entry: chained
-- input { 3 }
-- output { 321 }

-- ==
-- entry: nested_field
-- input { 4 }
-- output { 9 }

-- ==
-- entry: in_loop
-- input { 4 }
-- output { 6 4 }
-- input { 0 }
-- output { 0 0 }

type point = {x: f64, y: f64}

entry update (x: f64) (y: f64) =
  let p: point = {x, y}
  let q = p with x = 10
  in (p.x, p.y, q.x, q.y)

entry chained (x: i32) =
  let r = {a = x, b = x, c = x}
  let r = (r with a = 1) with b = 2
  in r.a + r.b * 10 + r.c * 100

entry nested_field (x: i32) =
  let r = {inner = {v = x, w = 0}}
  let r = r with inner = (r.inner with w = 5)
  in r.inner.v + r.inner.w

entry in_loop (n: i32) =
  let r = loop r = {sum = 0, cnt = 0} for i < n do
            (r with sum = r.sum + i) with cnt = r.cnt + 1
  in (r.sum, r.cnt)
