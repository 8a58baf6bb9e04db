"""Numerical checks of the theory of RABVI (Welandawe, Andersen, Vehtari & Huggins; notebook
40_rabvi_theory): Theorem 2.1, Propositions 4.1, 4.3, 4.4/4.5, 5.1, 5.2 and Definition 4.2.

Stationary regime (Thm 2.1, Props 4.4/4.5) — `stationary_study`: many independent chains of the
BBVI kernel (`lsvi.core.bbvi.kernel`) at each fixed learning rate γ, all started at the exact
optimum λ* (no transient) and driven by the *same* random numbers at every γ (common random
numbers: the differences λ̄_γ − λ̄_γ' then carry much less Monte Carlo noise than each λ̄_γ).
After `burn_in` steps the iterates are accumulated: λ̄_γ is the mean over chains and steps, and the
per-coordinate stationary spread is the sd of the iterates (pooled over chains).

Gaussian pairs (Props 4.1, 4.3, 5.1) — `random_gaussian_pairs` and one function per statement,
each returning the per-pair quantities so that the notebook counts violations. W_2 between
Gaussians is the closed form (Bures): W²(N(a, A), N(b, B)) = ‖a − b‖² + tr(A + B − 2(A^{1/2} B A^{1/2})^{1/2}),
and W_{2,Σ} is W_2 after the change of variable θ ↦ Σ^{-1/2}θ.

Definition 4.2 — `cstar_numeric`: the smallest c with log E exp(‖z‖²/c²) ≤ d/2 (z ~ N(0, I_d)), by
numerical integration of the χ²_d density and root finding, against c* = √(2/(1 − e⁻¹)).

Proposition 5.2 — `chi_argmin_numeric`, `check_schedule_cost`: the argmin over χ > 1 of
rχ + χ²/(χ − 1) (proof, eq. A.28), and the cost of the χ-geometric check schedule simulated for
W_opt/W_conv on a grid, against OPT (eq. A.21).

References
----------
M. Welandawe, M. R. Andersen, A. Vehtari, J. H. Huggins (2024). A framework for improving the
reliability of black-box variational inference. arXiv:2203.15945.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from scipy import integrate, optimize, special

from lsvi.core.bbvi import families, kernel, optimizers
from lsvi.core.losses import kl_gaussian


# ----------------------------------------------------------------------------- stationary regime
def meanfield_optimum(V) -> np.ndarray:
    """λ* = (0, ψ*) of the mean-field family for π = N(0, V): σ_i² = 1/[V⁻¹]_ii."""
    P = np.linalg.inv(np.asarray(V, float))
    return np.concatenate([np.zeros(len(P)), -0.5 * np.log(np.diag(P))])


def stationary_study(V, optimizer: str, gammas, num_chains: int, num_steps: int, burn_in: int, seed: int = 0,
                     num_samples: int = 10) -> dict:
    """Fixed-γ BBVI chains on π = N(0, V), mean-field family, started at λ*.

    Returns {"gamma" (G,), "mean" (G, 2d): λ̄_γ, "sd" (G, 2d): stationary sd of the iterates,
    "chain_means" (G, C, 2d), "lam_star" (2d,)}.
    """
    V = np.asarray(V, float)
    d = len(V)
    P = jnp.asarray(np.linalg.inv(V))
    fam = families.meanfield(d)
    bb = kernel.build(fam, lambda th: -0.5 * th @ P @ th, optimizers.get(optimizer), num_samples)
    lam_star = jnp.asarray(meanfield_optimum(V))
    keys = jax.random.split(jax.random.PRNGKey(seed), num_chains)

    @jax.jit
    def all_gammas(gammas):
        def chain(key, gamma):
            state = bb.init(lam_star)

            def body(carry, k):
                state, s1, s2, i = carry
                state, _ = bb.step(k, state, gamma)
                w = (i >= burn_in).astype(float)
                x = state.position
                return (state, s1 + w * x, s2 + w * x * x, i + 1), None

            zero = jnp.zeros_like(lam_star)
            (state, s1, s2, _), _ = jax.lax.scan(body, (state, zero, zero, 0), jax.random.split(key, num_steps))
            return s1, s2

        # chains × learning rates in one batch; the same key for a chain at every γ (common random numbers)
        s1, s2 = jax.vmap(jax.vmap(chain, in_axes=(0, None)), in_axes=(None, 0))(keys, gammas)
        n = num_steps - burn_in
        return s1 / n, s2 / n

    m1, m2 = (np.asarray(a) for a in all_gammas(jnp.asarray(gammas, float)))  # (G, C, 2d)
    mean = m1.mean(1)
    return {"gamma": np.asarray(gammas, float), "mean": mean, "sd": np.sqrt(np.maximum(m2.mean(1) - mean ** 2, 0.0)),
            "chain_means": m1, "lam_star": np.asarray(lam_star)}


def successive_skl(study: dict) -> np.ndarray:
    """δ_t = SKL(q_{λ̄_{γ_t}}, q_{λ̄_{γ_{t−1}}}) for consecutive γ's of a study (G − 1,) (Props 4.4/4.5)."""
    d = study["mean"].shape[1] // 2
    fam = families.meanfield(d)
    m = study["mean"]
    return np.array([float(families.skl(fam, jnp.asarray(m[t]), jnp.asarray(m[t - 1]))) for t in range(1, len(m))])


