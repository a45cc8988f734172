-- `loop p = init for x in xs do body`: over a vector, over the rows of a
-- matrix, and over an empty array (no iterations).
-- ==
-- entry: sum
-- input { [1.5, 2.5, 3.0] }
-- output { 7.0 }
-- input { empty([0]f64) }
-- output { 0.0 }

-- ==
-- entry: rows
-- input { [[1, 2], [3, 4]] }
-- output { 37 }

-- ==
-- entry: last_pos
-- input { [3, -1, 5, -2] }
-- output { 5 }
-- input { [-3] }
-- output { -1 }

-- ==
-- entry: order
-- input { [1, 2, 3] }
-- output { 123 }

entry sum (xs: []f64) = loop acc = 0 for x in xs do acc + x

entry rows (xss: [][]i32) = loop acc = 0 for row in xss do acc * 10 + reduce (+) 0 row

entry last_pos (xs: []i32) = loop best = -1 for x in xs do if x > 0 then x else best

-- Elements are visited from first to last.
entry order (xs: []i32) = loop acc = 0 for x in xs do acc * 10 + x
