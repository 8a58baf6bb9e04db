"""Per-iteration wall time of LSVI (Algorithms 1–3) and NGD on logistic-regression targets.

For each configuration (data shape × algorithm × N draws) we time, after a jit warm-up,
one iteration ``step(key, state)`` and, on draws from the same q̄_η, the log-target
evaluation alone; both with ``block_until_ready``, interleaved (iteration, target,
iteration, …) so that a change of machine load hits both alike; we report medians and
their ratio (iteration / target). Each configuration runs in its own subprocess so that
the peak resident set size (``resource.getrusage``) is that configuration's.

Synthetic data shaped like the paper's (Table 2): Pima d = 9, n = 768; Sonar d = 61,
n = 208; MNIST d = 784, n = 11,774 (mean field only). Prior variances of Appendix C.2.
Initial η (Appendix C.2): N(0, I) (Pima, Sonar), N(0, e⁻²I) (MNIST). Schedules (Table 3):
Alg. 1 sch. 3, Alg. 2 sch. 5, Alg. 3 sch. 1, NGD-FC sch. 2, NGD-MF sch. 5.

    python benchmarks/bench_iteration.py --quick      # < 2 min on 2 cores
    python benchmarks/bench_iteration.py              # default grid, < ~10 min
    python benchmarks/bench_iteration.py --only alg3  # substring filter on the config name

Writes a Markdown table to stdout and to benchmarks/results.md (``--out``).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

# name -> (d, n, intercept, init variance)
SHAPES = {
    "pima": (9, 768, True, 1.0),
    "sonar": (61, 208, True, 1.0),
    "mnist": (784, 11_774, False, float("nan")),  # e⁻², set below
}
# algorithm -> (family kind, Table 3 schedule index)
ALGORITHMS = {
    "alg1": ("fullcov", 3),
    "alg2": ("meanfield", 5),
    "alg3": ("fullcov", 1),
    "ngd_fc": ("fullcov", 2),
    "ngd_mf": ("meanfield", 5),
}

# (shape, algorithm, N, n override or None, repeats)
QUICK = [
    ("pima", "alg1", 1_000, None, 3),
    ("pima", "alg3", 10_000, None, 3),
    ("pima", "ngd_fc", 10_000, None, 3),
    ("pima", "alg2", 10_000, None, 3),
    ("sonar", "alg3", 10_000, None, 3),
    ("mnist", "alg2", 1_000, 2_000, 3),
]
DEFAULT = [
    ("pima", "alg1", 1_000, None, 5),
    ("pima", "alg1", 10_000, None, 5),
    ("pima", "alg1", 100_000, None, 3),
    ("pima", "alg3", 1_000, None, 5),
    ("pima", "alg3", 10_000, None, 5),
    ("pima", "alg3", 100_000, None, 3),
    ("pima", "ngd_fc", 10_000, None, 5),
    ("pima", "alg2", 10_000, None, 5),
    ("pima", "ngd_mf", 10_000, None, 5),
    ("sonar", "alg3", 10_000, None, 5),
    ("sonar", "alg3", 100_000, None, 3),
    ("mnist", "alg2", 1_000, None, 5),
    ("mnist", "alg2", 10_000, None, 3),
    ("mnist", "ngd_mf", 1_000, None, 3),
]


def config_name(shape, algo, N, n):
    return f"{shape}{'' if n is None else f'(n={n})'}/{algo}/N={N}"


# ----------------------------------------------------------------------- child side
def synthetic_problem(shape: str, n_override, seed: int = 0):
    """Flipped design (n, d) and prior variances shaped like the paper's data set."""
    import numpy as np

    from lsvi.core.targets import paper_prior_variance

    d, n, intercept, _ = SHAPES[shape]
    n = n_override or n
    rng = np.random.default_rng(seed)
    if shape == "mnist":
        # pixels in [0, 1], ~80 % zeros as in MNIST; no intercept
        X = rng.uniform(size=(n, d)) * (rng.uniform(size=(n, d)) < 0.2)
    else:
        X = 0.5 * rng.normal(size=(n, d))  # predictors rescaled to sd 0.5 (Appendix C.2)
        X[:, 0] = 1.0
    beta = rng.normal(size=d) / np.sqrt(d)
    y = np.where(rng.uniform(size=n) < 1.0 / (1.0 + np.exp(-X @ beta)), 1.0, -1.0)
    return y[:, None] * X, paper_prior_variance(d, intercept=intercept)


