-- `assert c e` returns e when c holds (the failing case is in
-- err_assert.fut).
-- ==
-- input { 3 }
-- output { 6 }
-- input { 100 }
-- output { 200 }

entry main (x: i32) = assert (x > 0) (x * 2)
