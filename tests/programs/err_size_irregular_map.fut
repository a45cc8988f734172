-- A map whose function returns arrays of a size that depends on the
-- element (an irregular array) is refused when the program is checked.
-- ==
-- error: Cannot apply "map".*depends on the element

entry irregular_map (ns: []i64) = map (\n -> iota n) ns