def build(shape: str, algo: str, N: int, n_override):
    """(step, state, family, log_target) for one configuration; ``step(key, state)`` is the
    kernel at the first step size of the configuration's Table 3 schedule."""
    import jax
    import jax.numpy as jnp

    from lsvi.core import algorithms, kernel
    from lsvi.core.families import gaussian_fullcov as fc_family
    from lsvi.core.families import gaussian_meanfield as mf_family
    from lsvi.core.families.gaussian import fullcov_to_natural, meanfield_to_natural
    from lsvi.core.step_size import table3
    from lsvi.core.targets import logistic_regression

    Xf, prior_var = synthetic_problem(shape, n_override)
    d = Xf.shape[1]
    log_target = logistic_regression(Xf, prior_var)
    kind, sched = ALGORITHMS[algo]
    schedule = table3(sched)
    var0 = float(jnp.exp(-2.0)) if shape == "mnist" else 1.0
    # jit the set-up: eager mode would compile every primitive separately (seconds)
    if kind == "fullcov":
        family = fc_family(d)
        eta0 = jax.jit(lambda: fullcov_to_natural(jnp.zeros(d), var0 * jnp.eye(d)))()
    else:
        family = mf_family(d)
        eta0 = jax.jit(lambda: meanfield_to_natural(jnp.zeros(d), var0 * jnp.ones(d)))()
    kern = algorithms.build_kernel("ngd" if algo.startswith("ngd") else algo, family, log_target, N)
    eps, u2 = float(schedule.eps(0)), schedule.u2
    step = lambda key, state: kern(key, state, eps, u2)
    return step, kernel.init(eta0), family, log_target


def unavoidable_parts(algo: str, family, log_target, N: int, d: int):
    """{part: (jitted fn, args)}: the work one iteration of ``algo`` cannot avoid, each a separate kernel on
    draws of the same size: drawing the N × d standard normals; the log target at N points (for NGD its value
    and gradient, reverse mode); and the regression's necessary products: the m × m Gram SᵀS and Sᵀy of the
    N × m design for Algorithm 1, the d(d+1)/2 weighted second moments Σ f(x_i) z_i z_iᵀ (one N·d² product)
    and Σ f z for Algorithm 3, Σ f z and Σ f z² (O(Nd)) for Algorithm 2. NGD's F̂⁻¹ĝ needs the same
    d(d+1)/2 (resp. d) products as Algorithms 3 (2), counted with them."""
    import jax
    import jax.numpy as jnp

    k = jax.random.PRNGKey(2)
    Z = jax.random.normal(k, (N, d))
    y = jax.random.normal(jax.random.PRNGKey(3), (N,))
    parts = {"normals": (jax.jit(lambda kk: jax.random.normal(kk, (N, d))), (k,))}
    if algo.startswith("ngd"):
        total = lambda X: jnp.sum(log_target(k, X))
        parts["target + gradient"] = (jax.jit(jax.value_and_grad(total)), (0.5 * Z,))
    else:
        parts["target"] = (jax.jit(log_target), (k, 0.5 * Z))
    if algo == "alg1":
        S = family.statistic(0.5 * Z)
        parts["Gram SᵀS, Sᵀy"] = (jax.jit(lambda S_, y_: (S_.T @ S_, S_.T @ y_)), (S, y))
    elif algo in ("alg3", "ngd_fc"):
        parts["Σ f zzᵀ, Σ f z"] = (jax.jit(lambda Z_, y_: ((Z_ * y_[:, None]).T @ Z_, Z_.T @ y_)), (Z, y))
    else:
        parts["Σ f z², Σ f z"] = (jax.jit(lambda Z_, y_: ((Z_ * Z_).T @ y_, Z_.T @ y_)), (Z, y))
    return {name: (fn, jax.block_until_ready(args)) for name, (fn, args) in parts.items()}