def skl_noise_floor(study: dict) -> np.ndarray:
    """Monte Carlo scale of δ_t: Σ_i Var(λ̄_i)/(σ-scale)², from the spread of the chain means (G,).

    For δ = SKL between two nearby mean-field members, δ ≈ Σ_i Δτ_i²/σ_i² + 2 Σ_i Δψ_i²; with
    independent errors of variance v_i on each λ̄_i this has expectation ≈ 2 × the same form in v_i.
    (Common random numbers make the actual noise of a difference smaller: this is an upper scale.)
    """
    d = study["mean"].shape[1] // 2
    C = study["chain_means"].shape[1]
    v = study["chain_means"].var(axis=1, ddof=1) / C
    sigma2 = np.exp(2 * study["mean"][:, d:])
    return 2 * (np.sum(v[:, :d] / sigma2, axis=1) + 2 * np.sum(v[:, d:], axis=1))


# ----------------------------------------------------------------------------- Gaussian pairs
def random_gaussian_pairs(seed: int, n: int, d_max: int = 5):
    """`n` random pairs [(d, m_η, Σ_η, m_ζ, Σ_ζ, Σ)], d uniform on 1..d_max, covariances A Aᵀ/d + 0.05 I
    with A having N(0, s²) entries and a log-uniform scale s ∈ [0.3, 3] (Σ is a third such matrix)."""
    rng = np.random.default_rng(seed)

    def cov(d):
        A = rng.normal(size=(d, d)) * np.exp(rng.uniform(np.log(0.3), np.log(3.0)))
        return A @ A.T / d + 0.05 * np.eye(d)

    out = []
    for _ in range(n):
        d = int(rng.integers(1, d_max + 1))
        out.append((d, rng.normal(size=d), cov(d), rng.normal(size=d) * rng.uniform(0, 1), cov(d), cov(d)))
    return out


def _sqrtm(A):
    w, U = np.linalg.eigh(A)
    return (U * np.sqrt(np.maximum(w, 0))) @ U.T


def w2_gaussian(m0, S0, m1, S1) -> float:
    """W_2(N(m0, S0), N(m1, S1)), closed form (Bures)."""
    r0 = _sqrtm(S0)
    cross = _sqrtm(r0 @ S1 @ r0)
    return float(np.sqrt(max(np.sum((m0 - m1) ** 2) + np.trace(S0 + S1 - 2 * cross), 0.0)))


def w2_sigma(m0, S0, m1, S1, Sigma) -> float:
    """W_{2,Σ} (eq. 8, p = 2): W_2 after θ ↦ Σ^{-1/2}θ."""
    Wi = np.linalg.inv(_sqrtm(Sigma))
    return w2_gaussian(Wi @ m0, Wi @ S0 @ Wi, Wi @ m1, Wi @ S1 @ Wi)


