-- Products and their derivatives where factors are zero, tiny or huge
-- (issue 14). The adjoint of a product is the product of the other
-- factors, computed by prefix and suffix products: no division, so no
-- NaN at zeros, no 0/0 under underflow, and second derivatives (`vjp` or
-- `jvp` of the gradient) are exact. Expected values are JAX's: the
-- Hessian of x₀x₁x₂ has H[i][j] = x_k (the third factor) off the diagonal
-- and 0 on it.

def grad (xs: []f64) = vjp f64.product xs 1

-- ==
-- entry: product_grad
-- input { [0.0, 2.0, 3.0] } output { [6.0, 0.0, 0.0] }
-- input { [0.0, 0.0, 3.0] } output { [0.0, 0.0, 0.0] }
-- input { [1e-200, 1e-200, 1e200] } output { [1.0, 1.0, 0.0] }
-- input { [1e200, 1e200, 1e-200] } output { [1.0, 1.0, f64.inf] }

entry product_grad (xs: []f64) = grad xs

-- Second order: the Hessian's row for direction e₀ (and e₁), both ways.
-- ==
-- entry: product_vjp_vjp product_jvp_vjp
-- input { [0.0, 2.0, 3.0] [1.0, 0.0, 0.0] } output { [0.0, 3.0, 2.0] }
-- input { [0.0, 2.0, 3.0] [0.0, 1.0, 0.0] } output { [3.0, 0.0, 0.0] }
-- input { [0.0, 0.0, 3.0] [1.0, 0.0, 0.0] } output { [0.0, 3.0, 0.0] }
-- input { [0.0, 0.0, 0.0] [1.0, 1.0, 1.0] } output { [0.0, 0.0, 0.0] }
-- input { [1.0, 2.0, 3.0] [1.0, 0.0, 0.0] } output { [0.0, 3.0, 2.0] }

entry product_vjp_vjp (xs: []f64) (d: []f64) = vjp grad xs d

entry product_jvp_vjp (xs: []f64) (d: []f64) = jvp grad xs d

-- The same through `hist (*)`: bin 0 gets x₀·x₂·x₃, bin 1 gets x₁.
def hgrad (xs: []f64) = vjp (\xs -> f64.sum (hist (*) 1 2 [0, 1, 0, 0] xs)) xs 1

-- ==
-- entry: hist_grad
-- input { [0.0, 5.0, 2.0, 3.0] } output { [6.0, 1.0, 0.0, 0.0] }
-- input { [1e-200, 5.0, 1e-200, 1e200] } output { [1.0, 1.0, 1.0, 0.0] }

entry hist_grad (xs: []f64) = hgrad xs

-- ==
-- entry: hist_vjp_vjp hist_jvp_vjp
-- input { [0.0, 5.0, 2.0, 3.0] [1.0, 0.0, 0.0, 0.0] } output { [0.0, 0.0, 3.0, 2.0] }
-- input { [0.0, 5.0, 2.0, 3.0] [0.0, 0.0, 1.0, 0.0] } output { [3.0, 0.0, 0.0, 0.0] }
-- input { [0.0, 5.0, 0.0, 3.0] [1.0, 0.0, 0.0, 0.0] } output { [0.0, 0.0, 3.0, 0.0] }

entry hist_vjp_vjp (xs: []f64) (d: []f64) = vjp hgrad xs d

entry hist_jvp_vjp (xs: []f64) (d: []f64) = jvp hgrad xs d