def run_one(shape: str, algo: str, N: int, n_override, repeats: int) -> dict:
    """Time one configuration in this process; returns a JSON-able dict."""
    import jax

    import lsvi  # noqa: F401  (float64)

    step, state, family, log_target = build(shape, algo, N, n_override)
    step_jit = jax.jit(step)
    target_jit = jax.jit(log_target)
    key = jax.random.PRNGKey(0)
    X = jax.block_until_ready(jax.jit(family.sample, static_argnums=2)(jax.random.PRNGKey(1), state.eta, N))
    parts = unavoidable_parts(algo, family, log_target, N, int(X.shape[1]))
    for fn, args in parts.values():
        jax.block_until_ready(fn(*args))  # compile
    t_parts = {name: [] for name in parts}

    t0 = time.perf_counter()
    jax.block_until_ready(step_jit(key, state))  # compile + first run
    warm_step = time.perf_counter() - t0
    t0 = time.perf_counter()
    jax.block_until_ready(target_jit(key, X))
    warm_target = time.perf_counter() - t0

    t_step, t_target = [], []
    for r in range(repeats):
        k = jax.random.fold_in(key, r + 1)
        t0 = time.perf_counter()
        jax.block_until_ready(step_jit(k, state))
        t_step.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        jax.block_until_ready(target_jit(k, X))
        t_target.append(time.perf_counter() - t0)
        for name, (fn, args) in parts.items():
            t0 = time.perf_counter()
            jax.block_until_ready(fn(*args))
            t_parts[name].append(time.perf_counter() - t0)
    med_step, med_target = statistics.median(t_step), statistics.median(t_target)
    parts_min = {name: min(t) for name, t in t_parts.items()}
    return {
        "config": config_name(shape, algo, N, n_override),
        "shape": shape,
        "algo": algo,
        "N": N,
        "d": int(X.shape[1]),
        "n": int(n_override or SHAPES[shape][1]),
        "m": int(family.num_params),
        "repeats": repeats,
        "iter_s": med_step,
        "target_s": med_target,
        "ratio": med_step / med_target,
        "iter_min_s": min(t_step),
        "target_min_s": min(t_target),
        "parts_min_s": parts_min,
        "parts_sum_min_s": sum(parts_min.values()),
        "ratio_to_parts_min": min(t_step) / sum(parts_min.values()),
        "warmup_s": warm_step + warm_target,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
    }


# ---------------------------------------------------------------------- parent side
def run_in_subprocess(cfg, timeout: float) -> dict:
    shape, algo, N, n, repeats = cfg
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", json.dumps([shape, algo, N, n, repeats])]
    t0 = time.perf_counter()
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=True)
        res = json.loads(out.stdout.strip().splitlines()[-1])
    except subprocess.TimeoutExpired:
        res = {"config": config_name(shape, algo, N, n), "error": f"timeout after {timeout:.0f} s"}
    except subprocess.CalledProcessError as e:
        res = {"config": config_name(shape, algo, N, n), "error": e.stderr.strip().splitlines()[-1][:200]}
    res["wall_s"] = time.perf_counter() - t0
    return res


def fmt_time(t):
    return f"{t * 1e3:.1f} ms" if t < 1 else f"{t:.2f} s"


GOAL_LSVI, GOAL_NGD = 1.2, 1.5  # issue 29: iteration ≤ 1.2× (NGD 1.5×) the sum of its unavoidable parts
ALGO_LABEL = {"alg1": "Alg. 1 (FC)", "alg2": "Alg. 2 (MF)", "alg3": "Alg. 3 (FC)", "ngd_fc": "NGD (FC)", "ngd_mf": "NGD (MF)"}