def prop41(pairs) -> dict:
    """Per pair: ε = W_{2,Σ}(η, ζ); eq. 9 lhs ‖Σ^{-1/2}(m_η − m_ζ)‖; eq. 10 lhs ‖Σ^{-1}(Σ_η − Σ_ζ)‖₂ and rhs
    2ε(ϱ + ε), ϱ = min{‖Σ^{-1}Σ_η‖₂^{1/2}, ‖Σ^{-1}Σ_ζ‖₂^{1/2}} (as printed); and the whitened (symmetric)
    reading ‖Σ^{-1/2}(Σ_η − Σ_ζ)Σ^{-1/2}‖₂ < 2ε(ϱ_w + ε), ϱ_w with Σ^{-1/2}Σ_·Σ^{-1/2}."""
    rows = {k: [] for k in ("eps", "mean_lhs", "cov_lhs", "cov_rhs", "covw_lhs", "covw_rhs")}
    for d, m0, S0, m1, S1, Sig in pairs:
        eps = w2_sigma(m0, S0, m1, S1, Sig)
        Wi = np.linalg.inv(_sqrtm(Sig))
        Si = np.linalg.inv(Sig)
        rho = min(np.linalg.norm(Si @ S0, 2), np.linalg.norm(Si @ S1, 2)) ** 0.5
        rho_w = min(np.linalg.norm(Wi @ S0 @ Wi, 2), np.linalg.norm(Wi @ S1 @ Wi, 2)) ** 0.5
        rows["eps"].append(eps)
        rows["mean_lhs"].append(float(np.linalg.norm(Wi @ (m0 - m1))))
        rows["cov_lhs"].append(float(np.linalg.norm(Si @ (S0 - S1), 2)))
        rows["cov_rhs"].append(2 * eps * (rho + eps))
        rows["covw_lhs"].append(float(np.linalg.norm(Wi @ (S0 - S1) @ Wi, 2)))
        rows["covw_rhs"].append(2 * eps * (rho_w + eps))
    return {k: np.array(v) for k, v in rows.items()}


def cstar() -> float:
    """c* = √(2/(1 − e⁻¹)) (Definition 4.2 for N(m, V), p = 2, Σ = c²V)."""
    return float(np.sqrt(2.0 / (1.0 - np.exp(-1.0))))


def log_mgf_chi2(d: int, c: float) -> float:
    """log E exp(‖z‖²/c²), z ~ N(0, I_d), by numerical integration of the χ²_d density (c² > 2)."""
    log_norm = -0.5 * d * np.log(2.0) - special.gammaln(0.5 * d)  # χ²_d density written out (scipy.stats is slow here)
    val, _ = integrate.quad(lambda x: np.exp(x / c ** 2 - x / 2 + (d / 2 - 1) * np.log(x) + log_norm), 0, np.inf,
                            limit=200)
    return float(np.log(val))


def cstar_numeric(d: int) -> float:
    """Smallest c with log E exp(‖z‖²/c²) ≤ d/2 (eq. 11 at θ' = m for N(m, V), Σ = c²V), by brentq."""
    return float(optimize.brentq(lambda c: log_mgf_chi2(d, c) - d / 2, 1.7, 1.9, xtol=1e-9))


def prop43(pairs, c: float | None = None) -> dict:
    """Per pair (η = N(m_η, Σ_η) with Σ = c*²Σ_η, so η is (2, Σ)-exponentially controlled; ζ the other):
    lhs W_{2,Σ}(ζ, η), rhs (3 + d) K_2(ζ|η), K_2 = KL^{1/2} + (KL/2)^{1/4} (eq. 12)."""
    c = cstar() if c is None else c
    lhs, rhs = [], []
    for d, m0, S0, m1, S1, _ in pairs:
        kl = max(float(kl_gaussian(*(jnp.asarray(a) for a in (m1, S1, m0, S0)))), 0.0)
        lhs.append(w2_sigma(m1, S1, m0, S0, c ** 2 * S0))
        rhs.append((3 + d) * (kl ** 0.5 + (kl / 2) ** 0.25))
    return {"lhs": np.array(lhs), "rhs": np.array(rhs)}


def prop51(seed: int, n: int) -> dict:
    """Random (τ̄, ψ̄), ε ~ U(0, 1/2), |ψ̂ − ψ̄| ≤ ε and |τ̂ − τ̄| ≤ εσ̂ (half the cases on the boundary):
    ratios |σ̂ − σ̄|/(σ̄ε) (bound 1.5) and |τ̂ − τ̄|/(σ̄ε) (bound 1.75) of eq. 28."""
    rng = np.random.default_rng(seed)
    eps = rng.uniform(1e-4, 0.5, n)
    psi_bar, tau_bar = rng.normal(size=n), rng.normal(size=n)
    boundary = rng.uniform(size=n) < 0.5
    u = np.where(boundary, np.sign(rng.uniform(-1, 1, n)), rng.uniform(-1, 1, n))
    v = np.where(boundary, np.sign(rng.uniform(-1, 1, n)), rng.uniform(-1, 1, n))
    psi_hat = psi_bar + u * eps
    sig_hat, sig_bar = np.exp(psi_hat), np.exp(psi_bar)
    tau_hat = tau_bar + v * eps * sig_hat
    return {"eps": eps, "sigma_ratio": np.abs(sig_hat - sig_bar) / sig_bar / eps,
            "tau_ratio": np.abs(tau_hat - tau_bar) / sig_bar / eps}


