-- Type abbreviations: a record type, a parametric array type `vec 'a`, a
-- tuple type, a sized array type `[3]f64`, a matrix type, and a parametric
-- record type; also used in entry point parameter types. Types with
-- anonymous sizes are size-lifted (`type~`), as Futhark requires.
-- ==
-- input { 3.0 4.0 [1, 2, 3] [1.0, 2.0, 3.0] }
-- output { 25.0 6 2 14.0 2.5 1i64 5.0f32 }

type point = {x: f64, y: f64}
type~ vec 'a = []a
type pair = (i32, i32)
type vec3 = [3]f64
type~ mat = [][]f32
type box 'a = {item: a, count: i64}

def norm2 (p: point) : f64 = p.x * p.x + p.y * p.y

def total (xs: vec i32) : i32 = reduce (+) 0 xs

def swap (p: pair) : pair = (p.1, p.0)

def dot3 (a: vec3) (b: vec3) : f64 = a[0] * b[0] + a[1] * b[1] + a[2] * b[2]

def diag_sum (m: mat) : f32 = m[0, 0] + m[1, 1]

def mkbox 'a (x: a) : box a = {item = x, count = 1}

entry main (x: f64) (y: f64) (xs: vec i32) (v: vec3) =
  let b = mkbox 2.5
  in ( norm2 {x, y}, total xs, (swap (1, 2)).0, dot3 v v, b.item, b.count
     , diag_sum [[1, 2], [3, 4]] )
