"""Time of one RABVI run (Algorithm 2, avgAdam, mean field, the paper's defaults) at the paper's d = 100 with FASO's
checks computed three ways, interleaved run by run in one process: by ArviZ (one column at a time, each window's R̂
from its iterates), by `lsvi.core.bbvi.chain_diagnostics` vectorised over the columns (each window's R̂ from its
iterates: `split_rhat`), and as FASO does now (each window's R̂ from the moments of the 100-iterate chunks:
`split_rhat_from_blocks`; ESS as the vectorised one). Checks that all give the same run (iterations, √SKL to q*).

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


BACKENDS = ("arviz", "vectorised", "blocks")
RHAT_MAX_WINDOWS = faso.rhat_max_windows


def use(backend: str) -> None:
    """Point FASO's checks at ArviZ, at the vectorised per-window R̂, or at the chunk moments (FASO's own)."""
    faso.ess_mcse = arviz_ess_mcse if backend == "arviz" else chain_diagnostics.ess_mcse
    if backend == "blocks":
        faso.rhat_max_windows = RHAT_MAX_WINDOWS
        return
    rhat = arviz_split_rhat if backend == "arviz" else chain_diagnostics.split_rhat

    def per_window(trace, w_min, num_windows=5, rhat_=None, blocks=None):  # the blocks FASO passes are ignored
        return RHAT_MAX_WINDOWS(trace, w_min, num_windows, rhat=rhat)

    faso.rhat_max_windows = per_window


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
    lines = ["| run | ArviZ (s CPU, median [min]) | vectorised (s CPU, median [min]) | "
             "from chunk moments (s CPU, median [min]) | ArviZ / moments | vectorised / moments | same run |",
             "|---|---:|---:|---:|---:|---:|---|"]
    for name, (gamma0, k_max) in SETTINGS.items():
        times, results = {b: [] for b in BACKENDS}, {}
        for _ in range(args.repeats):
            for backend in BACKENDS:
                use(backend)
                t, res = one_run(gamma0, k_max)
                times[backend].append(t)
                results.setdefault(backend, res)
        use("blocks")
        a, v, m = (statistics.median(times[b]) for b in BACKENDS)
        ref = results["blocks"]
        same = all(r[0] == ref[0] and np.isclose(r[1], ref[1], rtol=1e-9) for r in results.values())
        cells = " | ".join(f"{statistics.median(times[b]):.1f} [{min(times[b]):.1f}]" for b in BACKENDS)
        lines.append(f"| {name} | {cells} | {a / m:.1f} | {v / m:.1f} | "
                     f"{'yes' if same else 'NO'}: {ref[0]} iterations, √SKL {ref[1]:.4f} |")
        print(lines[-1], flush=True)
    table = "\n".join(lines)
    print(table)
    if args.out:
        with open(args.out, "w") as f:
            f.write(table + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
