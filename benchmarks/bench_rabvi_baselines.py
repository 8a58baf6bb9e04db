"""Cost of Fig. 7's baseline curves over several seeds (notebook 41): one `run_gamma_schedule` call per seed (each a
fresh compilation, as `study_target` made them one seed at a time) against one call with the batch of keys (one
vmapped program, compiled once: what `study_seeds` does), interleaved in one process; checks both give the same curves.

    .venv/bin/python benchmarks/bench_rabvi_baselines.py                      # ~2 min on 2 idle cores
    .venv/bin/python benchmarks/bench_rabvi_baselines.py --repeats 3 --out benchmarks/rabvi_baselines.md

Settings (notebook 41 at cpu): the banded target N(0, V), V_ij = 0.8^|i−j|, d = 100, mean field, 10 draws per
gradient, 20,000 iterations, 5 seeds; the baselines Adam (fixed γ = 0.01) and RMSProp-C (cosine). CPU time of the
process (`lsvi.core.clock`), compilation included (it is paid once per call).
"""
from __future__ import annotations

import argparse
import statistics

import jax
import jax.numpy as jnp
import numpy as np

jax.config.update("jax_enable_x64", True)

from lsvi.core import clock, targets  # noqa: E402
from lsvi.core.bbvi import families, kernel  # noqa: E402
from lsvi.papers.rabvi import gaussian as rg  # noqa: E402

D, NUM_STEPS, SEEDS, BASELINES = 100, 20_000, range(5), ("Adam", "RMSProp-C")


def setting(label):
    V = rg.covariance("banded", D)
    fam = families.meanfield(D)
    o, kind = rg.BASELINES[label]
    bb = kernel.build(fam, targets.gaussian_logdensity(jnp.asarray(np.linalg.inv(V))), rg._optimizer(o), 10)
    keys = jnp.stack([jax.random.fold_in(jax.random.PRNGKey(s), 1) for s in SEEDS])
    return bb, rg.schedule(kind, NUM_STEPS), keys


def per_seed(bb, gammas, keys):
    t0 = clock.seconds()
    avg = np.stack([rg.run_gamma_schedule(bb, jnp.zeros(2 * D), gammas, k).averages for k in keys])
    return clock.seconds() - t0, avg


def batched(bb, gammas, keys):
    t0 = clock.seconds()
    avg = rg.run_gamma_schedule(bb, jnp.zeros(2 * D), gammas, keys).averages
    return clock.seconds() - t0, avg


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--out", default=None, help="write the Markdown table here")
    args = ap.parse_args(argv)
    rows = []
    for label in BASELINES:
        bb, gammas, keys = setting(label)
        times = {"per seed": [], "batched": []}
        for _ in range(args.repeats):
            t_one, a_one = per_seed(bb, gammas, keys)
            t_all, a_all = batched(bb, gammas, keys)
            times["per seed"].append(t_one)
            times["batched"].append(t_all)
        diff = float(np.max(np.abs(a_one - a_all)))
        med = {k: statistics.median(v) for k, v in times.items()}
        rows.append(f"| {label} | {med['per seed']:.1f} [{min(times['per seed']):.1f}] | "
                    f"{med['batched']:.1f} [{min(times['batched']):.1f}] | {med['per seed'] / med['batched']:.1f} | "
                    f"{diff:.1e} |")
    table = "\n".join(["| baseline | one call per seed (s CPU, median [min]) | one batched call (s CPU, median [min]) "
                       "| ratio of medians | max abs. difference of the averages |", "|---|---:|---:|---:|---:|", *rows])
    print(table)
    if args.out:
        with open(args.out, "w") as f:
            f.write(f"# Fig. 7's baselines over {len(SEEDS)} seeds at d = {D}, {NUM_STEPS:,} iterations: one call per "
                    "seed vs one batched call (`bench_rabvi_baselines.py`)\n\n" + table + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
