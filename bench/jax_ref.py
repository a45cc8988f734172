#!/usr/bin/env python3
"""JAX's `jit` of the GPU benchmarks of docs/GPU.md, as a reference beside
`urchin bench`: the sum of squares of 10^7 f64 and its gradient, and the
k-means cost of examples/kmeans.fut and its gradient with respect to the
centers (d = 8, k = 16) at 10^5 and 10^6 points, and the GMM objective and
the MLP and the histogram of maxima of bench/run.py's workloads with
their gradients (the sizes of examples/gmm.fut's, examples/mlp.fut's and
examples/histmax.fut's datasets). It runs on JAX's default
backend (a GPU where jaxlib has one, else the CPU) and prints, per
benchmark, the best and the mean of RUNS timed calls after one warm-up
call (which compiles), in milliseconds.

    bench/jax_ref.py [--runs RUNS]
"""

import argparse

from run import best_and_mean, jax_workloads  # bench/run.py, beside this script


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=10)
    args = ap.parse_args()
    try:
        import jax
        import jax.numpy as jnp
        import numpy as np
    except ImportError:
        raise SystemExit("JAX is not installed (pip install jax)")
    jax.config.update("jax_enable_x64", True)
    rng = np.random.default_rng(0)

    def sumsq(xs):
        return jnp.sum(xs * xs)

    # As kmeans.fut: each point's squared distance to its nearest center.
    def cost(points, centers):
        d2 = jnp.sum((points[:, None, :] - centers[None]) ** 2, -1)
        return jnp.sum(jnp.min(d2, 1))

    cases = [("sumsq main, 10^7", sumsq, (rng.random(10**7),)),
             ("sumsq grad, 10^7", jax.grad(sumsq), (rng.random(10**7),))]
    for n, label in [(10**5, "10^5"), (10**6, "10^6")]:
        data = (rng.random((n, 8)), rng.random((16, 8)))
        cases.append((f"kmeans_cost, {label} x 8, k = 16", cost, data))
        cases.append((f"kmeans_grad, {label} x 8, k = 16",
                      jax.grad(cost, argnums=1), data))
    print(f"JAX {jax.__version__} on {jax.devices()[0]}; {args.runs} runs; ms")
    print(f"{'benchmark':36} {'best':>9} {'mean':>9}")
    for name, fn, data in cases:
        f = jax.jit(fn)
        data = tuple(jnp.asarray(a) for a in data)
        best, mean = best_and_mean(lambda: jax.block_until_ready(f(*data)), args.runs)
        print(f"{name:36} {best / 1e3:9.3f} {mean / 1e3:9.3f}")
    workloads = jax_workloads()
    for name in ("gmm", "mlp", "histmax"):
        fn, data, wrt = workloads[name]
        for what, f in (("main", fn), ("grad", jax.grad(fn, argnums=wrt))):
            f = jax.jit(f)
            best, mean = best_and_mean(lambda: jax.block_until_ready(f(*data)), args.runs)
            print(f"{name + ' ' + what:36} {best / 1e3:9.3f} {mean / 1e3:9.3f}")


if __name__ == "__main__":
    main()
