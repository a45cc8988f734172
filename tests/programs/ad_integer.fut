-- AD of integer and boolean values, as Futhark defines it (docs/AD.md,
-- "Integers and booleans"): a partial derivative is the real one
-- evaluated in the operands' own arithmetic (wrapping, integer division);
-- comparisons, bit masks and `sgn` have none; a conversion converts the
-- tangent along; booleans have boolean tangents. Expected values by hand
-- (the derivative of each formula at the point, in that arithmetic) and
-- from Futhark's own tests (fwd_for0, imul, consume5,
-- reducebyindexvecmul0).

-- A loop over i32: d/dx x^y = y·x^(y−1), in both modes.
-- ==
-- entry: pow_jvp pow_vjp
-- input { 3 4 } output { 48 }
-- input { 9 3 } output { 59049 }

def pow (y: i32) (x: i32) = loop acc = 1 for _i < y do acc * x

entry pow_jvp (y: i32) (x: i32) = jvp (pow y) x 1

entry pow_vjp (y: i32) (x: i32) = vjp (pow y) x 1

-- Tangents wrap like the values: 2·2000000000 in i32.
-- ==
-- entry: wrapping
-- input { 2000000000 2000000000 } output { -294967296 -294967296 }

entry wrapping (x: i32) (y: i32) = (jvp (\x -> x * y) x 2, vjp (\x -> x * y) x 2)

-- Every operator on i32, as columns of the Jacobian and its row sums.
-- `/` floors and `//` truncates: ∂(x/y)/∂y = −(r/y) with r = x/y, and
-- ∂(x % y)/∂y = −(x/y); an integer exponent and a shift amount are counts.
-- ==
-- entry: binops_jvp
-- input { 7 2 1 0 }
-- output { [1, 1, 2, 0, 1, 0, 1, 14, 0, 1, 4, 0, 0, 0, 0, -1, -1, -1, 0] }
-- input { 7 2 0 1 }
-- output { [1, -1, 7, -1, -3, -1, -3, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] }
-- input { -7 1 1 0 }
-- output { [1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 2, 0, 0, 0, 0, -1, -1, -1, 0] }
-- input { -7 1 0 1 }
-- output { [1, -1, -7, 7, 7, 7, 7, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0] }

-- ==
-- entry: binops_vjp
-- input { 7 2 } output { 22 0 }
-- input { -7 1 } output { 8 22 }

def binops (x: i32, y: i32) =
  [x + y, x - y, x * y, x / y, x % y, x // y, x %% y, x ** y,
   i32.min x y, i32.max x y, x << y, x >> y, x & y, x | y, x ^ y,
   i32.abs (x - 10), !x, -x, i32.sgn x]

entry binops_jvp (x: i32) (y: i32) (dx: i32) (dy: i32) = jvp binops (x, y) (dx, dy)

entry binops_vjp (x: i32) (y: i32) = vjp binops (x, y) (replicate 19 1)

-- Conversions convert the tangent along (i8 wraps 300 to 44, i32.f64
-- truncates 1.5), and the adjoint back.
-- ==
-- entry: conv_jvp
-- input { 2.7 300 1.5 300 } output { 1 300.0 300i64 44i8 1.5f32 }

-- ==
-- entry: conv_vjp
-- input { 2.7 300 } output { 3.5 11 }

def conv (x: f64, n: i32) = (i32.f64 x, f64.i32 n, i64.i32 n, i8.i32 n, f32.f64 x)

entry conv_jvp (x: f64) (n: i32) (dx: f64) (dn: i32) = jvp conv (x, n) (dx, dn)

entry conv_vjp (x: f64) (n: i32) = vjp conv (x, n) (3, 2.5, 4, 5, 0.5)

-- Booleans: `a && b` is `if a then b else false`, so the tangent of the
-- branch taken; `!` passes it on; comparisons have none.
-- ==
-- entry: bools_jvp
-- input { true false 3.0 } output { true false true 1.0 false 1.0 }
-- input { false true 3.0 } output { false true true 2.0 false 1.0 }

-- ==
-- entry: bools_vjp
-- input { true false 3.0 } output { true true 1.0 }
-- input { false false 3.0 } output { true true 2.0 }

