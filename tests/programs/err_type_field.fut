-- A type error: projecting a field the record does not have.
-- ==
-- error: \b[Tt]ype|\b[Ff]ield|\b[Uu]nif|\b[Mm]ismatch

entry main (x: f64) =
  let p = {x = x, y = 2.0}
  in p.z
