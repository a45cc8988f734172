-- Dead user code that fails is kept beside a reverse-mode derivative, so
-- the fast evaluator reports the same error as the small-step semantics:
-- only the code AD makes may be dropped although it could fail
-- (docs/ARCHITECTURE.md, "Dead code that may fail is kept").
-- ==
-- entry: main
-- input { [1.0, 2.0] 3.0 }
-- error: out of bounds
-- input { [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0] 3.0 }
-- output { 6.0 }

def f (x: f64) = x * x

entry main (a: []f64) (x: f64) = let _u = a[10] in vjp f x 1.0