def bools (a: bool, b: bool, x: f64) =
  (a && b, a || b, !a, if a then x else 2 * x, x > 1, f64.bool a)

entry bools_jvp (a: bool) (b: bool) (x: f64) = jvp bools (a, b, x) (true, true, 1)

entry bools_vjp (a: bool) (b: bool) (x: f64) =
  vjp bools (a, b, x) (true, true, true, 1, true, 1)

-- SOACs over integers: the product of the others (with a zero), the
-- first maximal element, suffix sums, scan and hist products, scatter.
-- ==
-- entry: product_vjp
-- input { [0, 2, 3] } output { [6, 0, 0] }
-- input { [1, 2, 3] } output { [6, 3, 2] }

entry product_vjp (xs: []i32) = vjp i32.product xs 1

-- ==
-- entry: product_jvp
-- input { [0, 2, 3] [1, 1, 1] } output { 6 }

entry product_jvp (xs: []i32) (d: []i32) = jvp i32.product xs d

-- ==
-- entry: maximum_vjp
-- input { [3, 5, 5, 1] } output { [0, 1, 0, 0] }

entry maximum_vjp (xs: []i32) = vjp i32.maximum xs 1

-- ==
-- entry: maximum_jvp
-- input { [3, 5, 5, 1] [1, 2, 3, 4] } output { 2 }

entry maximum_jvp (xs: []i32) (d: []i32) = jvp i32.maximum xs d

-- ==
-- entry: scan_vjp
-- input { [1, 2, 3] } output { [3, 2, 1] [9, 4, 2] }

entry scan_vjp (xs: []i32) =
  (vjp (scan (+) 0) xs (map (\_ -> 1) xs), vjp (\xs -> i32.sum (scan (*) 1 xs)) xs 1)

-- ==
-- entry: hist_vjp
-- input { [0, 2, 3, 4] } output { [12, 1, 0, 0] }

entry hist_vjp (xs: []i32) = vjp (\xs -> hist (*) 1 2 [0, 1, 0, 0] xs) xs [1, 1]

-- ==
-- entry: scatter_vjp
-- input { [1, 1, 1, 1] [5, 6] } output { [0, 2, 0, 4] [1, 3] }

entry scatter_vjp (xs: []i32) (vs: []i32) =
  vjp (\(xs, vs) -> scatter (copy xs) [0, 2] vs) (xs, vs) [1, 2, 3, 4]

-- A while loop carrying a counter: a₃ = x⁴ + x + 2, derivative 4x³ + 1.
-- ==
-- entry: while_ad
-- input { 2i64 } output { 33i64 33i64 }

def w (x: i64) =
  let (a, _) = loop (a, i) = (x, 0) while i < 3 do (a * x + i, i + 1)
  in a

entry while_ad (x: i64) = (jvp w x 1, vjp w x 1)

-- An index carried beside a float is constant: only the maximum gets an
-- adjoint (and no integer adjoint is computed for the index).
-- ==
-- entry: argmax_vjp
-- input { [1.0, 3.0, 2.0] } output { [0.0, 2.0, 0.0] }

entry argmax_vjp (xs: []f64) =
  vjp (\xs ->
         let (v, _) = reduce (\(a, i) (b, j) -> if a >= b then (a, i) else (b, j))
                             (f64.lowest, -1) (zip xs (indices xs))
         in v * 2)
      xs 1

-- `>>>` is a division by a power of two, as `>>`: ∂(x >>> y)/∂x is
-- 1 >>> y in i32 (the shift amount is a count).
-- ==
-- entry: ushr
-- input { -8 0 } output { 3 3 }
-- input { -8 1 } output { 0 0 }

entry ushr (x: i32) (y: i32) = (jvp (\x -> x >>> y) x 3, vjp (\x -> x >>> y) x 3)

-- `to_bits` and `from_bits` reinterpret the tangent along, and the
-- adjoint back, as Futhark's conversions do.
-- ==
-- entry: bits
-- input { 2.5 1.0 } output { 4607182418800017408u64 1.0 1.0 }

entry bits (x: f64) (dx: f64) =
  ( jvp f64.to_bits x dx
  , jvp (\x -> f64.from_bits (f64.to_bits x)) x dx
  , vjp (\x -> f64.from_bits (f64.to_bits x)) x dx
  )
