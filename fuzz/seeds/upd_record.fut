-- Record updates `r with f = e` used as state: a loop-carried record and
-- an array of records updated element-wise.
-- ==
-- entry: simulate
-- input { 1.0 0.5 4 }
-- output { 3.0 0.5 }

-- ==
-- entry: bump
-- input { [1.0, 2.0] }
-- output { [3.0, 4.0] [1.0, 2.0] }

type particle = {pos: f64, vel: f64}

def step (p: particle) : particle = p with pos = p.pos + p.vel

entry simulate (pos: f64) (vel: f64) (n: i32) =
  let p = loop p = {pos, vel} for _i < n do step p
  in (p.pos, p.vel)

entry bump (xs: []f64) =
  let ps = map (\x -> {pos = x, vel = 1.0}) xs
  let qs = map (\p -> p with vel = p.vel * 2) ps
  in (map (\p -> p.pos + p.vel) qs, map (.pos) ps)
