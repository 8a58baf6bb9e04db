"""Run time and peak memory of a method measured in a fresh process (Table 1).

Each measurement runs ``python -m <module> --<option> <value> ...`` in a new interpreter,
so that its peak resident memory (`max_rss_gb`) is that method's alone; the module prints
one JSON line as its last line of output (its `main`), which `run_module` parses.

`cost_scaling` reads a cost-per-iteration curve (Figures 4 and 5, left): the log–log slope
in N, and whether the grid is in the regime where that slope means anything.
"""
from __future__ import annotations

import json
import resource
import subprocess
import sys
from typing import NamedTuple

import numpy as np


def max_rss_gb() -> float:
    """Peak resident set size of this process in GiB (2**30 bytes: Linux reports KiB, divided
    by 1024²). The name keeps "gb" for its callers; label tables "GiB" (1 GiB = 1.074 GB).

    On Linux, ``VmHWM`` of ``/proc/self/status``: the high-water mark of this process's own
    address space, which starts afresh at ``execve``. ``getrusage(RUSAGE_SELF).ru_maxrss``
    does not: it is inherited at ``fork`` and kept across ``execve``, so a child started by a
    parent that holds 0.7 GiB (a notebook kernel) or 3 GiB (a process with a CUDA context)
    reports at least that much, whatever it does itself. Elsewhere ``ru_maxrss``."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024**2  # kB
    except OSError:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 1024**3 if sys.platform == "darwin" else peak / 1024**2  # macOS reports bytes


def runtime_summary(times) -> dict:
    """Table 1's columns for the wall times (R,) of R timed runs, in seconds: mean, sd
    (ddof = 1; NaN for a single run), min, max and R."""
    t = np.asarray(times, dtype=float)
    return {"runtime mean (s)": float(t.mean()), "runtime sd (s)": float(t.std(ddof=1)) if t.size > 1 else float("nan"),
            "runtime min (s)": float(t.min()), "runtime max (s)": float(t.max()), "timed runs": int(t.size)}


def command(module: str, positional=(), **options) -> list[str]:
    cmd = [sys.executable, "-m", module, *map(str, positional)]
    for k, v in options.items():
        if v is not None:
            cmd += [f"--{k.replace('_', '-')}", str(v)]
    return cmd


def run_module(module: str, positional=(), raise_on_error: bool = True, **options) -> dict:
    """Run ``module`` in a fresh process; return the JSON object of its last output line.

    On a non-zero exit: raise RuntimeError with the end of stderr, or (``raise_on_error=False``)
    return the options with an ``error`` entry (its last stderr line), so that a caller can
    record a failing baseline instead of dropping it."""
    cmd = command(module, positional, **options)
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        if raise_on_error:
            raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
        lines = proc.stderr.strip().splitlines()
        return {**options, "error": lines[-1] if lines else f"exit status {proc.returncode}"}
    return json.loads(proc.stdout.strip().splitlines()[-1])


# ----------------------------------------------------------------------------------------
# Cost per iteration against N (Figures 4 and 5, left)


class CostScaling(NamedTuple):
    """Log–log fit of the cost per iteration against N and whether it can be read.

    slope, lo, hi: OLS slope of log(median cost) on log N and its 95 % t-interval
    (`lsvi.rates.loglog_fit`); fixed_share: fixed cost / median cost at the smallest N;
    decades: log10(N_max / N_min); assessable: False when the grid cannot show a slope in
    N (``reason`` says why); passed: ``band[0] <= slope <= band[1]``."""

    slope: float
    lo: float
    hi: float
    fixed_share: float
    decades: float
    assessable: bool
    reason: str
    passed: bool


def cost_scaling(sample_sizes, costs, fixed_cost, band=(0.8, 1.2), min_sizes: int = 4, min_decades: float = 1.0,
                 max_fixed_share: float = 0.2) -> CostScaling:
    """Is the cost per iteration linear in N over ``sample_sizes``?

    sample_sizes (K,); costs (K, R) seconds per iteration, R timed runs per N; fixed_cost:
    seconds per iteration at a tiny N (scalar or (R,)), the part of an iteration that does
    not grow with N (for a logistic target: one pass over the data, the dispatch of the
    step). Medians over runs, so that a run slowed by another process on a shared machine
    does not move the fit.

    A slope is only read where the N-proportional work dominates: the grid must hold at
    least ``min_sizes`` sizes spanning ``min_decades`` decades, with the fixed cost at most
    ``max_fixed_share`` of the cost at the smallest N (a fixed share f there biases a
    log–log slope down by up to about f). Otherwise ``assessable`` is False: an
    overhead-dominated grid gives a slope near 0 whatever the algorithm, and two points
    give no interval.
    """
    from lsvi.rates import loglog_fit

    N = np.asarray(sample_sizes, dtype=float)
    med = np.median(np.asarray(costs, dtype=float).reshape(len(N), -1), axis=1)
    fixed = float(np.median(np.atleast_1d(np.asarray(fixed_cost, dtype=float))))
    order = np.argsort(N)
    N, med = N[order], med[order]
    decades = float(np.log10(N[-1] / N[0])) if len(N) > 1 else 0.0
    share = fixed / med[0]
    reasons = []
    if len(N) < min_sizes:
        reasons.append(f"{len(N)} sizes < {min_sizes}")
    if decades < min_decades - 1e-9:
        reasons.append(f"N spans {decades:.2g} decades < {min_decades:g}")
    if share > max_fixed_share:
        reasons.append(f"fixed cost is {share:.0%} of the cost at N = {N[0]:g} (> {max_fixed_share:.0%})")
    if len(N) >= 2:
        fit = loglog_fit(N, med)
        slope, lo, hi = fit.slope, fit.lo, fit.hi
    else:
        slope = lo = hi = float("nan")
    return CostScaling(slope, lo, hi, share, decades, not reasons, "; ".join(reasons),
                       bool(band[0] <= slope <= band[1]))