def markdown(results, header: str) -> str:
    lines = [
        header,
        "",
        "| data (d, n) | algorithm | m | N | iteration: median (min) | log target alone: median (min) "
        "| ratio of medians | ratio of minima | unavoidable parts (min) | iteration / their sum (min) | goal | peak RSS |",
        "|---|---|---:|---:|---:|---:|---:|---:|---|---:|---|---:|",
    ]
    for r in results:
        if "error" in r:
            lines.append(f"| {r['config']} | — | | | error: {r['error']} | | | | | | | |")
            continue
        goal = GOAL_NGD if r["algo"].startswith("ngd") else GOAL_LSVI
        parts = "; ".join(f"{k} {fmt_time(v)}" for k, v in r.get("parts_min_s", {}).items())
        rp = r.get("ratio_to_parts_min")
        met = "—" if rp is None else f"≤ {goal:g}: {'met' if rp <= goal else 'not met'}"
        lines.append(
            f"| {r['shape']} ({r['d']}, {r['n']}) | {ALGO_LABEL[r['algo']]} | {r['m']} | {r['N']:,} | "
            f"{fmt_time(r['iter_s'])} ({fmt_time(r['iter_min_s'])}) | "
            f"{fmt_time(r['target_s'])} ({fmt_time(r['target_min_s'])}) | {r['ratio']:.2f} | "
            f"{r['iter_min_s'] / r['target_min_s']:.2f} | {parts} | {'—' if rp is None else f'{rp:.2f}'} | {met} | "
            f"{r['peak_rss_mb']:.0f} MB |"
        )
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="small grid (< 2 min on 2 cores)")
    p.add_argument("--only", default=None, help="comma-separated substrings; keep the configurations whose name contains one")
    p.add_argument("--out", default=str(HERE / "results.md"), help="Markdown output ('' for none)")
    p.add_argument("--json", default=None, help="also write the raw results as JSON here")
    p.add_argument("--timeout", type=float, default=300.0, help="per-configuration timeout (s)")
    p.add_argument("--repeats", type=int, default=None, help="override the repeats of every configuration")
    p.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = p.parse_args(argv)

    if args.child is not None:
        print(json.dumps(run_one(*json.loads(args.child))))
        return

    grid = QUICK if args.quick else DEFAULT
    if args.only:
        wanted = args.only.split(",")
        grid = [c for c in grid if any(w in config_name(c[0], c[1], c[2], c[3]) for w in wanted)]
    if args.repeats is not None:
        grid = [c[:4] + (args.repeats,) for c in grid]
    import jax  # for the header only

    load0 = os.getloadavg()
    t0 = time.perf_counter()
    results = []
    for cfg in grid:
        res = run_in_subprocess(cfg, args.timeout)
        res["load_after"] = os.getloadavg()[0]  # 1-min load average when it finished
        results.append(res)
        status = res.get("error") or f"iter {fmt_time(res['iter_s'])}, ratio {res['ratio']:.2f}"
        print(f"[{time.perf_counter() - t0:6.1f} s] {res['config']}: {status}", file=sys.stderr, flush=True)
        if args.json:  # written after every configuration, so that an interrupted run keeps what it measured
            Path(args.json).write_text(json.dumps(results, indent=1))
    load1 = os.getloadavg()
    header = (
        f"## Per-iteration cost ({'quick' if args.quick else 'default'} grid)\n\n"
        f"jax {jax.__version__}, float64, {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} CPU cores ({jax.default_backend()}); load average before/after "
        f"{load0[0]:.1f}/{load1[0]:.1f}; total {time.perf_counter() - t0:.0f} s. Synthetic data shaped "
        "like the paper's; medians after a jit warm-up; ratio = iteration / log-target evaluation "
        "on the same number of draws (medians, and minima, which are less sensitive to other "
        "processes on a shared machine); unavoidable parts (`unavoidable_parts`): the N × d normals, the log "
        "target (NGD: with its gradient) and the regression's necessary products, each timed alone on draws of "
        "the same size, interleaved with the iteration (minima); peak RSS of the configuration's process "
        "(JAX runtime included). Times are wall-clock seconds (perf_counter)."
    )
    table = markdown(results, header)
    print(table)
    if args.out:
        Path(args.out).write_text(table + "\n")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
