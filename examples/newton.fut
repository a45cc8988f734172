-- | Newton's method with derivatives by forward mode: x ← x − g x / g' x,
-- where g' x is `jvp g x 1` (the tangent of g at x in direction 1). The
-- same derivative by reverse mode (`vjp g x 1`) agrees, and AUTOMAP maps a
-- whole Newton solve (a `loop`) over an array of problems.
--
-- Run it:   urchin run examples/newton.fut < examples/newton.in
-- ==
-- entry: main
-- input @ newton.in
-- output { 2.0945514815423265 }
-- input { 3.0 }
-- output { 2.0945514815423265 }

-- ==
-- entry: deriv
-- input { 2.0 }
-- output { 10.0 10.0 }
-- input { 0.0 }
-- output { -2.0 -2.0 }

-- ==
-- entry: roots
-- input { [2.0, 9.0, 0.25, 1e6] }
-- output { [1.4142135623730951, 3.0, 0.5, 1000.0] }
-- compiled random input { [1000000]f64 }

-- | Wallis's cubic, the function Newton first used: one real root.
def wallis (x: f64) = x * x * x - 2 * x - 5

-- | Newton iterations from `x0`; quadratic convergence needs few.
def newton (g: f64 -> f64) (x0: f64) =
  loop x = x0 for _i < 30 do x - g x / jvp g x 1

entry main (x0: f64) = newton wallis x0

-- | The derivative 3x² − 2 by forward and by reverse mode.
entry deriv (x: f64) = (jvp wallis x 1, vjp wallis x 1)

-- | √a as the positive root of x² − a.
def sqrt_newton (a: f64) = newton (\x -> x * x - a) (1 + a / 2)

entry roots (as: []f64) = sqrt_newton as
