-- Integer module functions sum product minimum maximum (neutral elements
-- on empty input: 0, 1, highest, lowest) and min max abs sgn neg, at
-- i32, i64, u8 (unsigned order, wrapping sums) and i8 (abs of the most
-- negative value wraps).
-- ==
-- entry: i32agg
-- input { [3, -1, 4] }
-- output { 6 -12 -1 4 }
-- input { empty([0]i32) }
-- output { 0 1 2147483647 -2147483648 }

-- ==
-- entry: i32bin
-- input { -5 3 }
-- output { -5 3 5 -1 5 }
-- input { 0 0 }
-- output { 0 0 0 0 0 }
-- input { 7 -7 }
-- output { -7 7 7 1 -7 }

-- ==
-- entry: i64agg
-- input { [100000i64, 100000i64] }
-- output { 200000i64 10000000000i64 100000i64 100000i64 }

-- ==
-- entry: u8fns
-- input { 200u8 100u8 }
-- output { 100u8 200u8 1u8 200u8 56u8 }
-- input { 0u8 1u8 }
-- output { 0u8 1u8 0u8 0u8 0u8 }

-- ==
-- entry: u8sum
-- input { [200u8, 100u8] }
-- output { 44u8 32u8 200u8 }

-- ==
-- entry: i8fns
-- input { -128i8 }
-- output { -128i8 -128i8 -1i8 }
-- input { 5i8 }
-- output { 5i8 -5i8 1i8 }

entry i32agg (xs: []i32) = (i32.sum xs, i32.product xs, i32.minimum xs, i32.maximum xs)

entry i32bin (a: i32) (b: i32) = (i32.min a b, i32.max a b, i32.abs a, i32.sgn a, i32.neg a)

entry i64agg (xs: []i64) = (i64.sum xs, i64.product xs, i64.minimum xs, i64.maximum xs)

entry u8fns (a: u8) (b: u8) = (u8.min a b, u8.max a b, u8.sgn a, u8.abs a, u8.neg a)

entry u8sum (xs: []u8) = (u8.sum xs, u8.product xs, u8.maximum xs)

entry i8fns (a: i8) = (i8.abs a, i8.neg a, i8.sgn a)
