"""RABVI's termination rule on posteriordb posteriors (Welandawe et al., Section 4.3, Figs C.4 / C.5) and the
optimiser comparison inside RABVI (Section 7.2, Fig. C.11).

Figs C.4 / C.5 (dogs, arK, nes2000; 8schools_nc, 8schools_c): per learning-rate epoch t of RABVI (avgAdam, mean
field, RMSProp warm start as Section 7.2), the estimated √SKL(q_{γ_t*}, q_*) = Ĉ^{1/2} γ_t^κ̂ of eq. 21 with a 95 %
credible interval, the green line at the epoch where Î = RSKL^·RI^ > τ fires (eq. 22, eq. 14, Section 4.3), and
(right) the realised √SKL of the iterate averages to the optimal mean-field approximation q_*, with the R̂
detection points (blue) and the Î computation points (orange). Section 4.3 states: "the termination rule triggers
when the square root of the symmetrized KL divergence is approximately equal to ξ. Figures C.3, C.4 and C.5 show
similar results of ... posteriordb models".

Pieces the library does not have (written here, `lsvi.core` is not edited):

* `skl_posterior`: the Bayesian regression of eq. 21 with the priors of eq. 23 (log C ~ Cauchy(0, 10),
  σ ~ Cauchy⁺(0, 10)), κ fixed at 1 (the paper's setting for avgAdam, mean field), likelihood terms raised to the
  eq. 25 weights, computed by quadrature on a (log C, σ) grid: posterior mean of C and the 95 % interval of
  C^{1/2} (the figure's dashed band). The rule itself uses the library's weighted least-squares Ĉ
  (`rabvi.wls_skl_regression`); the figure shows both.
* `optimal_meanfield`: q_* = argmin KL(q‖π) over the mean-field family, computed independently of RABVI by sample
  average approximation: the ELBO with S fixed standard-normal draws (common random numbers), maximised by L-BFGS
  (scipy) with JAX gradients. Its own error is measured by two independent draw sets (`study`'s ``qstar_error``).
* `run_rabvi`: `rabvi.rabvi` with the rule off (τ = ∞) up to K_max after the RMSProp warm start (as
  `rabvi_posteriordb.rabvi_averages`), keeping the `Epoch` records (δ_t, Ĉ, RSKL^, RI^, k_conv) that
  `rabvi_averages` drops. The trigger is replayed with `rabvi.stop_epoch` (τ = 1).

References
----------
M. Welandawe, M. R. Andersen, A. Vehtari, J. H. Huggins (2024). A framework for improving the reliability of
black-box variational inference. JMLR 25. (Section 4.3, eqs 21-26; Section 7.2; Figs C.4, C.5, C.11.)
"""
from __future__ import annotations

import warnings
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from scipy import optimize, stats

from lsvi.core.bbvi import families, faso, kernel, optimizers, rabvi
from lsvi.papers.rabvi import posteriordb as pdb
from lsvi.papers.rabvi import posteriordb_models as pm
from lsvi.papers.rabvi import posteriordb_study as rp

RHO = 0.5
OPTIMIZER_LABELS = {"rmsprop": "RMSProp", "avg_rmsprop": "avgRMSProp", "avg_adam": "avgAdam"}


class RabviRun(NamedTuple):
    """One RABVI run (rule off past its trigger). ``iterations`` (J,) cumulative iterations at each average,
    ``positions`` (J, P) the averages (row 0: the RMSProp warm start's), ``epochs`` the RABVI `Epoch`s (J − 1),
    ``trigger`` the row index where Î > τ fires (None: never within K_max), ``k_conv`` (J,) cumulative iteration of
    each epoch's R̂ detection (NaN: none)."""

    label: str
    iterations: np.ndarray
    positions: np.ndarray
    epochs: list
    trigger: int | None
    k_conv: np.ndarray


