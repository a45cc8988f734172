#!/usr/bin/env python3
"""The benchmark table of the examples (issue 16), in one invocation.

For every example it runs `urchin bench --threads N --json` on its
`compiled` dataset (one thread, then N, side by side) and prints:

- each entry's mean time on one thread and on N, and the speed-up;
- the gradient / primal ratio (on N threads), or for `tabif` the
  `tabulate` with an `if` against its `if`-free twin;
- peak live memory (from the warm-up run);
- NumPy's MRI-Q on data of the same size, timed beside it (if NumPy is
  installed: `pip install numpy`);
- JAX's `jit` of each workload's function and of its gradient on data of
  the same sizes (if JAX is installed: `pip install jax`): sum of
  squares, k-means, GMM, the MLP, the RNN, the running sum, the histogram
  of maxima and ADBench's LSTM (its Jacobian: the gradient of its one
  output). Like for like: JAX as it runs by default (its thread pools
  over every core) against urchin's best on N threads, and JAX held to
  one core (a process of its own, pinned, XLA's pools of one thread)
  against urchin's best on one thread.

The evaluator runs alone (`--device none`) unless `--device` says
otherwise: `auto` times urchin's own choice of device (an OpenCL driver,
e.g. PoCL on a CPU, where a region pays), and `both` times each entry
with `none` and with `auto` and adds two columns: `auto`'s time on N
threads and its ratio to the better of the two, marked `!` above 1.2×
(issue 41 asks that `auto` never lose more than that).

Times on a shared machine are noisy: compare the ratios measured in one
invocation, and read them with the load printed at the top.

    bench/run.py [--urchin target/release/urchin] [--threads N] [--runs R]
                 [--only sumsq,mriq,...] [--device none|auto|both]
"""

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# `auto` losing more than this to the better of `none` and `auto` is marked.
AUTO_SLACK = 1.2

# example file, primal entry, gradient entry (for `tabif`: the `if`-free
# twin, then the `tabulate` with an `if`)
WORKLOADS = [
    ("sumsq", "main", "grad"),
    ("kmeans", "kmeans_cost", "kmeans_grad"),
    ("mriq", "main", "grad"),
    ("gmm", "main", "grad"),
    ("lstm", "main", "grad"),
    ("logreg", "loss", "grad"),
    ("linreg", "loss", "grad"),
    ("histgen", "main", "grad"),
    ("linrec", "main", "grad"),
    ("mlp", "main", "grad"),
    ("rnn", "main", "grad"),
    ("cumsum", "main", "grad"),
    ("histmax", "main", "grad"),
    ("adlstm", "main", "grad"),
    ("tabif", "twin", "main"),
]


def fmt_time(us):
    if us < 1000:
        return f"{us:.1f}µs"
    if us < 1e6:
        return f"{us / 1e3:.2f}ms"
    return f"{us / 1e6:.3f}s"


def fmt_bytes(b):
    for unit in ["B", "KiB", "MiB", "GiB"]:
        if b < 1024 or unit == "GiB":
            return f"{b:.0f}{unit}" if unit == "B" else f"{b:.1f}{unit}"
        b /= 1024


def bench_file(urchin, name, threads, runs, device):
    """The measurements of the file's compiled datasets with `--device
    device`, per entry and thread count: {entry: {threads: measurement}}."""
    path = ROOT / "examples" / f"{name}.fut"
    cmd = [str(urchin), "bench", "--json", "--runs", str(runs),
           "--threads", str(threads), "--device", device, str(path)]
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if out.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{out.stderr}")
    rows = {}
    for m in json.loads(out.stdout):
        # Only the big dataset (the `random` one), not the small checks.
        if not m["dataset"].startswith("random"):
            continue
        # "N threads" alone, or "BACKEND, N threads" where a device is
        # chosen: the device's rows then, the evaluator's where none is.
        backend, _, threads = m["backend"].rpartition(", ")
        t = int(threads.split()[0])
        entry = rows.setdefault(m["entry"], {})
        if backend != "evaluator" or t not in entry:
            entry[t] = m
    return rows


def numpy_mriq(runs):
    """NumPy's MRI-Q, k = 2048, n = 4096 (the dataset of mriq.fut), best
    and mean of `runs`, in microseconds; None without NumPy."""
    try:
        import numpy as np
    except ImportError:
        return None
    rng = np.random.default_rng(0)
    k, n = 2048, 4096
    kx, ky, kz, pr, pi = (rng.random(k) for _ in range(5))
    x, y, z = (rng.random(n) for _ in range(3))

    def mriq():
        mag = pr * pr + pi * pi
        arg = 2 * np.pi * (np.outer(x, kx) + np.outer(y, ky) + np.outer(z, kz))
        return np.cos(arg) @ mag, np.sin(arg) @ mag

    return best_and_mean(mriq, runs)


def best_and_mean(fn, runs):
    """`fn()` once to warm up, then `runs` times: best and mean, in
    microseconds."""
    fn()
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1e6)
    return min(times), sum(times) / len(times)


