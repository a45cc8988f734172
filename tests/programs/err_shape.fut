-- Shape mismatches at run time: between zipped or mapped arrays, at a
-- sized parameter, between the rows of an array literal, and between the
-- rows produced by a map (irregular arrays).
-- ==
-- entry: zip_mismatch
-- input { [1, 2, 3] [1, 2] }
-- error: \b[Ss]hape|\b[Ss]izes?\b|\b[Dd]imension|\b[Mm]ismatch
-- input { [1, 2] [3, 4] }
-- output { [1, 2] [3, 4] }

-- ==
-- entry: map2_mismatch
-- input { [1, 2] [1.0] }
-- error: \b[Ss]hape|\b[Ss]izes?\b|\b[Dd]imension|\b[Mm]ismatch

-- ==
-- entry: map3_mismatch
-- input { [1, 2] [1, 2] [1, 2, 3] }
-- error: \b[Ss]hape|\b[Ss]izes?\b|\b[Dd]imension|\b[Mm]ismatch

-- ==
-- entry: sized_param
-- input { [1, 2, 3] [1, 2] }
-- error: \b[Ss]hape|\b[Ss]izes?\b|\b[Dd]imension|\b[Mm]ismatch

-- ==
-- entry: inner_mismatch
-- input { [[1, 2], [3, 4]] [1, 2, 3] }
-- error: \b[Ss]hape|\b[Ss]izes?\b|\b[Dd]imension|\b[Mm]ismatch
-- input { [[1, 2], [3, 4]] [10, 1] }
-- output { [[10, 2], [30, 4]] }

-- ==
-- entry: literal_rows
-- input { [1, 2] [3] }
-- error: \b[Ss]hape|\b[Ss]izes?\b|\b[Dd]imension|\b[Mm]ismatch|\b[Ii]rregular
-- input { [1, 2] [3, 4] }
-- output { [[1, 2], [3, 4]] }

entry zip_mismatch (xs: []i32) (ys: []i32) = unzip (zip xs ys)

entry map2_mismatch (xs: []i32) (ys: []f64) = map2 (\x y -> f64.i32 x + y) xs ys

entry map3_mismatch (xs: []i32) (ys: []i32) (zs: []i32) = map3 (\x y z -> x + y + z) xs ys zs

entry sized_param [n] (xs: [n]i32) (ys: [n]i32) = map2 (+) xs ys

entry inner_mismatch (m: [][]i32) (v: []i32) = map (\row -> map2 (*) row v) m

entry literal_rows (xs: []i32) (ys: []i32) = [xs, ys]
