-- An invalid range is a run-time error naming its bounds, in Futhark's
-- words: a zero stride, or one that runs away from the end.
-- ==
-- entry: up
-- input { 5 2 }
-- error: Range 5\.\.<2 is invalid
-- input { 2 2 }
-- output { empty([0]i32) }

-- ==
-- entry: stride
-- input { 10 20 }
-- error: Range 10\.\.10\.\.\.20 is invalid
-- input { 20 -10 }
-- error: Range 20\.\.20\.\.\.-10 is invalid

-- ==
-- entry: down
-- input { 1 4 }
-- error: Range 1\.\.0\.\.>4 is invalid

-- ==
-- entry: in_map
-- input { [3, 1, 2] }
-- error: Range 0\.\.1\.\.<-3 is invalid

entry up (a: i32) (b: i32) = a..<b

entry stride (a: i32) (b: i32) = a..a...b

entry down (a: i32) (b: i32) = a..a-1..>b

entry in_map (xs: []i32) = map (\x -> i32.sum (0..1..<(2 - x) * 3)) xs