# ----------------------------------------------------------------------------- Proposition 5.2
def g(r):
    """g(r) = (2 + r + 2(1 + r)^{1/2})/(1 + r) (Prop. 5.2)."""
    r = np.asarray(r, float)
    return (2 + r + 2 * np.sqrt(1 + r)) / (1 + r)


def chi_argmin_numeric(r: float) -> tuple[float, float]:
    """(argmin, min) over χ > 1 of rχ + χ²/(χ − 1) (eq. A.28), numerically (bounded Brent)."""
    res = optimize.minimize_scalar(lambda x: r * x + x * x / (x - 1), bounds=(1 + 1e-9, 1e3), method="bounded",
                                   options={"xatol": 1e-12})
    return float(res.x), float(res.fun)


def check_schedule_cost(r: float, chi: float, ratios) -> np.ndarray:
    """Cost of checking at W_j = χ^j W_conv (j = 0, 1, ...) until W_j ≥ W_opt, divided by OPT (eq. A.21),
    for W_opt/W_conv in `ratios` (W_conv = 1; costs in units of C_E; C_O = r):
    actual = r W_{j*} + Σ_{j=0}^{j*} W_j, OPT = r W_opt + W_conv + W_opt."""
    q = np.asarray(ratios, float)
    j_star = np.maximum(np.ceil(np.log(q) / np.log(chi) - 1e-12), 0)  # first j with χ^j ≥ W_opt/W_conv
    total_checked = (chi ** (j_star + 1) - 1) / (chi - 1)  # Σ_{j=0}^{j*} χ^j
    return (r * chi ** j_star + total_checked) / (r * q + 1 + q)


# ----------------------------------------------------------------------------- summaries for claims
def slope_fit_points(study: dict, gamma_max: float = 0.1, floor_factor: float = 3.0) -> np.ndarray:
    """Mask of the δ_t (t ≥ 1) used for the Prop. 4.4/4.5 slope: γ_t ≤ `gamma_max` (asymptotic regime)
    and δ_t ≥ `floor_factor` × the Monte Carlo scale `skl_noise_floor` (not noise-dominated)."""
    delta = successive_skl(study)
    floor = skl_noise_floor(study)[1:]
    return (study["gamma"][1:] <= gamma_max) & (delta >= floor_factor * floor)


def stationary_summary(study: dict, gamma_max: float = 0.1) -> dict:
    """Slopes (with 95 % intervals) of |ψ̄_γ − ψ*| and sd(ψ) vs γ (Thm 2.1: 1 and 1/2) over all γ, and of
    δ_t vs γ_t (Props 4.4/4.5: 2κ) over the points of `slope_fit_points`."""
    from lsvi.exact.statistics import loglog_fit

    d = study["mean"].shape[1] // 2
    g_ = study["gamma"]
    bias = np.abs(study["mean"][:, d:] - study["lam_star"][d:]).mean(1)
    spread = study["sd"][:, d:].mean(1)
    delta = successive_skl(study)
    mask = slope_fit_points(study, gamma_max)
    out = {"gamma": g_, "bias": bias, "spread": spread, "delta": delta, "mask": mask, "n_fit": int(mask.sum())}
    out["bias_fit"] = loglog_fit(g_, bias) if len(g_) >= 2 else None
    out["spread_fit"] = loglog_fit(g_, spread) if len(g_) >= 2 else None
    out["delta_fit"] = loglog_fit(g_[1:][mask], delta[mask]) if mask.sum() >= 2 else None
    return out


def stationary_table(summaries: dict):
    """One row per (optimiser, γ): |ψ̄_γ − ψ*|, sd(ψ), δ_t (to the previous, larger γ) and whether δ_t is in the fit."""
    import pandas as pd

    rows = []
    for name, s in summaries.items():
        for i, gam in enumerate(s["gamma"]):
            rows.append({"optimizer": name, "gamma": gam, "psi_bias": s["bias"][i], "psi_sd": s["spread"][i],
                         "delta": s["delta"][i - 1] if i else np.nan, "in_fit": bool(s["mask"][i - 1]) if i else False})
    return pd.DataFrame(rows)
