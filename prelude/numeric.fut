-- | Members of every numeric module (`i32.sum`, `f64.maximum`, ...),
-- checked once per primitive numeric type with `t` standing for it. The
-- other members (`min`, `sqrt`, conversions, constants) are primitives.

def sum (xs: []t) : t = reduce (+) 0 xs

def product (xs: []t) : t = reduce (*) 1 xs

def minimum (xs: []t) : t = reduce min highest xs

def maximum (xs: []t) : t = reduce max lowest xs