def jax_workloads():
    """JAX transcriptions of the workloads, on random data of the sizes of
    their `compiled` datasets: {name: (function, its arguments, the
    positions of the arguments its gradient is taken with respect to)};
    None without JAX."""
    try:
        import jax
        import jax.numpy as jnp
        import numpy as np
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)
    rng = np.random.default_rng(0)

    def data(*shapes):
        return tuple(jnp.asarray(rng.random(s)) for s in shapes)

    def sumsq(xs):
        return jnp.sum(xs * xs)

    def kmeans(points, centers):
        d2 = jnp.sum((points[:, None, :] - centers[None]) ** 2, -1)
        return jnp.sum(jnp.min(d2, 1))

    gmm_x = data((1000, 8))[0]
    gamma, wishart_m = 1.0, 3

    def logsumexp(v):
        top = jnp.max(v, axis=-1, keepdims=True)
        return jnp.squeeze(top, -1) + jnp.log(jnp.sum(jnp.exp(v - top), axis=-1))

    def gmm(alphas, means, qs, ls):
        n, d = gmm_x.shape
        lower = jnp.tril(ls, -1)
        qsums = qs.sum(1)
        diff = gmm_x[:, None, :] - means[None]
        qdiff = jnp.exp(qs)[None] * diff + jnp.einsum("kij,nkj->nki", lower, diff)
        inner = alphas[None] - 0.5 * jnp.sum(qdiff ** 2, -1) + qsums[None]
        prior = (0.5 * gamma * gamma
                 * (jnp.sum(jnp.exp(qs) ** 2, 1) + jnp.sum(lower ** 2, (1, 2)))
                 - wishart_m * qsums)
        return (-n * d * 0.5 * jnp.log(2 * jnp.pi) + logsumexp(inner).sum()
                - n * logsumexp(alphas) + prior.sum())

    def mlp(w1, b1, w2, b2, x, y):
        out = jnp.tanh(x @ w1 + b1) @ w2 + b2
        return jnp.sum((out - y) ** 2)

    def rnn(w, u, b, xs, y):
        def step(h, x):
            return jnp.tanh(w @ h + u @ x + b), None
        h, _ = jax.lax.scan(step, jnp.zeros(w.shape[0]), xs)
        return jnp.sum((h - y) ** 2)

    def adlstm(params, extra, state, seq):
        def cell(w, bias, hid, c, x):
            forget = jax.nn.sigmoid(x * w[0] + bias[0])
            ingate = jax.nn.sigmoid(hid * w[1] + bias[1])
            outgate = jax.nn.sigmoid(x * w[2] + bias[2])
            change = jnp.tanh(hid * w[3] + bias[3])
            c = c * forget + ingate * change
            return outgate * jnp.tanh(c), c

        def step(state, pair):
            x, gold = pair
            x = x * extra[0]
            layers = []
            for i in range(params.shape[0]):
                h, c = cell(params[i, 0], params[i, 1], state[i, 0], state[i, 1], x)
                layers.append(jnp.stack([h, c]))
                x = h
            ypred = x * extra[1] + extra[2]
            return jnp.stack(layers), jnp.sum(gold * (ypred - logsumexp(ypred)))

        _, totals = jax.lax.scan(step, state, (seq[:-1], seq[1:]))
        return -jnp.sum(totals) / ((seq.shape[0] - 1) * seq.shape[1])

    def cumsum(xs):
        return jnp.sum(jnp.cumsum(xs) ** 2)

    n = 10**6
    bins = jnp.asarray((np.arange(n) * 7919) % 1000)

    def histmax(vs):
        m = jax.ops.segment_max(vs, bins, num_segments=1000)
        return jnp.sum(m * m)

    return {
        "sumsq": (sumsq, data((10**7,)), (0,)),
        "kmeans": (kmeans, data((10**5, 8), (16, 8)), (1,)),
        "gmm": (gmm, data((5,), (5, 8), (5, 8), (5, 8, 8)), (0, 1, 2, 3)),
        "mlp": (mlp, data((100, 64), (64,), (64, 10), (10,), (1000, 100), (1000, 10)),
                (0, 1, 2, 3)),
        "rnn": (rnn, data((64, 64), (64, 64), (64,), (50, 64), (64,)), (0, 1, 2)),
        "adlstm": (adlstm, data((2, 2, 4, 14), (3, 14), (2, 2, 14), (1024, 14)), (0, 1)),
        "cumsum": (cumsum, data((n,)), (0,)),
        "histmax": (histmax, data((n,)), (0,)),
    }


def jax_times(workload, runs):
    """JAX's `jit` of a workload's function and of its gradient: (best,
    mean) each, in microseconds."""
    import jax
    fn, args, wrt = workload
    primal = jax.jit(fn)
    grad = jax.jit(jax.grad(fn, argnums=wrt))
    return tuple(best_and_mean(lambda f=f: jax.block_until_ready(f(*args)), runs)
                 for f in (primal, grad))


