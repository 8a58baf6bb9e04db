"""Logistic-regression experiments of Section 5.1 / Appendix C.2: problems, methods, scores.

A `Problem` bundles what Appendix C.2 fixes for each data set:

=========  ============  ==============================  ======================  =========
data set   family        prior variances                 initial q               target
=========  ============  ==============================  ======================  =========
pima       full cov.     400 (intercept), 25 otherwise   N(0, I)                 full data
sonar      full cov.     400 (intercept), 25 otherwise   N(0, I)                 full data
census     mean field    400 (intercept), 25 otherwise   N(0, I)                 eq. (21), batch P
mnist      mean field    25 (no intercept)               N(0, e⁻² I)             full data
=========  ============  ==============================  ======================  =========

(The authors' MNIST script builds its initial η from variances e⁻²; we do the same.)

Methods are LSVI Algorithms 1–3 and NGD, each with a schedule of Table 3 (`METHODS`
lists the pairs the paper ran, keyed by the labels of its figures). All run through
`lsvi.base.run_sequential`: compiled once, then one timed run per repetition. The
library baselines (PyMC ADVI, GMMVI, Blackjax meanfield_vi) live in `lsvi.baselines` and
are scored with the same functions here: `kl_curves` (the Monte Carlo KL up to log Z of
`lsvi.losses`, same draws for every method and iterate) and `misclassification`.

``python -m lsvi.logistic`` runs one method R times in a fresh process and prints its run
times and peak memory (Table 1); `run_cli` calls it.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from typing import NamedTuple, Optional

import jax
import jax.numpy as jnp
import numpy as np

from lsvi import base, gaussian_fullcov, gaussian_meanfield, generic, losses, ngd, step_size_control, targets, timing
from lsvi.families import gaussian_fullcov as fullcov_family
from lsvi.families import gaussian_meanfield as meanfield_family
from lsvi.families.gaussian import fullcov_from_natural, fullcov_to_natural, meanfield_from_natural, meanfield_to_natural

DATASETS = ("pima", "sonar", "census", "mnist")
FULLCOV = ("pima", "sonar")
ALGORITHMS = ("alg1", "alg2", "alg3", "ngd")

# (label, algorithm, Table 3 schedule) as run in the paper (Table 3, left)
METHODS = {
    "pima": [("LSVI (Alg. 1, sch. 3)", "alg1", 3), ("LSVI-FC (Alg. 3, sch. 1)", "alg3", 1),
             ("LSVI-FC (Alg. 3, sch. 2)", "alg3", 2), ("NGD (sch. 2)", "ngd", 2)],
    "sonar": [("LSVI-FC (Alg. 3, sch. 1)", "alg3", 1), ("LSVI-FC (Alg. 3, sch. 2)", "alg3", 2)],
    "mnist": [("LSVI-MF (Alg. 2, sch. 1)", "alg2", 1), ("LSVI-MF (Alg. 2, sch. 5)", "alg2", 5),
              ("LSVI-MF (Alg. 2, sch. 6)", "alg2", 6), ("NGD-MF (sch. 5)", "ngd", 5)],
    "census": [("LSVI-MF (Alg. 2, sch. 5)", "alg2", 5), ("LSVI-MF (Alg. 2, sch. 6)", "alg2", 6),
               ("NGD-MF (sch. 5)", "ngd", 5)],
}

# Run beyond Table 3 because the text refers to it: "LSVI performs comparably to NGD and
# GMMVI, but is less noisy (with or without an adaptive schedule 4)" (Section 5.1).
EXTRA_METHODS = {"pima": [("LSVI (Alg. 1, sch. 4)", "alg1", 4)]}


class Table1Row(NamedTuple):
    """A logistic-regression row of Table 1: the configuration and the paper's numbers
    (runtime in seconds: mean, sd, min, max over 5 repetitions; max RSS in GB), measured on
    an AMD EPYC 7702/7713 + NVIDIA A100 with JAX 0.5 (Appendix C)."""

    dataset: str
    method: str          # an algorithm of ALGORITHMS or a baseline of BASELINES
    schedule: Optional[int]
    num_samples: Optional[int]
    num_steps: int
    batch_size: Optional[int]
    paper: tuple         # (mean, sd, min, max, max_rss_gb)


TABLE1 = [
    Table1Row("pima", "alg1", 3, 10_000, 10, None, (1.6, 1.4, 1.0, 4.1, 1.28)),
    Table1Row("pima", "ngd", 2, 10_000, 10, None, (2.2, 1.5, 1.51, 4.9, 3.29)),
    Table1Row("pima", "alg3", 1, 100_000, 100, None, (4.3, 1.7, 3.5, 7.3, 1.28)),
    Table1Row("pima", "alg3", 2, 100_000, 100, None, (3.4, 0.1, 3.3, 3.6, 1.28)),
    Table1Row("pima", "pymc_advi", None, None, 10_000, None, (5.9, 0.3, 5.5, 6.4, 0.84)),
    Table1Row("pima", "gmmvi", None, 10_000, 10, None, (4.8, 3.8, 3.0, 11.6, 4.57)),
    Table1Row("sonar", "alg3", 1, 100_000, 100, None, (5.1, 0.3, 5.0, 5.6, 3.11)),
    Table1Row("sonar", "alg3", 2, 100_000, 100, None, (5.1, 1.3, 4.4, 7.4, 3.11)),
    Table1Row("sonar", "pymc_advi", None, None, 10_000, None, (9.6, 1.3, 7.4, 10.5, 3.21)),
    Table1Row("mnist", "alg2", 1, 10_000, 500, None, (19.1, 1.0, 18.7, 21.8, 2.36)),
    Table1Row("mnist", "alg2", 5, 10_000, 500, None, (10.4, 0.1, 10.3, 10.6, 2.36)),
    Table1Row("mnist", "alg2", 6, 10_000, 500, None, (18.9, 1.1, 22.1, 18.5, 2.36)),   # min > max as printed
    Table1Row("mnist", "blackjax", None, 10_000, 500, None, (19.5, 1.0, 18.9, 22.2, 3.34)),
    Table1Row("mnist", "ngd", 5, 10_000, 500, None, (25.3, 2.2, 29.2, 24.1, 4.38)),    # min > max as printed
    Table1Row("census", "alg2", 5, 10_000, 10_000, 1000, (12.9, 0.2, 12.8, 13.3, 3.30)),
    Table1Row("census", "alg2", 6, 10_000, 10_000, 1000, (13.0, 0.03, 12.9, 13.0, 3.30)),
    Table1Row("census", "ngd", 5, 10_000, 10_000, 1000, (70.0, 1.7, 69.0, 73.1, 3.33)),
]


class Problem(NamedTuple):
    """name; X (n, d) flipped design y_i x_i; prior_var (d,); family (`lsvi.families`);
    eta0 (m,) initial natural parameter; log_target ``(key, B (N, d)) -> (N,)``;
    logdensity ``beta (d,) -> scalar`` (full data, for autodiff baselines and NUTS);
    batch_size: P of eq. (21) or None (full data)."""

    name: str
    X: jax.Array
    prior_var: jax.Array
    family: object
    eta0: jax.Array
    log_target: object
    logdensity: object
    batch_size: Optional[int]

    @property
    def d(self) -> int:
        return int(self.X.shape[1])

    @property
    def meanfield(self) -> bool:
        return self.family.name == "gaussian_meanfield"


def problem(name: str, data_dir: str = "data/processed", batch_size: Optional[int] = None,
            subsample_scale="paper", max_elements: float = targets.DEFAULT_MAX_ELEMENTS) -> Problem:
    """The Appendix C.2 set-up of data set ``name`` (see the module table).

    batch_size: Census only (default 10³, Table 2); ``subsample_scale`` is passed to
    `lsvi.targets.subsampled_logistic_regression` ("paper": eq. (21) as printed)."""
    from lsvi import datasets

    if name not in DATASETS:
        raise ValueError(f"unknown logistic-regression data set {name!r}; expected one of {DATASETS}")
    ds = datasets.load(name, data_dir)
    X = jnp.asarray(ds.X, jnp.float64)
    d = X.shape[1]
    prior_var = targets.paper_prior_variance(d, intercept=(name != "mnist"))
    if name in FULLCOV:
        family = fullcov_family(d)
        eta0 = fullcov_to_natural(jnp.zeros(d), jnp.eye(d))
    else:
        family = meanfield_family(d)
        eta0 = meanfield_to_natural(jnp.zeros(d), jnp.full(d, np.exp(-2.0) if name == "mnist" else 1.0))
    if name == "census":
        batch_size = batch_size or 1000
        log_target = targets.subsampled_logistic_regression(X, prior_var, batch_size, subsample_scale,
                                                            max_elements=max_elements)
    else:
        if batch_size is not None:
            raise ValueError(f"subsampling (batch_size) is only set up for census, not {name}")
        log_target = targets.logistic_regression(X, prior_var, max_elements=max_elements)
    return Problem(name, X, prior_var, family, eta0, log_target, targets.logistic_logdensity(X, prior_var),
                   batch_size)


OPTIONS = {"alg1": (), "alg2": ("centre",), "alg3": ("centre",), "ngd": ("fim", "gradient")}


def kernel(prob: Problem, algorithm: str, schedule: int, num_samples: int, **options):
    """LSVI/NGD step for ``prob`` with Table 3 schedule number ``schedule``. ``options`` go to
    the algorithm's ``build_kernel``: ``centre`` (Algorithms 2–3: the control variate of
    `lsvi.gaussian_fullcov.estimate_gamma`, off in the paper), ``fim``/``gradient`` (NGD)."""
    bad = sorted(set(options) - set(OPTIONS.get(algorithm, ())))
    if algorithm in OPTIONS and bad:
        raise ValueError(f"options {bad} do not apply to {algorithm} (it takes {OPTIONS[algorithm] or 'none'})")
    sch = step_size_control.table3(schedule)
    if algorithm == "alg1":
        return generic.build_kernel(prob.family, prob.log_target, num_samples, sch)
    if algorithm == "alg2":
        _require(prob, "gaussian_meanfield", algorithm)
        return gaussian_meanfield.build_kernel(prob.d, prob.log_target, num_samples, sch, **options)
    if algorithm == "alg3":
        _require(prob, "gaussian_fullcov", algorithm)
        return gaussian_fullcov.build_kernel(prob.d, prob.log_target, num_samples, sch, **options)
    if algorithm == "ngd":
        return ngd.build_kernel(prob.family, prob.log_target, num_samples, sch, **options)
    raise ValueError(f"unknown algorithm {algorithm!r}; expected one of {ALGORITHMS}")


def _require(prob, family_name, algorithm):
    if prob.family.name != family_name:
        raise ValueError(f"{algorithm} needs the {family_name} family; {prob.name} uses {prob.family.name}")


def run_method(prob: Problem, algorithm: str, schedule: int, num_samples: int, num_steps: int, num_reps: int,
               seed: int = 0, **options) -> base.TimedRuns:
    """``num_reps`` independent runs (keys split from ``seed``) of T = ``num_steps`` iterations."""
    step = kernel(prob, algorithm, schedule, num_samples, **options)
    keys = jax.random.split(jax.random.PRNGKey(seed), num_reps)
    return base.run_sequential(keys, step, base.init(prob.eta0), num_steps)


# ----------------------------------------------------------------------------------------
# Scores


def kl_curves(prob: Problem, etas, num_draws: int, seed: int = 1):
    """Monte Carlo KL(q‖π̄) − log Z(π) (`lsvi.losses.kl_trace`) for etas (..., K, m).

    The same key serves every repetition and every iterate (common random numbers: the
    same base normals, and for Census the same batch of eq. (21), which the paper also
    uses for the loss), so that the curves of different methods differ only through
    their iterates. Returns (estimates, standard errors), each of shape (..., K)."""
    etas = jnp.asarray(etas)
    key = jax.random.PRNGKey(seed)
    flat = etas.reshape(-1, etas.shape[-1])
    est, se = losses.kl_trace(key, prob.family, flat, prob.log_target, num_draws)
    return np.asarray(est).reshape(etas.shape[:-1]), np.asarray(se).reshape(etas.shape[:-1])


def kl_curves_of_traces(prob: Problem, traces, num_draws: int, seed: int = 1):
    """`kl_curves` for library baselines: ``traces`` is a list of `lsvi.baselines.GaussianTrace`
    (one per repetition), truncated to the shortest. Returns (estimates (R, K), iterations (K,))."""
    from lsvi.baselines import to_natural

    K = min(len(tr.iterations) for tr in traces)
    etas = np.stack([np.asarray(to_natural(tr))[:K] for tr in traces])
    return kl_curves(prob, etas, num_draws, seed)[0], np.asarray(traces[0].iterations[:K])


def gold_standard_table(prob: Problem, runs: dict, traces: dict, ref_mean, ref_sd):
    """`gold_standard_distance` of the final iterate of every method (mean and marginal sd
    averaged over repetitions): ``runs`` {label: `base.TimedRuns`}, ``traces`` {label: list of
    `GaussianTrace`}. Returns a DataFrame indexed by label."""
    import pandas as pd

    rows = {}
    for label, r in runs.items():
        m, v = moments(prob.family, r.etas[:, -1])
        rows[label] = gold_standard_distance(m.mean(0), np.sqrt(v.mean(0)), ref_mean, ref_sd)
    for label, trs in traces.items():
        var = [tr.cov[-1] if tr.meanfield else np.diag(tr.cov[-1]) for tr in trs]
        rows[label] = gold_standard_distance(np.mean([tr.mean[-1] for tr in trs], 0), np.sqrt(np.mean(var, 0)),
                                             ref_mean, ref_sd)
    return pd.DataFrame(rows, index=["max |dmean|/sd*", "max |log sd/sd*|"]).T


def moments(family, etas):
    """(means (..., d), variances (..., d)) of natural parameters etas (..., m)."""
    etas = jnp.asarray(etas)
    flat = etas.reshape(-1, etas.shape[-1])
    d = family.dim
    if family.name == "gaussian_meanfield":
        m, v = jax.vmap(lambda e: meanfield_from_natural(e, d))(flat)
    else:
        m, c = jax.vmap(lambda e: fullcov_from_natural(e, d))(flat)
        v = jnp.diagonal(c, axis1=-2, axis2=-1)
    return np.asarray(m).reshape(etas.shape[:-1] + (d,)), np.asarray(v).reshape(etas.shape[:-1] + (d,))


def misclassification(means, X_test_flipped):
    """Error rate of the plug-in classifier sign(xᵀμ) on test rows (flipped: y_i x_i, so a
    row is misclassified when y_i x_iᵀμ ≤ 0). means (..., d) -> (...)."""
    margins = np.asarray(means) @ np.asarray(X_test_flipped).T
    return np.mean(margins <= 0.0, axis=-1)


def cost_per_iteration(prob: Problem, algorithm: str, schedule: int, sample_sizes, num_steps: int, num_reps: int,
                       seed: int = 0, **options) -> np.ndarray:
    """Seconds per iteration (len(sample_sizes), num_reps): ``num_steps`` iterations per
    run, compilation excluded (Figures 4 and 5, left)."""
    out = []
    for N in sample_sizes:
        runs = run_method(prob, algorithm, schedule, int(N), num_steps, num_reps, seed, **options)
        out.append(runs.times / num_steps)
    return np.array(out)


def gold_standard_distance(mean, sd, ref_mean, ref_sd):
    """How far a Gaussian approximation (mean (d,), marginal sd (d,)) is from a reference
    posterior (NUTS): max_j |μ_j − μ*_j| / σ*_j and max_j |log(σ_j / σ*_j)|."""
    mean, sd, ref_mean, ref_sd = map(np.asarray, (mean, sd, ref_mean, ref_sd))
    return float(np.max(np.abs(mean - ref_mean) / ref_sd)), float(np.max(np.abs(np.log(sd / ref_sd))))


# ----------------------------------------------------------------------------------------
# Command-line interface: run time and peak memory in a fresh process (Table 1)


BASELINES = ("pymc_advi", "gmmvi", "blackjax")


def _time_baseline(prob: Problem, method: str, args) -> dict:
    """``args.runs`` fits of a library baseline, one after the other. Like the LSVI rows,
    ``times_s`` is the optimisation loop alone; the library's set-up and compilation of each
    call (PyMC builds and compiles its graph, gmmvi traces its TensorFlow functions, Blackjax
    is jitted) is ``compile_s`` (mean over calls), and ``total_s`` is each whole call."""
    loop, setup, total = [], [], []
    for r in range(args.runs):
        t0 = time.perf_counter()
        if method == "pymc_advi":
            from lsvi.baselines import pymc_advi

            tr = pymc_advi.fit(np.asarray(prob.X), np.asarray(prob.prior_var), num_iterations=args.num_steps,
                               method="advi" if prob.meanfield else "fullrank_advi", seed=args.seed + r)
            loop.append(tr.info["loop_time"])
        elif method == "gmmvi":
            from lsvi.baselines import gmmvi_single

            tr = gmmvi_single.fit(np.asarray(prob.X), np.asarray(prob.prior_var), num_iterations=args.num_steps,
                                  num_samples=args.num_samples, seed=args.seed + r)
            loop.append(float(tr.elapsed[-1]))
        else:
            from lsvi.baselines import blackjax_meanfield

            tr = blackjax_meanfield.fit(prob.logdensity, prob.d, num_iterations=args.num_steps,
                                        num_samples=args.num_samples, seed=args.seed + r)
            loop.append(tr.info["wall_s"])
        if tr.info.get("error"):
            raise RuntimeError(f"{method} failed: {tr.info['error']}")
        total.append(time.perf_counter() - t0)
        setup.append(total[-1] - loop[-1])
    return dict(times_s=loop, compile_s=float(np.mean(setup)), total_s=total)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m lsvi.logistic", description="time one method (Table 1)")
    ap.add_argument("--dataset", required=True, choices=DATASETS)
    ap.add_argument("--method", required=True, choices=ALGORITHMS + BASELINES)
    ap.add_argument("--schedule", type=int, default=1, help="Table 3 schedule (LSVI and NGD)")
    ap.add_argument("--num-samples", type=int, default=10_000)
    ap.add_argument("--num-steps", type=int, default=100)
    ap.add_argument("--batch-size", type=int, default=None, help="census: P of eq. (21)")
    ap.add_argument("--fim", default=None, choices=("mc", "exact"), help="NGD Fisher matrix (default: mc)")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--data-dir", default="data/processed")
    args = ap.parse_args(argv)
    prob = problem(args.dataset, args.data_dir, args.batch_size)
    out = dict(vars(args))
    if args.method in ALGORITHMS:
        opts = {"fim": args.fim} if args.fim else {}
        runs = run_method(prob, args.method, args.schedule, args.num_samples, args.num_steps, args.runs, args.seed, **opts)
        out.update(times_s=runs.times.tolist(), compile_s=runs.compile_time,
                   accepted_fraction=float(np.mean(runs.infos.accepted)))
    else:
        out.update(_time_baseline(prob, args.method, args))
    out.update(max_rss_gb=timing.max_rss_gb(), device=str(jax.devices()[0]))
    print(json.dumps(out))
    return 0


def table1_settings(factors: dict, num_params: dict) -> list[dict]:
    """The `TABLE1` rows with N and T scaled: ``factors[dataset] = (f_N, f_T)`` multiplies the
    paper's (N, T); N stays above 1.2 m where a regression or a Monte Carlo Fisher matrix
    needs N > m (``num_params[dataset]`` = m); data sets absent from ``factors`` are left out.
    Mean-field NGD falls back to the closed-form Fisher matrix when N ≤ m (the Monte Carlo
    one is singular), so that every method of a data set runs with the same N."""
    out = []
    for r in TABLE1:
        if r.dataset not in factors:
            continue  # data set not asked for
        fN, fT = factors[r.dataset]
        N = None
        if r.num_samples is not None:
            # OLS on s(X) (Alg. 1), the whitened regression of Alg. 3 and a full-covariance Monte
            # Carlo FIM need N > m; Alg. 2 and mean-field NGD (closed-form FIM below) do not.
            needs_m = r.method in ("alg1", "alg3") or (r.method == "ngd" and r.dataset in FULLCOV)
            N = max(int(round(r.num_samples * fN)), int(1.2 * num_params[r.dataset]) if needs_m else 10)
        T = max(int(round(r.num_steps * fT)), 1)
        fim = "exact" if (r.method == "ngd" and r.dataset not in FULLCOV and N <= num_params[r.dataset]) else None
        out.append(dict(row=r, N=N, T=T, fim=fim))
    return out


def measure_table1(factors: dict, runs: int, seed: int = 0, data_dir: str = "data/processed",
                   only=None, log=print):
    """Run every `TABLE1` row (or those whose method is in ``only``) with `table1_settings`,
    each in a fresh process (`run_cli`); one dict per row with the measured and the paper's
    numbers. A configuration that fails is kept with its ``error``."""
    import pandas as pd

    num_params = {name: problem(name, data_dir).family.num_params for name in factors}
    rows = []
    for x in table1_settings(factors, num_params):
        r = x["row"]
        label = f"{r.method}" + (f" sch. {r.schedule}" if r.schedule else "")
        if only is not None and r.method not in only:
            continue
        t0 = time.perf_counter()
        out = run_cli(dataset=r.dataset, method=r.method, schedule=r.schedule, num_samples=x["N"], num_steps=x["T"],
                      batch_size=r.batch_size, fim=x["fim"], runs=runs, seed=seed, data_dir=data_dir)
        times = np.array(out.get("times_s", [np.nan]), dtype=float)
        rows.append({"data set": r.dataset, "method": label, "N": x["N"], "T": x["T"], "P": r.batch_size or "",
                     "NGD FIM": x["fim"] or "", "runtime mean (s)": times.mean(),
                     "sd": times.std(ddof=1) if len(times) > 1 else np.nan, "min": times.min(), "max": times.max(),
                     "compile (s)": out.get("compile_s"), "max RSS (GB)": out.get("max_rss_gb", np.nan),
                     "device": out.get("device", ""), "error": out.get("error", ""),
                     "paper mean": r.paper[0], "paper sd": r.paper[1], "paper min": r.paper[2],
                     "paper max": r.paper[3], "paper RSS (GB)": r.paper[4]})
        log(f"{r.dataset:7s} {label:16s} N={x['N']} T={x['T']}: {times.mean():.3g} s per run "
            f"(process {time.perf_counter() - t0:.0f} s) {out.get('error', '')}")
    return pd.DataFrame(rows)


def run_cli(**options) -> dict:
    """`main` in a fresh process (`lsvi.timing.run_module`); a failure is returned as an
    ``error`` entry, not raised, so that Table 1 records it."""
    return timing.run_module("lsvi.logistic", raise_on_error=False, **options)


if __name__ == "__main__":
    sys.exit(main())