def run_rabvi(model: pm.Model, optimizer: str, key, *, k_max: int, xi: float = 0.1, tau: float = 1.0,
              gamma0: float = 0.3, num_samples: int = 10, warm_start: bool = True) -> RabviRun:
    """RABVI (mean field, ``optimizer`` a key of `optimizers.OPTIMIZERS`) from λ⁽⁰⁾ = 0 with Section 7.2's RMSProp
    warm start (one FASO run at γ₀, at most K_max/2 iterations), rule off up to ``k_max`` in all."""
    fam = families.meanfield(model.dim)
    bb = kernel.build(fam, model.logdensity, optimizers.get(optimizer), num_samples)
    lam0, its0, pts, kc = jnp.zeros(fam.num_params), 0, [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        if warm_start:
            warm = kernel.build(fam, model.logdensity, optimizers.get("rmsprop"), num_samples)
            fr = faso.faso(warm, lam0, gamma0, jax.random.fold_in(key, 7), eps=xi, r=1.0, k_max=k_max // 2,
                           meanfield_dim=model.dim)
            lam0, its0 = fr.position, fr.iterations
            pts.append(np.asarray(fr.position))
            kc.append(np.nan if fr.k_conv is None else fr.k_conv)
        res = rabvi.rabvi(bb, fam, lam0, key, gamma0=gamma0, xi=xi, tau=np.inf, k_max=k_max - its0, r=1.0)
    starts = its0 + np.concatenate([[0], np.cumsum([e.iterations for e in res.epochs])[:-1]])
    kc += [s + e.k_conv if e.k_conv is not None else np.nan for s, e in zip(starts, res.epochs)]
    its = its0 + np.cumsum([e.iterations for e in res.epochs])
    if pts:
        its = np.concatenate([[its0], its])
    t = rabvi.stop_epoch(res.epochs, tau)
    return RabviRun(OPTIMIZER_LABELS.get(optimizer, optimizer), its,
                    np.stack(pts + [np.asarray(e.position) for e in res.epochs]), list(res.epochs),
                    None if t is None else t + len(pts), np.asarray(kc, float))


def skl_posterior(gammas, deltas, rho: float = RHO, num_grid: int = 400) -> tuple[float, float, float]:
    """Eq. 21 with κ = 1 as a Bayesian regression (priors eq. 23, eq. 25 weights as likelihood powers), by
    quadrature on a (log C, log σ) grid: (posterior median, 2.5 % and 97.5 % quantiles of C^{1/2}). The paper
    uses the posterior mean of C; with 2-3 points and the Cauchy priors it is dominated by the tails (it can
    exceed the 97.5 % quantile by orders of magnitude), so the median is drawn.
    ``gammas``, ``deltas`` (T,), T ≥ 1: the learning rates and SKLs of consecutive averages of epochs 1..T."""
    y = np.log(np.asarray(deltas, float)) - 2 * np.log(1 / rho - 1) - 2 * np.log(np.asarray(gammas, float))
    w = rabvi.weights(len(y))
    centre = np.sum(w * y) / np.sum(w)
    log_c = centre + np.linspace(-40, 40, num_grid)
    log_s = np.linspace(np.log(1e-3), np.log(1e3), num_grid)
    lc, ls = np.meshgrid(log_c, log_s, indexing="ij")
    sig = np.exp(ls)
    loglik = sum(wt * stats.norm.logpdf(yt, lc, sig) for yt, wt in zip(y, w))
    logpost = loglik + stats.cauchy.logpdf(lc, 0, 10) + stats.halfcauchy.logpdf(sig, 0, 10) + ls  # + log σ: Jacobian
    p = np.exp(logpost - logpost.max())
    p /= p.sum()
    pc = p.sum(1)
    cdf = np.cumsum(pc)
    lo, med, hi = np.interp([0.025, 0.5, 0.975], cdf, log_c)
    return float(np.exp(med / 2)), float(np.exp(lo / 2)), float(np.exp(hi / 2))


def optimal_meanfield(model: pm.Model, key, num_draws: int = 20_000, lam_init=None) -> np.ndarray:
    """q_* (λ = (τ, ψ), 2d) maximising the sample-average ELBO mean_s log π(τ + e^ψ ⊙ z_s) + Σψ (z (S, d) fixed),
    by L-BFGS from ``lam_init`` (default 0). Independent of RABVI's optimiser, detection and averaging."""
    d = model.dim
    fam = families.meanfield(d)
    z = jax.random.normal(key, (num_draws, d))

    @jax.jit
    def neg(lam):
        lp = jax.vmap(model.logdensity)(fam.sample(lam, z))
        lp = jnp.where(jnp.isfinite(lp), lp, -1e300)
        return -(jnp.mean(lp) + fam.entropy(lam))

    vg = jax.jit(jax.value_and_grad(neg))

    def f(x):
        v, g = vg(jnp.asarray(x))
        return float(v), np.asarray(g, float)

    x0 = np.zeros(2 * d) if lam_init is None else np.asarray(lam_init, float)
    res = optimize.minimize(f, x0, jac=True, method="L-BFGS-B", options={"maxiter": 2000, "gtol": 1e-9})
    return np.asarray(res.x)


def sqrt_skl(lam0, lam1) -> float:
    """√SKL between two mean-field parameters (P,)."""
    d = len(lam0) // 2
    return float(np.sqrt(max(float(families.skl(families.meanfield(d), jnp.asarray(lam0), jnp.asarray(lam1))), 0.0)))


def diagnostics(run: RabviRun, lam_star, *, xi: float = 0.1, rho: float = RHO) -> list[dict]:
    """One row per RABVI epoch t ≥ 1 (the warm start and epoch 0 have no δ): γ_t, cumulative iterations, the R̂
    detection iteration, √δ_t/(1/ρ − 1) (the SKL data of eq. 21 read as an estimate of √SKL(q_γ, q_*)), the rule's
    estimate Ĉ_WLS^{1/2} γ_t, the Bayesian posterior median and 95 % interval of C^{1/2} γ_t (`skl_posterior`, epochs
    1..t), Î_t = RSKL^·RI^ (t ≥ 2), the realised √SKL(λ̄_t, q_*) and whether the rule fires at t."""
    off = len(run.positions) - len(run.epochs)
    rows = []
    for t, e in enumerate(run.epochs):
        if t < 1 or not np.isfinite(e.delta):  # epoch 0 has no δ; a FASO call cut by K_max none either
            continue
        g = np.array([x.gamma for x in run.epochs[1:t + 1]])
        dl = np.array([x.delta for x in run.epochs[1:t + 1]])
        med, lo, hi = skl_posterior(g, dl, rho)
        j = t + off
        rows.append({"epoch": t, "gamma": e.gamma, "iterations": int(run.iterations[j]), "k_conv": run.k_conv[j],
                     "data_sqrt_skl": float(np.sqrt(e.delta) / (1 / rho - 1)),
                     "est_sqrt_skl": float(np.sqrt(e.C_hat) * e.gamma), "bayes_sqrt_skl": med * e.gamma,
                     "lo": lo * e.gamma, "hi": hi * e.gamma, "I_hat": float(e.rskl * e.ri),
                     "real_sqrt_skl": sqrt_skl(run.positions[j], lam_star), "trigger": j == run.trigger})
    return rows


def study(name: str, *, k_max: int, seed: int = 0, xi: float = 0.1, qstar_draws: int = 20_000) -> dict:
    """Figs C.4 / C.5 for one posterior: a RABVI run (avgAdam; key PRNGKey(seed), as `study_posterior`'s
    RABVI MF), q_* the average of two SAA fits on independent draw sets (``qstar_error``: half the √SKL between the
    two fits, the error of their average when the fits' errors are independent and equal), the per-epoch diagnostics (`diagnostics`) and ``real_path`` (J,), √SKL(λ̄, q_*) of every
    average of the run."""
    model = pm.build(name)
    key = jax.random.PRNGKey(seed)
    run = run_rabvi(model, "avg_adam", key, k_max=k_max, xi=xi)
    start = run.positions[-1]
    q1 = optimal_meanfield(model, jax.random.fold_in(key, 31), qstar_draws, start)
    q2 = optimal_meanfield(model, jax.random.fold_in(key, 32), qstar_draws, start)
    q = (q1 + q2) / 2
    return {"name": model.name, "short": pdb.posterior(name).short, "dim": model.dim, "run": run, "qstar": q,
            "qstar_error": sqrt_skl(q1, q2) / 2, "rows": diagnostics(run, q, xi=xi), "xi": xi,
            "real_path": np.array([sqrt_skl(p, q) for p in run.positions])}


def optimizer_runs(name: str, reference: rp.UReference, optimizers_=("rmsprop", "avg_rmsprop", "avg_adam"),
                   seeds=(0,), *, k_max: int, xi: float = 0.1) -> dict:
    """Fig. C.11: {optimiser label: [`rabvi_posteriordb.Curve` per seed]} — RABVI (mean field, RMSProp warm start)
    with each optimiser, errors against ``reference``; seed s uses PRNGKey(s) (the same warm-start key for every
    optimiser: the comparison starts from the same point)."""
    model = pm.build(name)
    fam = families.meanfield(model.dim)
    out = {}
    for opt in optimizers_:
        curves = []
        for s in seeds:
            r = run_rabvi(model, opt, jax.random.PRNGKey(s), k_max=k_max, xi=xi)
            me, se = rp.relative_errors(fam, r.positions, reference)
            j = r.trigger
            curves.append(rp.Curve(OPTIMIZER_LABELS[opt], r.iterations, np.asarray(me), np.asarray(se),
                                   None if j is None else int(r.iterations[j]),
                                   np.nan if j is None else float(me[j]), np.nan if j is None else float(se[j])))
        out[OPTIMIZER_LABELS[opt]] = curves
    return {"name": model.name, "short": pdb.posterior(name).short, "dim": model.dim, "curves": out}
