-- A body whose record type differs from the declared return type: the
-- error names the fields that only one of them has.
-- ==
-- error: unshared fields: c, d.

def f (v: {a: i32, b: i32, c: i32}) : {a: i32, b: i32, d: i32} = v
