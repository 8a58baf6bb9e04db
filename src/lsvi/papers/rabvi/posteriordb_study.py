"""Section 7.2 of the RABVI paper (Welandawe et al.): RABVI, FASO and Adam baselines on posteriordb posteriors.

Every posterior is a JAX log density on Stan's unconstrained space (`lsvi.papers.rabvi.posteriordb_models`), where
the Gaussian families live. Accuracy is measured against posteriordb's reference draws mapped to that space
(`unconstrained_reference`: ``model.unconstrain`` of every draw, then mean μ and sd σ (d,)); dogs and dogs_log have
no posteriordb reference, and the paper ran Stan's dynamic HMC instead: here Blackjax NUTS (`nuts_reference`).
The reference never involves the VI methods under test. The two errors of Figs 2, 8, 9 are

    relative mean error  ‖(μ − μ̂)/σ‖₂,      relative sd error  ‖(σ − σ̂)/σ‖₂,

with μ̂, σ̂ the mean and marginal sds of q_λ (`relative_errors`). Fig. C.14 measures the same RABVI runs in
MMD²(q_λ, π) (`mmd_path`, `approximation_metrics.mmd_squared`): a fixed number of draws of q_λ at each epoch
average against as many reference draws kept by the reference (a random subset), coordinates divided by σ and a
Gaussian kernel whose width is the median heuristic on the reference subset (the paper gives no width); a second,
disjoint reference subset gives the MMD² an exact sampler would show (`mmd_floor`).

Methods (`study_posterior`), each from λ⁽⁰⁾ = 0 (mean 0, unit sds):

* RABVI (Algorithm 2, paper defaults γ₀ = 0.3, W_min = 200, ρ = 0.5, τ = 1, ε₀ = ξ, M = 10, avgAdam, κ = 1 for the
  averaged optimiser) run with its rule switched off (τ = ∞) up to ``k_max`` iterations, and the epoch at which the
  rule RSKL^·RI^ > τ = 1 *would* have fired recorded (`rabvi.stop_epoch`): Fig. 9's curves continue past their red
  trigger dots; the run up to the trigger is exactly the run RABVI makes with τ = 1 (same keys, same epochs);
* FASO (Algorithm 1, avgAdam at γ = 0.01, ε = 0.1), budget ``num_steps``; its curve is the trailing-20 % average of
  its iterates every 200 iterations, its stopping point the average it returns;
* the Adam baselines of Fig. 8 (`lsvi.papers.rabvi.gaussian.run_gamma_schedule`): fixed γ = 0.01, exponential decay
  γ_k = 0.01·0.96^⌊k/900⌋ and cosine 10⁻⁴…10⁻² (Section 7's schedules), averaged every 200th iteration over the last
  20 % of iterations as Fig. 8's caption says; and Fig. 2's SGD with exponential decay (γ₀ 0.01, or 0.001 for
  nes2000 "due to optimization instability").

Choices where the paper is silent or that differ: the paper initialises "using RMSProp for the initial learning
rate only"; `lsvi.core.bbvi.rabvi` has one optimiser, so the RMSProp epoch is one FASO run at γ₀ before RABVI,
whose first (avgAdam) epoch then also runs at γ₀ (one extra, short epoch; the rule may still fire first at γ₀ρ²,
as in the paper). Without it avgAdam at γ₀ = 0.3 from λ⁽⁰⁾ = 0 did not converge within 20,000 iterations on arK,
nes2000, sblrc, earnings (its averaged squared gradients keep the early huge gradients). FASO's check-cost ratio is
fixed at r = 1 (reproducibility); the first baseline curve point is at iteration 200.

References
----------
M. Welandawe, M. R. Andersen, A. Vehtari, J. H. Huggins (2024). A framework for improving the reliability of
black-box variational inference. JMLR 25. (Section 7.2, Figs 2, 8, 9; Table C.1.)
"""
from __future__ import annotations

