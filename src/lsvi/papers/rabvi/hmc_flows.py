"""Section 7.2 of the RABVI paper (Welandawe et al.), "Comparison to MCMC": RABVI (mean-field and full-rank
Gaussians), FASO with a real NVP flow and dynamic HMC at equal cost in likelihood evaluations (Figs 10, C.15-C.18).

Cost. One BBVI iteration evaluates log π and its gradient at M draws: an iteration costs M likelihood (gradient)
evaluations (M = 10), the RMSProp warm start of RABVI included. One NUTS iteration costs its leapfrog steps
(`lsvi.baselines.nuts.path`: cumulative gradient evaluations after every iteration, warmup included). The paper
ran Stan's dynamic HMC, 1 chain, 5,000 warmup + 20,000 iterations; here Blackjax NUTS with Stan's window adaptation.

Methods (`study`), from the same start as notebook 42 (λ⁽⁰⁾: q = N(0, I)):

* RABVI MF / FR: Algorithm 2 with its rule off up to ``k_max`` and the trigger (τ = 1) recorded, exactly the run of
  `lsvi.papers.rabvi.posteriordb_study.rabvi_curve` (its `rabvi_averages`: same keys, warm start, regression),
  whose epoch averages λ̄_t give the draws from q_{λ̄_t};
* FASO-flow: Algorithm 1 (avgAdam, γ = 0.01, ε = 0.1, as FASO in Fig. 8) on the real NVP family of
  `lsvi.baselines.flowjax_realnvp` (3 coupling layers, 2 hidden layers of 8 units), budget ``flow_k_max``; its path is
  the trailing-20 % iterate average every ``every`` iterations (as `faso_curve`), and the average FASO returns;
* HMC: at cost c, the draws made up to c after the warmup (the draws of the warmup itself while c is still inside
  it, the part of C.15's curves left of the warmup line).

Errors (`lsvi.papers.rabvi.approximation_metrics`) against posteriordb's reference draws mapped to the unconstrained
space (10,000 draws; `reference`): relative mean and sd errors, mean over coordinates of the 95 % under-coverage
max(0, 0.95 − c_i), and the unbiased MMD² (coordinates standardised by the reference sd, median-heuristic bandwidth).
Gaussian q: exact moments and intervals μ̂ ± 1.96σ̂, MMD² from ``num_draws`` draws; flow: all four from
``num_draws`` draws of q (the same base draws z for every λ: common random numbers); HMC: from its draws.

Comparison point (`comparison_table`): C* = min(cost at which RABVI MF's rule fires, HMC's final cost) — the
paper's "at the RABVI termination rule trigger point or final likelihood evaluation of HMC (whichever comes
first)"; every method is read at its last path point with cost ≤ C* (its first point if it has none, flagged). If
the rule never fires within k_max, C* uses RABVI MF's final cost (flagged).

Determinism. Every key derives from ``seed``, but XLA's CPU code is not bit-reproducible across hosts: Eigen's
multi-threaded matrix products split their sums by the number of threads, and the generated code follows the host's
vector instructions (AVX2 / AVX-512). Measured here on arK at smoke size: one XLA thread instead of two changes the
flow's errors in the 14th digit, capping the instruction set at AVX2 changes its MMD² in the 15th. NUTS over
thousands of iterations, FASO's window decisions and the full-rank run amplify such last-digit differences into
different runs (a rerun of the same commit changed 45's HMC, full-rank and flow values). `DETERMINISTIC_XLA_FLAGS`
(one Eigen thread, AVX2 at most) and `DETERMINISTIC_ENV` (OpenBLAS, used by the LAPACK calls, on one thread with a
fixed kernel) make a run a function of its seed; notebook 45 sets them before JAX starts.

References
----------
M. Welandawe, M. R. Andersen, A. Vehtari, J. H. Huggins (2024). A framework for improving the reliability of
black-box variational inference. JMLR 25. (Section 7.2, Figs 10, C.15-C.18.)
"""
from __future__ import annotations

