"""Logistic-regression experiments of Section 5.1 / Appendix C.2: problems, methods, scores.

A `Problem` bundles what Appendix C.2 fixes for each data set (`PROBLEMS`: one `ProblemSpec`
per row of the paper's four data sets, built by `lsvi.data.datasets`):

=========  ============  ==============================  ======================  =========
data set   family        prior variances                 initial q               target
=========  ============  ==============================  ======================  =========
pima       full cov.     400 (intercept), 25 otherwise   N(0, I)                 full data
sonar      full cov.     400 (intercept), 25 otherwise   N(0, I)                 full data
census     mean field    400 (intercept), 25 otherwise   N(0, I)                 eq. (21), batch P
mnist      mean field    25 (no intercept)               N(0, e⁻² I)             full data
=========  ============  ==============================  ======================  =========

(The authors' MNIST script builds its initial η from variances e⁻²; we do the same.)

Any other data set is *declared*: one YAML file (``config/datasets/<name>.yaml``, or a path) with its source,
checksum, preprocessing and the same set-up (`lsvi.data.declared_datasets`); `problem` accepts its name or
path wherever it accepts a paper data set, so the figure notebooks 20–23 run on it through their ``dataset``
parameter without a copy.

Methods are LSVI Algorithms 1–3 and NGD, each with a schedule of Table 3 (`METHODS`
lists the pairs the paper ran, keyed by the labels of its figures). All run through
`lsvi.core.kernel.run_sequential`: compiled once, then one timed run per repetition. The
library baselines (PyMC ADVI, GMMVI, Blackjax meanfield_vi) live in `lsvi.baselines` and
are scored with the same functions here: `kl_curves` (the Monte Carlo KL up to log Z of
`lsvi.core.losses`, same draws for every method and iterate) and `misclassification`.

``python -m lsvi.papers.lsvi.logistic`` runs one method R times in a fresh process and prints its run
times and peak memory (Table 1); `run_cli` calls it, `measure_table1` runs every row, and
`table1_comparisons` reads the orderings Table 1 states on a measured table. `cost_table`
times several methods in turn for the cost-per-iteration panels (Figures 4 and 5, left).
"""
from __future__ import annotations

import argparse
import json
import time
import sys
from typing import NamedTuple, Optional

import jax
import jax.numpy as jnp
import numpy as np

from lsvi.baselines import BASELINES, to_natural
from lsvi.core import algorithms, losses, step_size, targets
from lsvi.core import kernel as lsvi_kernel
from lsvi.core.families import gaussian_fullcov, gaussian_meanfield
from lsvi.pipeline import timing
from lsvi.pipeline.paths import DATA_DIR
from lsvi.core.families.gaussian import fullcov_from_natural, fullcov_to_natural, meanfield_from_natural, meanfield_to_natural
from lsvi.core import clock



class ProblemSpec(NamedTuple):
    """What Appendix C.2 fixes for a data set (one row of the module table): ``family``
    "fullcov" or "meanfield"; ``intercept``: prior variance 400 on the first coefficient
    (`lsvi.core.targets.paper_prior_variance`); ``init_var``: the initial q is
    N(0, init_var·I); ``batch_size``: the default P of eq. (21), or None for the full-data target."""

    family: str
    intercept: bool
    init_var: float
    batch_size: Optional[int]


