"""Where the time of one LSVI / NGD iteration goes: its parts, each jitted alone, against the log target.

For one configuration of `bench_iteration.py` (same synthetic data, state and Table 3 schedule)
we jit every part of the iteration separately and time them interleaved (part 1, part 2, …,
part 1, …) so that a change of machine load hits all alike; we report the minimum over the
repeats and its ratio to the log-target evaluation on the same N draws:

    step            the whole iteration (= `bench_iteration.py`'s "iteration")
    target          log_target(key, X) on N draws X ~ q_η (the unavoidable part)
    normals         the N × d standard normals Z (threefry + inverse erf)
    normals+X       Z and X = μ + ZCᵀ (or μ + σ ⊙ Z)
    residual dot    η̃ᵀs(X) (N,) of Algorithm 4's residual variance
    control         Algorithm 4 as a whole (backtracking + residual variance)
    gamma           Alg. 2/3: γ̂ of eq. (20) (Alg. 3: the d × d moment G = N⁻¹ Zᵀdiag(f)Z)
    statistic, ols  Alg. 1: the (N, m) design s(X) and the OLS (normal equations)
    gradient, fim+solve   NGD: reparameterisation gradient (forward + reverse pass through the
                    target) and the Monte Carlo Fisher matrix with its Cholesky solve

Parts jitted alone are not exactly the parts inside the fused step (XLA fuses across them), so
the ratios do not add up exactly to the step's; they show which parts cost as much as the target.

    python benchmarks/profile_iteration.py sonar alg3 10000
    python benchmarks/profile_iteration.py pima ngd_fc 10000 --repeats 15 --json prof.json
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def parts(shape: str, algo: str, N: int, n_override=None):
    """{name: (jitted function, args)} for the parts of one configuration's iteration."""
    import jax
    import jax.numpy as jnp

    from bench_iteration import ALGORITHMS, build
    from lsvi.core import algorithms, step_size
    from lsvi.core.algorithms import lsvi_fc, lsvi_generic, lsvi_mf, ngd

    step, state, family, log_target = build(shape, algo, N, n_override)
    d, eta = family.dim, state.eta
    key = jax.random.PRNGKey(0)
    name = "ngd" if algo.startswith("ngd") else algo
    regression = algorithms.build_regression(name, family, log_target, N)
    P, y, eta_new = jax.jit(regression)(key, eta)
    Z = jax.random.normal(key, (N, d), dtype=eta.dtype)
    X = jax.jit(family.reparameterise)(eta, Z)
    u2 = step_size.table3(ALGORITHMS[algo][1]).u2
    out = {
        "step": (jax.jit(step), (key, state)),
        "target": (jax.jit(log_target), (key, X)),
        "normals": (jax.jit(lambda k: jax.random.normal(k, (N, d), dtype=eta.dtype)), (key,)),
        "normals+X": (jax.jit(lambda k, e: family.sample(k, e, N)), (key, eta)),
        "residual dot": (jax.jit(family.dot), (eta_new, X)),
        "control": (jax.jit(lambda e, en, P, y: step_size.control(1.0, u2, family, e, en, P, y)), (eta, eta_new, P, y)),
    }
    if algo == "alg1":
        out["statistic"] = (jax.jit(family.statistic), (X,))
        out["ols"] = (jax.jit(lsvi_generic.ols), (family.statistic(X), y))
        out["statistic+ols"] = (jax.jit(lambda X, y: lsvi_generic.ols(family.statistic(X), y)), (X, y))
    elif algo in ("alg2", "alg3"):
        mod = lsvi_fc if algo == "alg3" else lsvi_mf
        out["gamma"] = (jax.jit(mod.estimate_gamma), (Z, y))
    else:
        w = jnp.full((N,), 1.0 / N, dtype=eta.dtype)
        out["gradient"] = (jax.jit(lambda e, Z: ngd.reparam_gradient(family, e, Z, w, log_target, key)), (eta, Z))
        g = jnp.ones(family.num_params - 1, eta.dtype)
        out["fim+solve"] = (
            jax.jit(lambda X, g: jax.scipy.linalg.solve(ngd.fisher_mc(family, X, w), g, assume_a="pos")), (X, g))
    return out


def profile(shape: str, algo: str, N: int, repeats: int = 10, n_override=None) -> dict:
    """Minimum wall time (s) of every part over ``repeats`` interleaved rounds."""
    import jax

    import lsvi  # noqa: F401  (float64)

    fs = parts(shape, algo, N, n_override)
    for f, a in fs.values():
        jax.block_until_ready(f(*a))  # compile + first run
    times = {k: [] for k in fs}
    for _ in range(repeats):
        for k, (f, a) in fs.items():
            t0 = time.perf_counter()
            jax.block_until_ready(f(*a))
            times[k].append(time.perf_counter() - t0)
    return {k: min(v) for k, v in times.items()}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("shape", choices=["pima", "sonar", "mnist"])
    p.add_argument("algo", choices=["alg1", "alg2", "alg3", "ngd_fc", "ngd_mf"])
    p.add_argument("N", type=int)
    p.add_argument("--n", type=int, default=None, help="override the number of observations n")
    p.add_argument("--repeats", type=int, default=10)
    p.add_argument("--json", default=None, help="append the result (one JSON line) to this file")
    args = p.parse_args(argv)
    res = profile(args.shape, args.algo, args.N, args.repeats, args.n)
    t = res["target"]
    print(f"{args.shape}/{args.algo}/N={args.N} (min of {args.repeats}; ratio to the target)")
    for k, v in res.items():
        print(f"  {k:14s} {v * 1e3:9.2f} ms  {v / t:5.2f}")
    if args.json:
        with open(args.json, "a") as fh:
            fh.write(json.dumps({"shape": args.shape, "algo": args.algo, "N": args.N, "repeats": args.repeats,
                                 "min_s": res}) + "\n")


if __name__ == "__main__":
    main()