import warnings
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from lsvi.baselines import flowjax_realnvp, nuts
from lsvi.core.bbvi import families, faso, kernel, optimizers
from lsvi.papers.rabvi import approximation_metrics as metrics
from lsvi.papers.rabvi import posteriordb as pdb
from lsvi.papers.rabvi import posteriordb_models as pm
from lsvi.papers.rabvi import posteriordb_study as rp

METHODS = ("RABVI MF", "RABVI FR", "FASO flow", "HMC")
DETERMINISTIC_XLA_FLAGS = "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1 --xla_cpu_max_isa=AVX2"
DETERMINISTIC_ENV = {"OPENBLAS_NUM_THREADS": "1", "OPENBLAS_CORETYPE": "Haswell", "OMP_NUM_THREADS": "1"}


class MMDReference(NamedTuple):
    """posteriordb's reference draws on the unconstrained space (S, d), their mean and sd (d,), MMD bandwidth."""

    draws: np.ndarray
    mean: np.ndarray
    sd: np.ndarray
    bandwidth: float


def reference(model: pm.Model) -> MMDReference:
    """posteriordb's reference draws of ``model`` mapped by ``model.unconstrain`` (raises `LookupError` where
    posteriordb has no reference draws)."""
    u = rp.unconstrained_draws(model)
    sd = u.std(0, ddof=1)
    return MMDReference(u, u.mean(0), sd, metrics.median_bandwidth(u, sd))


class Errors(NamedTuple):
    """The four accuracy measures of one approximation."""

    mean_err: float
    sd_err: float
    undercoverage: float
    mmd2: float


def draws_errors(draws, ref: MMDReference, seed: int = 0, mmd: bool = True) -> Errors:
    """Errors of an approximation given by its draws (S, d): sample moments, empirical central 95 % intervals
    (``mmd`` False: MMD² not computed, nan — each new S compiles the MMD kernel again)."""
    x = np.asarray(draws, float)
    me, se = metrics.relative_errors(x.mean(0), x.std(0, ddof=1), ref.mean, ref.sd)
    uc = metrics.undercoverage(*metrics.central_interval(x), ref.draws).mean()
    m2 = metrics.mmd_squared(x, ref.draws, ref.sd, ref.bandwidth, seed=seed) if mmd else float("nan")
    return Errors(float(me), float(se), float(uc), m2)


def vi_errors(family: families.Family, lam, z, ref: MMDReference, sample=None) -> Errors:
    """Errors of q_λ; base draws z (S, d); ``sample`` (default ``family.sample``, pass a jitted one). Gaussian
    families: exact moments and Gaussian intervals."""
    sample = family.sample if sample is None else sample
    theta = np.asarray(sample(jnp.asarray(lam, float), jnp.asarray(z)))
    if family.mean_cov is None:
        return draws_errors(theta, ref)
    m, cov = family.mean_cov(jnp.asarray(lam, float))
    m, sd = np.asarray(m), np.sqrt(np.diag(np.asarray(cov)))
    me, se = metrics.relative_errors(m, sd, ref.mean, ref.sd)
    uc = metrics.undercoverage(*metrics.gaussian_interval(m, sd), ref.draws).mean()
    return Errors(float(me), float(se), float(uc), metrics.mmd_squared(theta, ref.draws, ref.sd, ref.bandwidth))


class Path(NamedTuple):
    """A method's errors along its run: ``cost`` (J,) likelihood evaluations, one `Errors` field each (J,);
    ``stop``: the cost of its own stopping point (RABVI: rule fired; FASO: success; HMC: end of warmup), or None."""

    label: str
    cost: np.ndarray
    mean_err: np.ndarray
    sd_err: np.ndarray
    undercoverage: np.ndarray
    mmd2: np.ndarray
    stop: float | None


def _path(label, cost, errs: list[Errors], stop) -> Path:
    e = np.array(errs, float).reshape(-1, 4)
    return Path(label, np.asarray(cost, float), e[:, 0], e[:, 1], e[:, 2], e[:, 3], stop)