import warnings
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from lsvi.core.bbvi import families, faso, kernel, optimizers, rabvi
from lsvi.papers.rabvi import approximation_metrics as metrics
from lsvi.papers.rabvi import posteriordb as pdb
from lsvi.papers.rabvi import posteriordb_models as pm
from lsvi.papers.rabvi.gaussian import run_gamma_schedule, schedule


class UReference(NamedTuple):
    """Reference mean and sd (d,) of the posterior on the unconstrained space, and where they come from; for the
    MMD (Fig. C.14): ``draws`` (S', d), a random subset of the reference draws, ``holdout`` (S'', d), another one
    disjoint from it (the MMD² an exact sampler shows: the estimator's noise floor), and the kernel width
    ``bandwidth`` (`approximation_metrics.median_bandwidth` on ``draws``). None / NaN when not kept."""

    mean: np.ndarray
    sd: np.ndarray
    source: str
    draws: np.ndarray | None = None
    holdout: np.ndarray | None = None
    bandwidth: float = np.nan


def _with_draws(mean, sd, source, u, max_draws: int, seed: int) -> UReference:
    """``u`` (S, d) reference draws: keep two disjoint random subsets of at most ``max_draws`` each (0: none)."""
    if max_draws <= 0:
        return UReference(mean, sd, source)
    perm = np.random.default_rng(seed).permutation(u.shape[0])
    n = min(max_draws, u.shape[0] // 2)
    draws, holdout = u[perm[:n]], u[perm[n:2 * n]]
    return UReference(mean, sd, source, draws, holdout, metrics.median_bandwidth(draws, sd, max_points=n))


def unconstrained_reference(model: pm.Model, max_draws: int = 0, seed: int = 0) -> UReference:
    """posteriordb's reference draws (S, p) mapped to the unconstrained space (S, d): their mean and sd, and
    (``max_draws`` > 0) two disjoint random subsets of them for the MMD (`UReference`).
    Raises `LookupError` for the posteriors without reference draws (dogs, dogs_log; diamonds and mcycle_gp,
    whose committed references are constrained summary statistics only)."""
    u = unconstrained_draws(model)
    return _with_draws(u.mean(0), u.std(0, ddof=1), f"posteriordb draws ({u.shape[0]})", u, max_draws, seed)


def unconstrained_draws(model: pm.Model) -> np.ndarray:
    """posteriordb's reference draws (S, p) of ``model`` mapped by ``model.unconstrain`` (S, d)."""
    return np.asarray(jax.vmap(model.unconstrain)(jnp.asarray(pdb.load_reference(model.name).flat)))


def nuts_reference(model: pm.Model, num_chains: int = 4, num_warmup: int = 1000, num_draws: int = 1000,
                   seed: int = 0, max_draws: int = 0) -> UReference:
    """Blackjax NUTS on the unconstrained space (the paper: Stan's dynamic HMC, 4 chains x 50,000) where
    posteriordb has no reference (`posteriordb_models.sample_nuts`, the translation check's sampler)."""
    pos, res = pm.sample_nuts(model, num_chains, num_warmup, num_draws, seed)
    u = np.asarray(pos).reshape(-1, model.dim)
    return _with_draws(u.mean(0), u.std(0, ddof=1),
                       f"Blackjax NUTS {num_chains} x ({num_warmup} + {num_draws}), R̂ max {res.rhat_max:.3f}", u,
                       max_draws, seed)


def reference_for(model: pm.Model, nuts_draws: int = 1000, seed: int = 0, max_draws: int = 0) -> UReference:
    """posteriordb's draws where they exist, else a NUTS reference of ``nuts_draws`` draws per chain."""
    if pdb.has_reference_draws(model.name):
        return unconstrained_reference(model, max_draws, seed)
    return nuts_reference(model, num_warmup=nuts_draws, num_draws=nuts_draws, seed=seed, max_draws=max_draws)


def relative_errors(family: families.Family, lams, ref: UReference) -> tuple[np.ndarray, np.ndarray]:
    """(‖(μ − μ̂)/σ‖₂, ‖(σ − σ̂)/σ‖₂) of each λ in ``lams`` (J, P) -> ((J,), (J,))."""
    lams = jnp.atleast_2d(jnp.asarray(lams, float))
    m, cov = jax.vmap(family.mean_cov)(lams)
    return metrics.relative_errors(m, jnp.sqrt(jnp.diagonal(cov, axis1=1, axis2=2)), ref.mean, ref.sd)


def mmd_path(family: families.Family, lams, ref: UReference, key, num_draws: int) -> np.ndarray:
    """MMD²(q_λ, π) (`approximation_metrics.mmd_squared`) of each λ in ``lams`` (J, P) -> (J,): ``num_draws`` draws
    of q_λ against ``ref.draws``, coordinates divided by ``ref.sd``, kernel width ``ref.bandwidth``. The same
    standard normal z (num_draws, d) serves every λ (common random numbers: the path's changes are q_λ's)."""
    z = jax.random.normal(key, (num_draws, family.dim))
    lams = jnp.atleast_2d(jnp.asarray(lams, float))
    n = max(num_draws, ref.draws.shape[0])
    return np.array([metrics.mmd_squared(family.sample(lam, z), ref.draws, ref.sd, ref.bandwidth, max_points=n)
                     for lam in lams])


def mmd_floor(ref: UReference, num_draws: int) -> float:
    """MMD² of ``num_draws`` held-out reference draws against ``ref.draws``: what an exact sampler would show
    (the unbiased estimator's noise level at this number of draws)."""
    n = max(num_draws, ref.draws.shape[0])
    return metrics.mmd_squared(ref.holdout[:num_draws], ref.draws, ref.sd, ref.bandwidth, max_points=n)


class Curve(NamedTuple):
    """A method's accuracy path: ``iterations`` (J,), errors (J,), and its stopping point (``stop`` iterations,
    None when it has no rule or the rule never fired; the errors there). ``mmd`` (J,): MMD²(q, π) along the
    path (RABVI curves with ``mmd_draws`` > 0, else None) and ``stop_mmd`` its value at the stopping point."""

    label: str
    iterations: np.ndarray
    mean_err: np.ndarray
    sd_err: np.ndarray
    stop: int | None
    stop_mean_err: float
    stop_sd_err: float
    mmd: np.ndarray | None = None
    stop_mmd: float = np.nan


def rabvi_averages(bbvi, family, lam0, key, *, k_max: int, xi: float = 0.1, tau: float = 1.0, gamma0: float = 0.3,
                   regression=rabvi.wls_skl_regression, fix_kappa: bool = True, warm_start=None):
    """RABVI with the rule off (τ = ∞) up to ``k_max`` iterations in all: (cumulative iterations (J,), the averages
    λ̄ (J, P), the index j of the point where the rule with ``tau`` fires, or None).

    ``warm_start`` (a `BBVI` with RMSProp, or None): Section 7.2's initialisation "using RMSProp for the initial
    learning rate only", done as one FASO run (RMSProp, γ₀, ε = ξ, at most k_max/2 iterations) from λ⁽⁰⁾ whose
    average starts RABVI; its iterations count in the path (first point)."""
    its0, pts = 0, []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        if warm_start is not None:
            fr = faso.faso(warm_start, lam0, gamma0, jax.random.fold_in(key, 7), eps=xi, r=1.0, k_max=k_max // 2,
                           meanfield_dim=family.dim if family.name == "meanfield" else None)
            lam0, its0 = fr.position, fr.iterations
            pts.append(fr.position)
        res = rabvi.rabvi(bbvi, family, lam0, key, gamma0=gamma0, xi=xi, tau=np.inf, k_max=k_max - its0, r=1.0,
                          regression=regression, fix_kappa=fix_kappa)
    its = its0 + np.cumsum([e.iterations for e in res.epochs])
    its = np.concatenate([[its0], its]) if pts else its
    t = rabvi.stop_epoch(res.epochs, tau)
    return its, np.stack(pts + [e.position for e in res.epochs]), (None if t is None else t + len(pts))


def rabvi_curve(label, bbvi, family, lam0, key, ref, *, k_max: int, xi: float = 0.1, tau: float = 1.0,
                gamma0: float = 0.3, regression=rabvi.wls_skl_regression, fix_kappa: bool = True,
                warm_start=None, mmd_draws: int = 0) -> Curve:
    """The errors of `rabvi_averages`' averages at their cumulative iterations and the point where the rule with
    ``tau`` fires. ``mmd_draws`` > 0: also the MMD² of every point (`mmd_path`, needs ``ref.draws``)."""
    its, lams, j = rabvi_averages(bbvi, family, lam0, key, k_max=k_max, xi=xi, tau=tau, gamma0=gamma0,
                                  regression=regression, fix_kappa=fix_kappa, warm_start=warm_start)
    me, se = relative_errors(family, lams, ref)
    mmd = mmd_path(family, lams, ref, jax.random.fold_in(key, 5), mmd_draws) if mmd_draws > 0 else None
    if j is None:
        return Curve(label, its, me, se, None, np.nan, np.nan, mmd)
    return Curve(label, its, me, se, int(its[j]), float(me[j]), float(se[j]), mmd,
                 float(mmd[j]) if mmd is not None else np.nan)


def faso_curve(label, bbvi, family, lam0, key, ref, *, gamma: float, num_steps: int, eps: float = 0.1,
               every: int = 200, frac: float = 0.2) -> Curve:
    """FASO at ``gamma`` (budget ``num_steps``): trailing-``frac`` averages of its trace every ``every`` iterations,
    and the average it returns where it succeeds."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        fr = faso.faso(bbvi, lam0, gamma, key, eps=eps, r=1.0, k_max=num_steps,
                       meanfield_dim=family.dim if family.name == "meanfield" else None)
    ks = np.arange(every, fr.trace.shape[0] + 1, every)
    avgs = trailing_averages(fr.trace, ks, frac)
    me, se = relative_errors(family, avgs, ref)
    if not fr.success:
        return Curve(label, ks, me, se, None, np.nan, np.nan)
    m1, s1 = relative_errors(family, fr.position[None], ref)
    return Curve(label, ks, me, se, int(fr.iterations), float(m1[0]), float(s1[0]))


def trailing_averages(trace, ks, frac: float = 0.2) -> np.ndarray:
    """The average of the last ``frac`` of the iterates ``trace`` (K, P) up to each k in ``ks`` -> (len(ks), P)."""
    return np.array([trace[k - max(int(frac * k), 1):k].mean(0) for k in ks]).reshape(len(ks), trace.shape[1])


def baseline_curve(label, bbvi, family, lam0, key, ref, gammas) -> Curve:
    """A baseline with learning rates ``gammas`` (num_steps,), averaged as in Fig. 8's caption."""
    c = run_gamma_schedule(bbvi, lam0, gammas, key)
    me, se = relative_errors(family, c.averages, ref)
    return Curve(label, c.iterations, me, se, None, np.nan, np.nan)


BASELINES = {"Adam": ("adam", "fixed", 0.01), "Adam-ED": ("adam", "exp_decay", 0.01),
             "Adam-C": ("adam", "cosine", 0.01), "SGD-ED": ("sgd", "exp_decay", 0.01)}
SGD_GAMMA0 = {"nes2000-nes": 0.001}  # Fig. 2's caption: a smaller initial rate for nes2000


def study_posterior(name: str, *, num_steps: int, k_max: int, baselines=("Adam", "Adam-ED", "Adam-C"),
                    rabvi_families=("meanfield",), xis=(0.1,), faso_gamma: float | None = 0.01, num_samples: int = 10,
                    seed: int = 0, regression=rabvi.wls_skl_regression, nuts_draws: int = 1000,
                    warm_start: bool = True, mmd_draws: int = 0) -> dict:
    """Every curve of Figs 2, 8, 9 for posterior ``name``: RABVI (avgAdam) for each family in ``rabvi_families``
    and accuracy threshold in ``xis`` (rule off up to ``k_max``, trigger recorded), FASO (mean field, avgAdam,
    γ = ``faso_gamma``; None: not run) and each baseline (keys of `BASELINES`, mean field) for ``num_steps``.
    ``mmd_draws`` > 0: the RABVI curves also carry MMD² (Fig. C.14) from that many draws of q against as many
    reference draws, and "mmd_floor" is the MMD² of as many held-out reference draws (`mmd_floor`).
    Returns {"name", "short", "dim", "reference" (`UReference`), "curves": {label: `Curve`}, "mmd_floor"}."""
    model = pm.build(name)
    ref = reference_for(model, nuts_draws=nuts_draws, seed=seed, max_draws=mmd_draws)
    d = model.dim
    key = jax.random.PRNGKey(seed)
    curves, built = {}, {}
    for fname in rabvi_families:
        fam = getattr(families, fname)(d)
        bb = built[fname] = kernel.build(fam, model.logdensity, optimizers.get("avg_adam"), num_samples)
        warm = kernel.build(fam, model.logdensity, optimizers.get("rmsprop"), num_samples) if warm_start else None
        for i, xi in enumerate(xis):  # several ξ (Fig. 2): independent runs (own keys), else coupled iterates
            label = f"RABVI {'MF' if fname == 'meanfield' else 'FR'}" + (f" ξ={xi:g}" if len(xis) > 1 else "")
            k_xi = jax.random.fold_in(key, 1000 + i) if len(xis) > 1 else key
            curves[label] = rabvi_curve(label, bb, fam, jnp.zeros(fam.num_params), k_xi, ref, k_max=k_max, xi=xi,
                                        regression=regression, warm_start=warm, mmd_draws=mmd_draws)
    mf = families.meanfield(d)
    lam0 = jnp.zeros(2 * d)
    if faso_gamma is not None:
        bb = built.get("meanfield") or kernel.build(mf, model.logdensity, optimizers.get("avg_adam"), num_samples)
        curves["FASO"] = faso_curve("FASO", bb, mf, lam0, jax.random.fold_in(key, 99), ref, gamma=faso_gamma,
                                    num_steps=num_steps)
    for i, label in enumerate(baselines):
        opt, kind, g0 = BASELINES[label]
        if label == "SGD-ED":
            g0 = SGD_GAMMA0.get(model.name, g0)
        bb = kernel.build(mf, model.logdensity, optimizers.get(opt), num_samples)
        lbl = f"{label} (γ₀={g0:g})" if label == "SGD-ED" else label
        curves[lbl] = baseline_curve(lbl, bb, mf, lam0, jax.random.fold_in(key, i + 1), ref,
                                     schedule(kind, num_steps, gamma=g0, gamma_max=g0))
    floor = mmd_floor(ref, mmd_draws) if mmd_draws > 0 else np.nan
    return {"name": model.name, "short": pdb.posterior(name).short, "dim": d, "reference": ref, "curves": curves,
            "mmd_floor": floor}


def at_iteration(curve: Curve, k: int) -> tuple[float, float]:
    """A curve's (mean, sd) errors at its last point ≤ k (its first point if k is smaller)."""
    j = max(int(np.searchsorted(curve.iterations, k, side="right")) - 1, 0)
    return float(curve.mean_err[j]), float(curve.sd_err[j])


def summary_table(studies: dict):
    """One row per (posterior, method): stopping iterations and errors there, and final errors."""
    import pandas as pd

    rows = []
    for s in studies.values():
        for c in s["curves"].values():
            rows.append({"posterior": s["short"], "d": s["dim"], "method": c.label, "stop": c.stop,
                         "stop_mean_err": c.stop_mean_err, "stop_sd_err": c.stop_sd_err,
                         "final_iterations": int(c.iterations[-1]), "final_mean_err": float(c.mean_err[-1]),
                         "final_sd_err": float(c.sd_err[-1]), "stop_mmd2": c.stop_mmd,
                         "final_mmd2": float(c.mmd[-1]) if c.mmd is not None else np.nan,
                         "reference": s["reference"].source})
    return pd.DataFrame(rows)
