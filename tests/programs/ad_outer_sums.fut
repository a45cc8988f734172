-- A matrix used inside a map gets one outer product per element as its
-- adjoint; their sum is a matrix product (`core::contract`), made directly
-- in the map's body or under a map inside it, and over no element at all.
-- The expected gradients were computed independently, element by element.
-- ==
-- entry: layer_grad
-- input { [[0.5, -0.25, 1.0], [0.1, 0.2, -0.3]]
--         [[1.0, 2.0, 3.0], [-1.0, 0.5, 0.25], [0.0, 1.0, -2.0], [2.0, -1.0, 0.5]] }
-- output { [[-0.6340897468439315, 0.3851748852244672, 0.21746931523980395],
--           [1.8169092528969726, 1.7896975064867022, 2.1863216528380804]] }
-- input { [[0.5, -0.25, 1.0], [0.1, 0.2, -0.3]] empty([0][3]f64) }
-- output { [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]] }

-- ==
-- entry: layers_grad
-- input { [[[0.5, -0.25, 1.0], [0.1, 0.2, -0.3]], [[1.0, 0.0, -1.0], [0.3, 0.3, 0.3]]]
--         [[1.0, 2.0, 3.0], [-1.0, 0.5, 0.25], [0.0, 1.0, -2.0], [2.0, -1.0, 0.5]] }
-- output { [[[-0.6340897468439315, 0.3851748852244672, 0.21746931523980395],
--            [1.8169092528969726, 1.7896975064867022, 2.1863216528380804]],
--           [[0.15164923652002893, 0.17145326872606104, 0.23110786086009688],
--            [0.7531648060660878, 0.7974504938889654, -0.8599991801767324]]] }

-- ==
-- entry: f_layer
-- input { [[0.5, -0.25, 1.0], [0.1, 0.2, -0.3]]
--         [[1.0, 2.0, 3.0], [-1.0, 0.5, 0.25], [0.0, 1.0, -2.0]] }

-- ==
-- entry: f_layers
-- input { [[[0.5, -0.25], [0.1, 0.2]], [[1.0, 0.0], [0.3, 0.3]], [[-0.5, 2.0], [0.0, 1.0]]]
--         [[1.0, 2.0], [-1.0, 0.5], [0.0, 1.0]] }

-- ==
-- entry: f_shared
-- input { [[0.5, -0.25], [0.1, 0.2]] [[1.0, 2.0], [-1.0, 0.5], [0.0, 1.0]] }

def layer [m][d] (w: [m][d]f64) (x: [d]f64) = f64.sum (f64.tanh (map (\row -> f64.sum (row * x)) w))

entry f_layer [n][m][d] (w: [m][d]f64) (xs: [n][d]f64) =
  f64.sum (map (layer w) xs)

entry f_layers [n][k][m][d] (ws: [k][m][d]f64) (xs: [n][d]f64) =
  f64.sum (map (\x -> f64.sum (map (\w -> layer w x) ws)) xs)

-- Both the matrix and the points are differentiated: the points'
-- adjoints need the same products' rows.
entry f_shared [n][m][d] (w: [m][d]f64) (xs: [n][d]f64) =
  f64.sum (map (\x -> layer w x * f64.sum x) xs)

entry layer_grad [n][m][d] (w: [m][d]f64) (xs: [n][d]f64) = vjp (\w -> f_layer w xs) w 1

entry layers_grad [n][k][m][d] (ws: [k][m][d]f64) (xs: [n][d]f64) =
  vjp (\ws -> f_layers ws xs) ws 1