def flow_path(bbvi, lam0, key, *, gamma: float, k_max: int, eps: float = 0.1, every: int = 200, frac: float = 0.2,
              max_points: int = 15):
    """FASO on the flow: (iterations (J,), trailing-``frac`` averages λ̄ (J, P), iterations at success or None);
    at most ``max_points`` path points (``every`` rounded up), the average FASO returns appended on success."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        fr = faso.faso(bbvi, lam0, gamma, key, eps=eps, r=1.0, k_max=k_max, meanfield_dim=None)
    k = fr.trace.shape[0]
    every = every * max(1, int(np.ceil(k / (every * max_points))))
    ks = list(np.arange(every, k + 1, every))
    avgs = list(rp.trailing_averages(fr.trace, ks, frac))
    if fr.success:
        ks.append(fr.iterations)
        avgs.append(fr.position)
    return np.array(ks), np.stack(avgs), (int(fr.iterations) if fr.success else None)


def hmc_errors_at(chain: nuts.ChainPath, c: float, ref: MMDReference, min_draws: int = 20,
                  mmd: bool = True) -> tuple[Errors, bool]:
    """HMC's running estimate at cost ``c``: its post-warmup draws made by then (at least ``min_draws``), else all
    its draws so far (warmup); (errors, whether still in warmup). The path has no MMD² (``mmd`` False)."""
    n = int(np.searchsorted(chain.cost, c, side="right"))
    w = chain.num_warmup
    if n - w >= min_draws:
        return draws_errors(chain.positions[w:n], ref, mmd=mmd), False
    return draws_errors(chain.positions[:max(n, min_draws)], ref, mmd=mmd), True


def hmc_path(chain: nuts.ChainPath, ref: MMDReference, num_points: int = 20) -> Path:
    """HMC's running estimate at ``num_points`` log-spaced costs up to its final cost (C.15-C.16's orange curve)."""
    c = np.unique(np.geomspace(chain.cost[19], chain.cost[-1], num_points).astype(np.int64))
    return _path("HMC", c, [hmc_errors_at(chain, ci, ref, mmd=False)[0] for ci in c],
                 float(chain.cost[chain.num_warmup - 1]))


def study(name: str, *, k_max: int, flow_k_max: int, hmc_warmup: int, hmc_draws: int, num_samples: int = 10,
          num_draws: int = 2000, faso_gamma: float = 0.01, rabvi_families=("meanfield", "fullrank"),
          flow: bool = True, seed: int = 0) -> dict:
    """Every method on posterior ``name``: {"name", "short", "dim", "reference", "paths" {label: `Path`}, "hmc"
    (`nuts.ChainPath`), "num_samples"}. Keys: RABVI as `rabvi_posteriordb.study_posterior` (seed), the flow's
    FASO fold_in(key, 99), its initialisation fold_in(key, 98)."""
    model = pm.build(name)
    ref = reference(model)
    d, key = model.dim, jax.random.PRNGKey(seed)
    z = jax.random.normal(jax.random.fold_in(key, 12345), (num_draws, d))
    paths = {}
    for fname in rabvi_families:
        fam = getattr(families, fname)(d)
        bb = kernel.build(fam, model.logdensity, optimizers.get("avg_adam"), num_samples)
        warm = kernel.build(fam, model.logdensity, optimizers.get("rmsprop"), num_samples)
        its, lams, j = rp.rabvi_averages(bb, fam, jnp.zeros(fam.num_params), key, k_max=k_max, warm_start=warm)
        trig = None if j is None else int(its[j])
        label = "RABVI MF" if fname == "meanfield" else "RABVI FR"
        smp = jax.jit(fam.sample)
        paths[label] = _path(label, num_samples * its, [vi_errors(fam, lam, z, ref, smp) for lam in lams],
                             None if trig is None else num_samples * trig)
    if flow:
        ff = flowjax_realnvp.realnvp(d, jax.random.fold_in(key, 98))
        bb = kernel.build(ff.family, model.logdensity, optimizers.get("avg_adam"), num_samples)
        its, lams, succ = flow_path(bb, ff.init, jax.random.fold_in(key, 99), gamma=faso_gamma, k_max=flow_k_max)
        smp = jax.jit(ff.family.sample)
        errs = [vi_errors(ff.family, lam, z, ref, smp) for lam in lams]
        paths["FASO flow"] = _path("FASO flow", num_samples * its, errs,
                                   None if succ is None else num_samples * succ)
    chain = nuts.path(model.logdensity, d, hmc_warmup, hmc_draws, seed=seed)
    paths["HMC"] = hmc_path(chain, ref)
    return {"name": model.name, "short": pdb.posterior(name).short, "dim": d, "reference": ref, "paths": paths,
            "hmc": chain, "num_samples": num_samples, "seed": seed, "start_mean_err": start_mean_error(ref),
            "mmd_noise": mmd_noise(ref, num_draws)}


def start_mean_error(ref: MMDReference) -> float:
    """Relative mean error ‖(μ − 0)/σ‖₂ of every method's start q⁽⁰⁾ = N(0, I): the divergence test of the claims
    (a run whose mean error at C* exceeds it, or is not finite, moved away from the posterior)."""
    return float(metrics.relative_errors(np.zeros_like(ref.mean), np.ones_like(ref.sd), ref.mean, ref.sd)[0])


def mmd_noise(ref: MMDReference, num_draws: int, seed: int = 0, max_points: int = 1000) -> float:
    """The MMD² estimator's noise level at these sample sizes, as notebook 42's floor: max(|MMD²| of ``num_draws``
    held-out reference draws against a disjoint subset of the reference (an exact sampler), 1/n) with n the draws of q
    the estimator keeps (min(num_draws, max_points))."""
    u = np.asarray(ref.draws)
    n = min(int(num_draws), max_points, u.shape[0] // 2)
    perm = np.random.default_rng(seed + 4242).permutation(u.shape[0])
    a, b = u[perm[:n]], u[perm[n:n + min(max_points, u.shape[0] - n)]]
    floor = metrics.mmd_squared(a, b, ref.sd, ref.bandwidth, max_points=max(max_points, n))
    return float(max(abs(floor), 1.0 / n))


def comparison_cost(s: dict) -> tuple[float, str]:
    """C* of posterior study ``s`` and what set it ("RABVI MF trigger", "HMC final", "RABVI MF final (no trigger)")."""
    mf, hmc_final = s["paths"]["RABVI MF"], float(s["hmc"].cost[-1])
    if mf.stop is None:
        c, what = float(mf.cost[-1]), "RABVI MF final (no trigger)"
    else:
        c, what = float(mf.stop), "RABVI MF trigger"
    return (c, what) if c <= hmc_final else (hmc_final, "HMC final")


def comparison_table(studies: dict):
    """One row per (posterior, seed, method): the four errors at C* (`comparison_cost`), the method's own stop cost,
    whether the method had no point by C* (``before_first``) or HMC was still in its warmup, and the posterior's
    divergence threshold ``start_mean_err`` and MMD² noise level ``mmd_noise`` (`study`). ``studies``: any keys
    (e.g. (posterior, seed)), values of `study`."""
    import pandas as pd

    rows = []
    for s in studies.values():
        c, what = comparison_cost(s)
        for label, p in s["paths"].items():
            if label == "HMC":
                e, early = hmc_errors_at(s["hmc"], c, s["reference"])
                row = dict(zip(Errors._fields, e), before_first=False, in_warmup=early)
            else:
                j = int(np.searchsorted(p.cost, c, side="right")) - 1
                early, j = j < 0, max(j, 0)
                row = dict(mean_err=p.mean_err[j], sd_err=p.sd_err[j], undercoverage=p.undercoverage[j],
                           mmd2=p.mmd2[j], before_first=early, in_warmup=False)
            rows.append(dict(posterior=s["short"], seed=s.get("seed", 0), d=s["dim"], method=label, cost=c,
                             cost_set_by=what, own_stop=p.stop, start_mean_err=s.get("start_mean_err", np.nan),
                             mmd_noise=s.get("mmd_noise", np.nan), **row))
    return pd.DataFrame(rows)
