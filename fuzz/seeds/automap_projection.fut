-- AUTOMAP: a projection from an array of tuples or records maps the
-- projection (`ps.0` is `map (.0) ps`), over every dimension needed.
-- ==
-- entry: tuple_implicit tuple_explicit
-- input { [1, 2] [0.5, 1.5] }
-- output { [1, 2] [0.5, 1.5] }

-- ==
-- entry: nested_implicit nested_explicit
-- input { [[1, 2], [3, 4]] }
-- output { [[2, 4], [6, 8]] [[1, 2], [3, 4]] }

entry tuple_implicit (xs: []i32) (ys: []f64) =
  let ps = zip xs ys
  in (ps.0, ps.1)

entry tuple_explicit (xs: []i32) (ys: []f64) =
  let ps = zip xs ys
  in (map (.0) ps, map (.1) ps)

entry nested_implicit (xss: [][]i32) =
  let rs = map (map (\x -> {a = {b = x * 2}, c = x})) xss
  in (rs.a.b, rs.c)

entry nested_explicit (xss: [][]i32) =
  let rs = map (map (\x -> {a = {b = x * 2}, c = x})) xss
  in (map (map (.b)) (map (map (.a)) rs), map (map (.c)) rs)
