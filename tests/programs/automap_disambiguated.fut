-- The ambiguous program of automap_ambiguous.fut with the map written
-- out is accepted.
-- ==
-- input { [[1f32, 2f32], [3f32, 4f32], [5f32, 6f32]] }
-- output { 8i64 }
-- input { empty([0][3]f32) }
-- output { 1i64 }

entry main (xss: [][]f32) = i64.product (map length xss)