# XLA's CPU thread pools of one thread (with the process pinned to one
# core): JAX's time on one core.
ONE_CORE_XLA_FLAGS = "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"


def jax_times_one_core(name, runs):
    """`jax_times` of the workload `name` in a process of its own held to
    one core; None where that fails (JAX's error on stderr)."""
    env = dict(os.environ, XLA_FLAGS=ONE_CORE_XLA_FLAGS)
    out = subprocess.run([sys.executable, __file__, "--jax-one-core", name, "--runs", str(runs)],
                         capture_output=True, text=True, env=env)
    if out.returncode != 0:
        sys.stderr.write(out.stderr)
        return None
    return tuple(tuple(t) for t in json.loads(out.stdout))


def jax_one_core(name, runs):
    """The child of `jax_times_one_core`: pinned to one core before JAX
    starts its threads; prints the times as JSON."""
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    print(json.dumps(jax_times(jax_workloads()[name], runs)))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--jax-one-core", metavar="WORKLOAD", help=argparse.SUPPRESS)
    ap.add_argument("--urchin", default=str(ROOT / "target/release/urchin"))
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--only", default="")
    ap.add_argument("--device", choices=["none", "auto", "both"], default="none")
    args = ap.parse_args()
    if args.jax_one_core:
        return jax_one_core(args.jax_one_core, args.runs)
    only = set(filter(None, args.only.split(",")))
    if not Path(args.urchin).exists():
        sys.exit(f"{args.urchin} not found: cargo build --release first")

    n = args.threads
    load = os.getloadavg()
    both = args.device == "both"
    device = "none" if both else args.device
    print(f"urchin bench --device {device}, {args.runs} runs each, 1 thread vs {n}; "
          f"{os.cpu_count()} cores, load {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    head = (f"{'workload':<8} {'entry':<12} {'1 thread':>10} {f'{n} threads':>10} "
            f"{'speed-up':>8} {'ratio':>11} {'peak mem':>9}")
    if both:
        head += f" {f'auto {n}t':>10} {'auto/best':>10}"
    print(head)
    print("-" * len(head))
    jax_refs = jax_workloads()
    for name, primal, grad in WORKLOADS:
        if only and name not in only:
            continue
        rows = bench_file(args.urchin, name, n, args.runs, device)
        auto_rows = bench_file(args.urchin, name, n, args.runs, "auto") if both else {}
        for entry in (primal, grad):
            m = rows.get(entry, {})
            if 1 not in m:
                continue
            one = m[1]["mean_us"]
            many = m.get(n, m[1])["mean_us"]
            ratio = ""
            if entry == grad and primal in rows:
                p = rows[primal].get(n, rows[primal][1])["mean_us"]
                ratio = f"{many / p:.2f}×"
            line = (f"{name:<8} {entry:<12} {fmt_time(one):>10} {fmt_time(many):>10} "
                    f"{one / many:>7.2f}× {ratio:>11} {fmt_bytes(m[1]['peak_live_bytes']):>9}")
            a = auto_rows.get(entry, {})
            if both and a:
                auto = a.get(n, a.get(1))["mean_us"]
                lost = auto / min(auto, many)
                mark = "!" if lost > AUTO_SLACK else " "
                line += f" {fmt_time(auto):>10} {lost:>8.2f}×{mark}"
            print(line)
        if name == "mriq":
            np_t = numpy_mriq(args.runs)
            if np_t is None:
                print(f"{'':<8} {'numpy':<12} (NumPy not installed: pip install numpy)")
            else:
                best, mean = np_t
                ours = rows.get(primal, {}).get(n, rows.get(primal, {}).get(1))
                rel = f"urchin {ours['mean_us'] / mean:.2f}× NumPy's time" if ours else ""
                print(f"{'':<8} {'numpy':<12} {fmt_time(mean):>10} (best {fmt_time(best)})  {rel}")
        if jax_refs is None:
            print(f"{'':<8} {'jax':<12} (JAX not installed: pip install jax)")
        elif name in jax_refs:
            jax_runs = max(args.runs, 20)
            jax_t = jax_times(jax_refs[name], jax_runs)
            one_core = jax_times_one_core(name, jax_runs) or (None, None)
            for entry, (best, mean), one in zip((primal, grad), jax_t, one_core):
                m = rows.get(entry, {})
                line = f"{'':<8} {'jax ' + entry:<12} {fmt_time(mean):>10} (best {fmt_time(best)})"
                if n in m:
                    line += f"  urchin ({n} threads) {m[n]['min_us'] / best:.2f}× JAX's best"
                if one is not None:
                    line += f"; one core: JAX {fmt_time(one[1])} (best {fmt_time(one[0])})"
                    if 1 in m:
                        line += f", urchin (1 thread) {m[1]['min_us'] / one[0]:.2f}×"
                print(line)
    load = os.getloadavg()
    print(f"load at the end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


if __name__ == "__main__":
    main()
