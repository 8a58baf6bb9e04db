"""Run times of several logistic-regression configurations, timed interleaved in one process.

Table 1's rows are measured each in a fresh process (`lsvi.papers.lsvi.logistic.measure_table1`),
which is what its memory column needs, but two processes run at different moments: on a shared
machine a burst of load lands on one row and not the other, and an ordering of two rows can
flip between two runs of the same commit. A statement "A is faster than B" is therefore read
here on runs of A and B taken in turn, in the same process, repeat after repeat, so that the
ratio of repeat r compares two runs made under the same load; the claim reads an interval of
these paired ratios (`lsvi.papers.lsvi.logistic_claims.table1_runtime`).
"""
from __future__ import annotations


import jax
import numpy as np

from lsvi.baselines import BASELINES
from lsvi.core import kernel as lsvi_kernel
from lsvi.core import step_size
from lsvi.papers.lsvi import logistic
from lsvi.core import clock


def interleaved_run_times(prob, configs, repeats: int, seed: int = 0, options=None) -> dict:
    """Seconds per run {label: (repeats,)} of ``configs`` [(label, algorithm, schedule, N, T)].

    LSVI/NGD (a registered algorithm): compiled once before the timed runs, the time of the
    compiled T iterations. A library baseline (`lsvi.baselines.BASELINES`, N None = its
    default): its trace's ``loop_s`` (set-up and compilation excluded, as in Table 1's rows);
    NaN when it reports an error. Repeat r runs every configuration once, in the listed order
    on even r and reversed on odd r, with seed ``seed + r``."""
    options = options or {}
    compiled = {}
    for label, alg, sch, N, T in configs:
        if alg in BASELINES:
            continue
        state = lsvi_kernel.init(prob.eta0)
        sched = step_size.table3(sch)
        eps = lsvi_kernel.step_sizes(sched, int(T))
        kern = logistic.kernel(prob, alg, int(N), **options.get(alg, {}))
        exe = lsvi_kernel.run.lower(jax.random.PRNGKey(seed), kern, state, eps, sched.u2).compile()
        compiled[label] = (exe, (state, eps, sched.u2))
    out = {label: np.full(repeats, np.nan) for label, *_ in configs}
    for r in range(repeats):
        order = configs if r % 2 == 0 else configs[::-1]
        for label, alg, sch, N, T in order:
            if alg in BASELINES:
                tr = BASELINES[alg](prob, int(T), None if N is None else int(N), seed + r, **options.get(alg, {}))
                out[label][r] = np.nan if tr.info.get("error") else float(tr.loop_s)
            else:
                exe, args = compiled[label]
                t0 = clock.seconds()
                jax.block_until_ready(exe(jax.random.PRNGKey(seed + r), *args))
                out[label][r] = clock.seconds() - t0
    return out


def table1_orderings(factors: dict, pairs, repeats: int, seed: int = 0, data_dir: str = logistic.DATA_DIR,
                     options=None) -> tuple[dict, dict]:
    """The rows of ``pairs`` [(data set, label a, label b)] (labels of
    `lsvi.papers.lsvi.logistic.measure_table1`, e.g. "alg1 sch. 3", "pymc_advi") at the N and T
    of `lsvi.papers.lsvi.logistic.table1_settings` for ``factors``, timed with
    `interleaved_run_times`, one data set at a time (data sets absent from ``factors`` are
    left out). Returns (times {(data set, label): (repeats,)}, settings {(data set, label):
    (N or None, T)})."""
    num_params = {name: logistic.problem(name, data_dir).family.num_params for name in factors}
    rows = {}
    for x in logistic.table1_settings(factors, num_params):
        r = x["row"]
        rows[(r.dataset, r.method + (f" sch. {r.schedule}" if r.schedule else ""))] = (r.method, r.schedule, x["N"], x["T"])
    times, settings = {}, {}
    for ds in dict.fromkeys(d for d, _, _ in pairs if d in factors):
        labels = list(dict.fromkeys(lab for d, a, b in pairs if d == ds for lab in (a, b)))
        configs = [(lab, *rows[(ds, lab)]) for lab in labels]
        out = interleaved_run_times(logistic.problem(ds, data_dir), configs, repeats, seed, options)
        for lab, alg, sch, N, T in configs:
            times[(ds, lab)], settings[(ds, lab)] = out[lab], (N, T)
    return times, settings


def work_table(times: dict, settings: dict):
    """The work behind each timed row of `table1_orderings`: draws at which the log-likelihood (or its gradient)
    is evaluated per run, N T (PyMC ADVI: T, ``obj_n_mc`` = 1 draw per iteration), the median seconds per run
    over the rounds, and the seconds per 10⁶ draws. ``times`` {(data set, label): (R,)}, ``settings``
    {(data set, label): (N or None, T)}. A DataFrame, one row per timed row."""
    import pandas as pd

    rows = []
    for (ds, lab), t in times.items():
        N, T = settings[(ds, lab)]
        draws = (1 if N is None else int(N)) * int(T)
        med = float(np.nanmedian(t)) if np.isfinite(t).any() else np.nan
        rows.append({"data set": ds, "method": lab, "N": 1 if N is None else int(N), "T": int(T), "draws per run": draws,
                     "median s per run": med, "s per 10^6 draws": 1e6 * med / draws})
    return pd.DataFrame(rows)
