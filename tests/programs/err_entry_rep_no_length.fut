-- An entry point returns data, and every array of data has a length: a
-- written `rep` whose array reaches the result with no length that
-- sizes determine is a type error (it was printed as `rep([1, 2])`).
-- With a length (`: [n][m]i32`, or mapped with an array) it is
-- replicated (tests/programs/automap_rep_lengths.fut).
-- ==
-- error: returns the array this `rep` makes, whose length nothing determines

entry main (ys: []i32) = rep ys
