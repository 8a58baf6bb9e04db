"""Time of one RABVI run (Algorithm 2, avgAdam, mean field, the paper's defaults) at the paper's d = 100 with FASO's
checks computed by ArviZ (one column at a time) and by `lsvi.core.bbvi.chain_diagnostics` (vectorised), interleaved
run by run in one process; checks that both give the same run (iterations, √SKL to q*).

    .venv/bin/python benchmarks/bench_rabvi_faso.py                    # 3 repeats, ~3 min on 2 idle cores
    .venv/bin/python benchmarks/bench_rabvi_faso.py --repeats 5 --out benchmarks/rabvi_faso.md

Settings (notebook 43's ablation runs): identity target N(0, I_100), γ₀ = 0.3 (stops after 4 learning rates) and
γ₀ = 0.01 capped at 20,000 iterations (FASO never declares stationarity: its R̂ check runs on 5 growing windows every
100 iterations, the case that made notebook 43's ablations long). CPU time of the process (`lsvi.core.clock`).
"""
from __future__ import annotations

import argparse
import statistics

import arviz as az
import jax
import numpy as np

jax.config.update("jax_enable_x64", True)

from lsvi.core import clock  # noqa: E402
from lsvi.core.bbvi import faso  # noqa: E402
from lsvi.core.bbvi import chain_diagnostics  # noqa: E402
from lsvi.papers.rabvi import ablations  # noqa: E402

SETTINGS = {"γ₀ = 0.3 (defaults)": (0.3, 100_000), "γ₀ = 0.01, K = 20,000": (0.01, 20_000)}


def arviz_split_rhat(window):
    n = window.shape[0] // 2
    halves = np.stack([window[-2 * n:-n], window[-n:]])
    return az.rhat(az.convert_to_dataset({"x": halves}), method="identity")["x"].values


def arviz_ess_mcse(window):
    ds = az.convert_to_dataset({"x": window[None]})
    return az.ess(ds, method="mean")["x"].values, az.mcse(ds, method="mean")["x"].values


def use(backend: str) -> None:
    """Point FASO's checks at ArviZ or at the vectorised module."""
    if backend == "arviz":
        faso.split_rhat, faso.ess_mcse = arviz_split_rhat, arviz_ess_mcse
    else:
        faso.split_rhat, faso.ess_mcse = chain_diagnostics.split_rhat, chain_diagnostics.ess_mcse


TARGET = ablations._target("identity", 100)  # (family, log density, λ*)
BUILT: dict = {}  # the jitted BBVI bundle, shared by every run (compiled once)


def one_run(gamma0, k_max):
    t0 = clock.seconds()
    row = ablations._rabvi_run(*TARGET, {**ablations.DEFAULTS, "gamma0": gamma0}, 0, k_max, BUILT)
    return clock.seconds() - t0, (row["iterations"], row["sqrt_skl"])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", default="", help="write the Markdown table there")
    args = ap.parse_args(argv)
    one_run(0.3, 400)  # compile the chunk of k_check iterations before timing
    lines = ["| run | ArviZ (s CPU, median [min]) | vectorised (s CPU, median [min]) | ratio of medians | same run |",
             "|---|---:|---:|---:|---|"]
    for name, (gamma0, k_max) in SETTINGS.items():
        times, results = {"arviz": [], "vectorised": []}, {}
        for _ in range(args.repeats):
            for backend in ("arviz", "vectorised"):
                use(backend)
                t, res = one_run(gamma0, k_max)
                times[backend].append(t)
                results.setdefault(backend, res)
        a, v = (statistics.median(times[b]) for b in ("arviz", "vectorised"))
        same = results["arviz"][0] == results["vectorised"][0] and np.isclose(results["arviz"][1], results["vectorised"][1],
                                                                              rtol=1e-9)
        lines.append(f"| {name} | {a:.1f} [{min(times['arviz']):.1f}] | {v:.1f} [{min(times['vectorised']):.1f}] | "
                     f"{a / v:.1f} | {'yes' if same else 'NO'}: {results['vectorised'][0]} iterations, "
                     f"√SKL {results['vectorised'][1]:.4f} |")
        print(lines[-1], flush=True)
    table = "\n".join(lines)
    print(table)
    if args.out:
        with open(args.out, "w") as f:
            f.write(table + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