PROBLEMS = {
    "pima": ProblemSpec("fullcov", intercept=True, init_var=1.0, batch_size=None),
    "sonar": ProblemSpec("fullcov", intercept=True, init_var=1.0, batch_size=None),
    "census": ProblemSpec("meanfield", intercept=True, init_var=1.0, batch_size=1000),     # P = 10³ (Table 2)
    "mnist": ProblemSpec("meanfield", intercept=False, init_var=float(np.exp(-2.0)), batch_size=None),
}
DATASETS = tuple(PROBLEMS)
FULLCOV = tuple(name for name, spec in PROBLEMS.items() if spec.family == "fullcov")

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
    method: str          # a registered algorithm (`lsvi.core.algorithms`) or a baseline of BASELINES
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
    """name; X (n, d) flipped design y_i x_i; prior_var (d,); family (`lsvi.core.families`);
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


def dataset_spec(name: str) -> tuple[ProblemSpec, object]:
    """``(ProblemSpec, loader)`` of a paper data set (`PROBLEMS`) or of a declared one
    (`lsvi.data.declared_datasets`: a name in ``config/datasets/`` or a YAML path); ``loader(data_dir)``
    returns its `lsvi.data.datasets.Dataset`. Raises ValueError naming both kinds for an unknown name."""
    from lsvi.data import datasets, declared_datasets

    if name in PROBLEMS:
        return PROBLEMS[name], lambda data_dir: datasets.load(name, data_dir)
    if name in datasets.BUILDERS:
        raise ValueError(f"data set {name!r} has no Appendix C.2 set-up (`PROBLEMS`): declare one in "
                         f"{declared_datasets.DECLARATIONS_DIR}/ (see `lsvi.data.declared_datasets`)")
    if declared_datasets.locate(name) is None:
        raise ValueError(f"unknown logistic-regression data set {name!r}: expected one of the paper's {DATASETS}, a "
                         f"declaration in {declared_datasets.DECLARATIONS_DIR}/ "
                         f"({', '.join(declared_datasets.available()) or 'none'}) or the path of a declaration file")
    decl = declared_datasets.read(name)
    spec = ProblemSpec(decl.family, intercept=decl.intercept, init_var=decl.init_var, batch_size=decl.batch_size)
    return spec, lambda data_dir: declared_datasets.build(decl)


def load_dataset(name: str, data_dir: str = DATA_DIR):
    """The `lsvi.data.datasets.Dataset` ``name``: one of `lsvi.data.datasets` (cached under
    ``data_dir``, e.g. MNIST's test digits "mnist_test") or a declared one (`lsvi.data.declared_datasets`)."""
    from lsvi.data import datasets, declared_datasets

    if name in datasets.BUILDERS:
        return datasets.load(name, data_dir) if name in datasets.ALL else datasets.build(name)
    return declared_datasets.build(declared_datasets.read(name))


def problem(name: str, data_dir: str = DATA_DIR, batch_size: Optional[int] = None,
            subsample_scale="paper", max_elements: float = targets.DEFAULT_MAX_ELEMENTS,
            family: Optional[str] = None) -> Problem:
    """The Appendix C.2 set-up of data set ``name``: a paper data set (`PROBLEMS`, the module table) or a declared
    one (`dataset_spec`).

    batch_size: P of eq. (21) for a subsampled data set (Census; default its `ProblemSpec`'s,
    10³); ``subsample_scale`` is passed to `lsvi.core.targets.subsampled_logistic_regression`
    ("paper": eq. (21) as printed). ``family`` ("fullcov" or "meanfield"): the family the caller's comparison
    needs (a figure notebook's methods); a data set set up with the other one is refused with a clear message."""
    spec, loader = dataset_spec(name)
    if family is not None and spec.family != family:
        raise ValueError(f"data set {name!r} is set up with the {spec.family} family, and this comparison runs "
                         f"{family} methods: use a {family} data set (declare `family: {family}`)")
    data = loader(data_dir)
    name, X = data.name, jnp.asarray(data.X, jnp.float64)  # a declaration read from a path: its declared name
    d = X.shape[1]
    prior_var = targets.paper_prior_variance(d, intercept=spec.intercept)
    if spec.family == "fullcov":
        family, eta0 = gaussian_fullcov(d), fullcov_to_natural(jnp.zeros(d), spec.init_var * jnp.eye(d))
    else:
        family, eta0 = gaussian_meanfield(d), meanfield_to_natural(jnp.zeros(d), jnp.full(d, spec.init_var))
    if spec.batch_size is not None:
        batch_size = batch_size or spec.batch_size
        log_target = targets.subsampled_logistic_regression(X, prior_var, batch_size, subsample_scale,
                                                            max_elements=max_elements)
    else:
        if batch_size is not None:
            subsampled = [k for k, v in PROBLEMS.items() if v.batch_size is not None]
            raise ValueError(f"subsampling (batch_size) is only set up for {', '.join(subsampled)} and declared data "
                             f"sets with a batch_size, not {name}")
        log_target = targets.logistic_regression(X, prior_var, max_elements=max_elements)
    return Problem(name, X, prior_var, family, eta0, log_target, targets.logistic_logdensity(X, prior_var),
                   batch_size)


def kernel(prob: Problem, algorithm: str, num_samples: int, **options):
    """LSVI/NGD kernel ``(key, state, step_size, max_residual_var)`` of a registered algorithm
    (`lsvi.core.algorithms`) for ``prob``. ``options`` go to the algorithm: ``centre``
    (Algorithms 2–3: the control variate of `lsvi.core.algorithms.lsvi_fc.estimate_gamma`,
    off in the paper), ``residual`` (Algorithms 2–3: "X" the paper's residual in Algorithm 4,
    "Z" the authors' code, see `lsvi.core.step_size`), ``fim``/``gradient`` (NGD)."""
    return algorithms.build_kernel(algorithm, prob.family, prob.log_target, num_samples, **options)


def run_method(prob: Problem, algorithm: str, schedule: int, num_samples: int, num_steps: int, num_reps: int,
               seed: int = 0, **options) -> lsvi_kernel.TimedRuns:
    """``num_reps`` independent runs (keys split from ``seed``) of T = ``num_steps`` iterations
    with Table 3 schedule number ``schedule``."""
    kern = kernel(prob, algorithm, num_samples, **options)
    keys = jax.random.split(jax.random.PRNGKey(seed), num_reps)
    return lsvi_kernel.run_sequential(keys, kern, lsvi_kernel.init(prob.eta0), step_size.table3(schedule), num_steps)


# ----------------------------------------------------------------------------------------
# Scores


def kl_curves(prob: Problem, etas, num_draws: int, seed: int = 1):
    """Monte Carlo KL(q‖π̄) − log Z(π) (`lsvi.core.losses.kl_trace`) for etas (..., K, m).

    The same key serves every repetition and every iterate (common random numbers: the
    same base normals, and for Census the same batch of eq. (21), which the paper also
    uses for the loss), so that the curves of different methods differ only through
    their iterates. Returns (estimates, standard errors), each of shape (..., K)."""
    etas = jnp.asarray(etas)
    key = jax.random.PRNGKey(seed)
    flat = etas.reshape(-1, etas.shape[-1])
    est, se = losses.kl_trace(key, prob.family, flat, prob.log_target, num_draws)
    return np.asarray(est).reshape(etas.shape[:-1]), np.asarray(se).reshape(etas.shape[:-1])


def fit_baselines(prob: Problem, configs: dict, num_reps: int, seed: int = 0, log=print) -> tuple[dict, dict]:
    """``num_reps`` fits (seeds ``seed + r``) of each library baseline in ``configs``
    {label: (name in `lsvi.baselines.BASELINES`, num_iterations, num_samples or None, options dict)}.

    A failure is recorded, not raised: returns (traces {label: list of `GaussianTrace`},
    errors {label: the first error}); a baseline that raised has no traces. ``log`` gets
    one line per baseline (loop seconds per run, errors)."""
    traces, errors = {}, {}
    for label, (name, num_iterations, num_samples, options) in configs.items():
        try:
            traces[label] = [BASELINES[name](prob, num_iterations, num_samples, seed + r, **options)
                             for r in range(num_reps)]
        except Exception as err:  # recorded, not dropped: a claim reports it
            errors[label] = repr(err)
            log(f"{label} FAILED: {err!r}")
            continue
        errs = [tr.info["error"] for tr in traces[label] if tr.info.get("error")]
        if errs:
            errors[label] = errs[0]
        log(f"{label}: {num_reps} runs, {np.mean([tr.loop_s for tr in traces[label]]):.2f} s per run (loop only, "
            f"set-up and compilation {np.mean([tr.compile_s for tr in traces[label]]):.1f} s), errors: {errs or 'none'}")
    return traces, errors


def kl_curves_of_traces(prob: Problem, traces, num_draws: int, seed: int = 1):
    """`kl_curves` for library baselines: ``traces`` is a list of `lsvi.baselines.GaussianTrace`
    (one per repetition), truncated to the shortest. Returns (estimates (R, K), iterations (K,))."""
    K = min(len(tr.iterations) for tr in traces)
    etas = np.stack([np.asarray(to_natural(tr))[:K] for tr in traces])
    return kl_curves(prob, etas, num_draws, seed)[0], np.asarray(traces[0].iterations[:K])


def gold_standard_table(prob: Problem, runs: dict, traces: dict, ref_mean, ref_sd):
    """`gold_standard_distance` of the final iterate of every method (mean and marginal sd
    averaged over repetitions): ``runs`` {label: `lsvi.core.kernel.TimedRuns`}, ``traces`` {label: list of
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


def cost_per_iteration(prob: Problem, algorithm: str, schedule: Optional[int], sample_sizes, num_steps: int,
                       num_reps: int, seed: int = 0, **options) -> np.ndarray:
    """Seconds per iteration (len(sample_sizes), num_reps): ``num_steps`` iterations per
    run, compilation excluded (Figures 4 and 5, left). ``algorithm`` is a registered LSVI/NGD
    algorithm or a baseline of `lsvi.baselines.BASELINES` (its ``loop_s``: run r has seed
    ``seed + r`` and N draws per iteration; ``options`` go to its fit, ``schedule`` is ignored)."""
    out = []
    for N in sample_sizes:
        if algorithm in BASELINES:
            out.append([BASELINES[algorithm](prob, num_steps, int(N), seed + r, **options).loop_s / num_steps
                        for r in range(num_reps)])
        else:
            runs = run_method(prob, algorithm, schedule, int(N), num_steps, num_reps, seed, **options)
            out.append(runs.times / num_steps)
    return np.array(out)


def cost_table(prob: Problem, methods, sample_sizes, num_steps: int, num_reps: int, seed: int = 0,
               options: Optional[dict] = None) -> dict:
    """Seconds per iteration of several methods, timed in turn (Figure 5, left; Table 1 claims).

    methods: [(label, algorithm, schedule)], algorithm registered in `lsvi.core.algorithms` or a
    baseline of `lsvi.baselines.BASELINES` (its schedule ignored); sample_sizes: a list of N
    for every method, or {label: list of N}; options: {algorithm: keyword arguments} (``fim``
    for NGD, ``learning_rate`` for Blackjax). Every LSVI/NGD (method, N) is compiled first;
    then the timed runs of ``num_steps`` iterations go round-robin — repetition, N, method —
    so that a burst of load from another process on a shared machine spreads over the
    methods instead of landing on one method's points. A baseline's time is its trace's
    ``loop_s`` (its set-up and compilation excluded; run r has seed ``seed + r``).
    Returns {label: (len(sizes of label), num_reps)}, compilation excluded.
    """
    options = options or {}
    sizes = {label: list(sample_sizes[label] if isinstance(sample_sizes, dict) else sample_sizes)
             for label, _, _ in methods}
    key = jax.random.PRNGKey(seed)
    compiled = {}
    for label, alg, sch in methods:
        if alg in BASELINES:
            continue
        for N in sizes[label]:
            state = lsvi_kernel.init(prob.eta0)
            sched = step_size.table3(sch)
            eps = lsvi_kernel.step_sizes(sched, num_steps)
            exe = lsvi_kernel.run.lower(key, kernel(prob, alg, int(N), **options.get(alg, {})), state, eps,
                                        sched.u2).compile()
            compiled[label, N] = (exe, (state, eps, sched.u2))
    out = {label: np.full((len(sizes[label]), num_reps), np.nan) for label, _, _ in methods}
    for r in range(num_reps):
        k = jax.random.PRNGKey(seed + r)
        for N in sorted({N for s in sizes.values() for N in s}):
            for label, alg, _ in methods:
                if N not in sizes[label]:
                    continue
                if alg in BASELINES:
                    seconds = BASELINES[alg](prob, num_steps, int(N), seed + r, **options.get(alg, {})).loop_s
                else:
                    exe, args = compiled[label, N]
                    t0 = clock.seconds()
                    jax.block_until_ready(exe(k, *args))
                    seconds = clock.seconds() - t0
                out[label][sizes[label].index(N), r] = seconds / num_steps
    return out


def gold_standard_distance(mean, sd, ref_mean, ref_sd):
    """How far a Gaussian approximation (mean (d,), marginal sd (d,)) is from a reference
    posterior (NUTS): max_j |μ_j − μ*_j| / σ*_j and max_j |log(σ_j / σ*_j)|."""
    mean, sd, ref_mean, ref_sd = map(np.asarray, (mean, sd, ref_mean, ref_sd))
    return float(np.max(np.abs(mean - ref_mean) / ref_sd)), float(np.max(np.abs(np.log(sd / ref_sd))))


class Anchor(NamedTuple):
    """A reference level for the KL curves that no method under test defines.

    value: L° = L(q°), the Monte Carlo KL up to log Z (`kl_curves`, same draws as the
    curves) of q°, the Gaussian of the family moment-matched to posterior draws (NUTS);
    se: its Monte Carlo standard error; resolution: (m − 1) / (2 ESS), the expected excess of
    L° over the KL of the exactly moment-matched Gaussian caused by estimating its m − 1
    free moments from ESS effective draws (the asymptotic mean of a Wilks statistic)."""

    value: float
    se: float
    resolution: float


def moment_matched_eta(family, draws):
    """Natural parameter (m,) of the Gaussian of ``family`` with the sample mean and
    covariance (full) or variances (mean field) of ``draws`` (S, d)."""
    draws = np.asarray(draws, dtype=np.float64)
    mean = jnp.asarray(draws.mean(0))
    if family.name == "gaussian_meanfield":
        return meanfield_to_natural(mean, jnp.asarray(draws.var(0, ddof=1)))
    return fullcov_to_natural(mean, jnp.asarray(np.cov(draws.T)))


def moment_matched_anchor(prob: Problem, draws, ess: float, num_draws: int, seed: int = 1) -> Anchor:
    """`Anchor` of ``prob`` from posterior ``draws`` (S, d) with effective size ``ess``.

    q° is in the family, so L° ≥ L* = min_η L(η) (up to the Monte Carlo error, small in
    differences because the draws are common): a curve that ends within tol of the minimum
    ends below L° + tol. L° − L* is the moment-matching bias (KL(q‖π) and KL(π‖q) have
    different minimisers) plus about ``resolution``; both are small for a nearly Gaussian
    posterior. Use ``seed`` = the seed of the curves' `kl_curves`."""
    est, se = kl_curves(prob, moment_matched_eta(prob.family, draws)[None], num_draws, seed)
    return Anchor(float(est[0]), float(se[0]), (prob.family.num_params - 1) / (2.0 * float(ess)))


def converged_at(mean_curve, ref: float, tol: float):
    """First t from which ``mean_curve`` (K,) stays at or below ``ref + tol`` up to its end;
    None if its last value is above (or not finite). One-sided: with ``ref`` an `Anchor`
    value above the minimum, a curve may end below ``ref``."""
    ok = np.asarray(mean_curve, dtype=float) <= ref + tol  # NaN compares False
    if not ok[-1]:
        return None
    bad = np.flatnonzero(~ok)
    return 0 if len(bad) == 0 else int(bad[-1] + 1)


def blow_ups(curves) -> np.ndarray:
    """Repetitions that blow up (R,) bool: at some t ≥ 1 the KL exceeds its value at the
    initial iterate t = 0, or is not finite. curves (R, K), K ≥ 2, with a common t = 0."""
    curves = np.asarray(curves, dtype=float)
    later = curves[:, 1:]
    return ~np.all(np.isfinite(later), axis=1) | np.any(later > curves[:, :1], axis=1)


# ----------------------------------------------------------------------------------------
# Command-line interface: run time and peak memory in a fresh process (Table 1)


def _time_baseline(prob: Problem, method: str, args) -> dict:
    """``args.runs`` fits of the library baseline ``method`` (`lsvi.baselines.BASELINES`), one
    after the other (seeds ``args.seed + r``). Like the LSVI rows, ``times_s`` is the
    optimisation loop alone (each trace's ``loop_s``); ``compile_s`` is the library's set-up
    and compilation in the first call (what a fresh process pays; later calls may reuse a
    cache, Blackjax's compiled loop), and ``total_s`` is each whole call."""
    loop, total, compile_s = [], [], None
    for r in range(args.runs):
        t0 = clock.seconds()
        tr = BASELINES[method](prob, args.num_steps, args.num_samples, args.seed + r)
        if tr.info.get("error"):
            raise RuntimeError(f"{method} failed: {tr.info['error']}")
        total.append(clock.seconds() - t0)
        loop.append(float(tr.loop_s))
        compile_s = float(tr.compile_s) if compile_s is None else compile_s
    return dict(times_s=loop, compile_s=compile_s, total_s=total)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m lsvi.papers.lsvi.logistic", description="time one method (Table 1)")
    ap.add_argument("--dataset", required=True, choices=DATASETS)
    ap.add_argument("--method", required=True, choices=tuple(algorithms.ALGORITHMS) + tuple(BASELINES))
    ap.add_argument("--schedule", type=int, default=1, help="Table 3 schedule (LSVI and NGD)")
    ap.add_argument("--num-samples", type=int, default=None,
                    help="draws per iteration (default: 10^4 for LSVI/NGD, the library's default for a baseline)")
    ap.add_argument("--num-steps", type=int, default=100)
    ap.add_argument("--batch-size", type=int, default=None, help="census: P of eq. (21)")
    ap.add_argument("--fim", default=None, choices=("mc", "exact"), help="NGD Fisher matrix (default: mc)")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--data-dir", default=DATA_DIR)
    args = ap.parse_args(argv)
    prob = problem(args.dataset, args.data_dir, args.batch_size)
    out = dict(vars(args))
    if args.method in algorithms.ALGORITHMS:
        opts = {"fim": args.fim} if args.fim else {}
        runs = run_method(prob, args.method, args.schedule, args.num_samples or 10_000, args.num_steps, args.runs,
                          args.seed, **opts)
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


def measure_table1(factors: dict, runs: int, seed: int = 0, data_dir: str = DATA_DIR,
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
        t0 = time.perf_counter()  # wall time of the child process (this parent's CPU clock does not see it)
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
            f"(process {time.perf_counter() - t0:.0f} s wall) {out.get('error', '')}")
    return pd.DataFrame(rows)


def run_cli(**options) -> dict:
    """`main` in a fresh process (`lsvi.pipeline.timing.run_module`); a failure is returned as an
    ``error`` entry, not raised, so that Table 1 records it."""
    return timing.run_module("lsvi.papers.lsvi.logistic", raise_on_error=False, **options)


# (data set, method a, method b, column, relation): what the paper's Table 1 states between
# an LSVI row and another row of the same data set ("<": a below b; "~": equal within
# MEMORY_TOLERANCE). Labels are those of `measure_table1`. Memory is compared only among
# JAX programs: the PyMC and GMMVI rows run in a process that also holds JAX (this CLI),
# unlike the paper's.
TABLE1_ORDERINGS = [
    ("pima", "alg1 sch. 3", "pymc_advi", "runtime", "<"),
    ("pima", "alg1 sch. 3", "gmmvi", "runtime", "<"),
    ("mnist", "alg2 sch. 5", "blackjax", "runtime", "<"),
    ("mnist", "alg2 sch. 5", "ngd sch. 5", "runtime", "<"),
    ("census", "alg2 sch. 5", "ngd sch. 5", "runtime", "<"),
    ("pima", "alg1 sch. 3", "ngd sch. 2", "memory", "<"),
    ("mnist", "alg2 sch. 5", "blackjax", "memory", "<"),
    ("mnist", "alg2 sch. 5", "ngd sch. 5", "memory", "<"),
    ("census", "alg2 sch. 5", "ngd sch. 5", "memory", "~"),
]
MEMORY_TOLERANCE = 0.05


def table1_comparisons(table1, factors: dict) -> list[dict]:
    """The `TABLE1_ORDERINGS` checked on a `measure_table1` table: one dict per ordering
    whose data set was measured, with the keys of `lsvi.pipeline.notebook.Run.claim` (id, source,
    paper, measured, criterion, passed, note, assessable).

    Runtime (loop only, fresh processes): assessable when both rows ran at the same N and T
    (`table1_settings` scales both alike), or, when one method has no N (PyMC), at the
    paper's N (``factors[dataset][0] == 1``). Memory: the paper's column is the peak *host*
    RSS of processes that ran on a GPU at the paper's N and T, where the arrays live in
    device memory; a CPU process's RSS holds the arrays, another quantity. Memory is
    assessable only on a GPU at the paper's settings (``factors[dataset] == (1, 1)``).
    Run times are compared by their minimum over the runs, the run least disturbed by other
    processes on a shared machine (the mean is printed too). A row that failed (no
    measurement) fails its claim.
    """
    fmt_n = lambda v: "-" if v is None or (isinstance(v, float) and not np.isfinite(v)) else f"{int(v)}"
    rows = {(r["data set"], r["method"]): r for r in table1.to_dict("records")}
    paper = {(r.dataset, f"{r.method}" + (f" sch. {r.schedule}" if r.schedule else "")): r for r in TABLE1}
    out = []
    for ds, a, b, column, rel in TABLE1_ORDERINGS:
        if (ds, a) not in rows or (ds, b) not in rows:
            continue
        ra, rb, pa, pb = rows[(ds, a)], rows[(ds, b)], paper[(ds, a)], paper[(ds, b)]
        fN, fT = (float(f) for f in factors[ds])
        short_a, short_b = a.split()[0], b.split()[0]
        if column == "runtime":
            xa, xb, unit = ra["min"], rb["min"], "s"
            ya, yb = pa.paper[0], pb.paper[0]
            same_n = pa.num_samples is not None and pb.num_samples is not None
            assessable = same_n or fN == 1.0
            cid = f"table1-{ds}-{short_a}-faster-than-{short_b}"
            note = (f"loop times, compilation excluded, one fresh process per row, minimum (mean) over the runs: "
                    f"{ra['min']:.3g} ({ra['runtime mean (s)']:.3g}) s vs {rb['min']:.3g} ({rb['runtime mean (s)']:.3g}) s; "
                    f"N = {fmt_n(ra['N'])}, T = {ra['T']} vs N = {fmt_n(rb['N'])}, T = {rb['T']} "
                    f"(factors on the paper's N, T: {fN:g}, {fT:g})")
            if not assessable:
                note += "; one method has no N: its cost is compared with the other's only at the paper's N"
        else:
            xa, xb, unit = ra["max RSS (GB)"], rb["max RSS (GB)"], "GB"
            ya, yb = pa.paper[4], pb.paper[4]
            gpu = all(("cuda" in str(r["device"]).lower() or "gpu" in str(r["device"]).lower()) for r in (ra, rb))
            assessable = gpu and fN == 1.0 and fT == 1.0
            cid = f"table1-mem-{ds}-{short_a}-{'below' if rel == '<' else 'vs'}-{short_b}"
            note = (f"peak RSS of each process (device {ra['device'] or '?'}); N = {fmt_n(ra['N'])}, T = {ra['T']} "
                    f"(factors {fN:g}, {fT:g})")
            if not assessable:
                note += ("; the paper's column is the host RSS of GPU processes at the paper's N and T (the arrays "
                         "are in GPU memory): only such a run measures the same quantity")
        ok = bool(np.isfinite(xa) and np.isfinite(xb))
        if rel == "<":
            passed = ok and xa < xb
            criterion = f"{a} < {b}" + (" (minimum over the runs)" if column == "runtime" else "")
        else:
            passed = ok and abs(xa / xb - 1.0) <= MEMORY_TOLERANCE
            criterion = f"|{a} / {b} - 1| <= {MEMORY_TOLERANCE:g}"
        errors = [f"{m}: {r['error']}" for m, r in ((a, ra), (b, rb)) if r.get("error")]
        out.append(dict(id=cid, source="Table 1", paper=f"{ds}: {a} {ya:g} {unit} vs {b} {yb:g} {unit}",
                        measured=f"{xa:.3g} {unit} vs {xb:.3g} {unit}" + (f" ({'; '.join(errors)})" if errors else ""),
                        criterion=criterion, passed=passed, note=note, assessable=assessable))
    return out


if __name__ == "__main__":
    sys.exit(main())
