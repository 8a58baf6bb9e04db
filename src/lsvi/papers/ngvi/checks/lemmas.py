"""The proof lemmas of Wu & Gardner (2024), Appendices A.1, A.2 and C, as numerical checks on the conjugate
set-up of Example 1 (Bayesian linear regression, mini-batch stochastic NGD, eq. 15; notebook 50).

The paper copy lost the inline mathematics of these statements; every formula below is **reconstructed** from
the surrounding definitions and the steps of the proofs that survive in words (Appendix C's "roadmap"), with
the paper's notation: θ = (θ₁, θ₂) = (Σ⁻¹μ, −½Σ⁻¹) (eq. 5), ω = (ω₁, ω₂) = (μ, Σ + μμᵀ) (eq. 6),
u_i = y_i x_i / s², the data term of the gradient ĝ_t = (n/B) Σ_b (u_b, −x_b x_bᵀ/(2s²)) and its full-data
value g = Σ_i (u_i, −x_i x_iᵀ/(2s²)) (eq. 15, ρ_t the step), Δ_t = ĝ_t − g = ∇F(ω_t) − ĝ_F,t (the noise of the
negative-ELBO gradient), θ_{t+1} the stochastic step, θ̃_{t+1} the exact-gradient step from θ_t, so that
θ_{t+1} − θ̃_{t+1} = ρ_t Δ_t. Matrix differences are measured in the Frobenius norm (Lemma 3's proof pairs them
with the trace inner product by Cauchy–Schwarz), operator bounds in the spectral norm.

  Lemma 5 (reconstructed)   λ = min(λ_min(Σ₀⁻¹), λ_min(S₀⁻¹)) (initialisation Σ₀, prior S₀): −2θ_{t,2} ⪰ λI.
  Lemma 6 (reconstructed)   A, B ⪰ cI  ⟹  ‖A⁻¹ − B⁻¹‖ ≤ ‖A − B‖ / c²   (spectral and Frobenius).
  Lemma 7 (reconstructed)   E_t‖Δ_{t,1}‖² ≤ n² V₁ / B,   V₁ = (1/n) Σ_i ‖u_i − ū‖²           (an equality).
  Lemma 8 (reconstructed)   E_t‖Δ_{t,2}‖²_F ≤ n² V₂ / B,  V₂ = (1/n) Σ_i ‖x_ix_iᵀ/(2s²) − mean‖²_F   (eq. 19).
  Lemma 9 (reconstructed)   C = {Σ_i c_i u_i : c_i ≥ 0, Σ_i c_i ≤ n} (convex, ∋ 0 and ĝ_{t,1}, g₁):
                            θ_{t,1} ∈ C and θ̃_{t,1} ∈ C for every t (zero-mean prior, ρ_t ≤ 1).
  Corollary 1 (reconstr.)   ‖θ_{t,1}‖, ‖θ̃_{t,1}‖ ≤ Θ := n max_i ‖u_i‖.
  Corollary 2 (reconstr.)   ‖ω_{t,1}‖, ‖ω̃_{t,1}‖ ≤ Ω := Θ / λ   (ω₁ = μ = Σθ₁ and ‖Σ‖ ≤ 1/λ by Lemma 5).
  Lemma 10 (reconstructed)  ‖ω_{t+1,1} − ω̃_{t+1,1}‖ ≤ ρ_t (‖Δ_{t,1}‖/λ + 2Θ‖Δ_{t,2}‖/λ²)     (pathwise).
  Lemma 11 (reconstructed)  ‖ω_{t+1,2} − ω̃_{t+1,2}‖_F ≤ 2ρ_t‖Δ_{t,2}‖_F/λ² + 2Ω · (Lemma 10's bound).
  Lemma 3 (reconstructed)   σ_t² ≤ C₁ E‖Δ₁‖² + C₂ E‖Δ₂‖²_F = (n²/B)(C₁V₁ + C₂V₂) with
                            C₁ = 1/λ + 2Θ/λ², C₂ = 2/λ² + 2Θ/λ² + 4Θ²/λ³ (Cauchy–Schwarz, Lemmas 10–11, 2ab ≤ a² + b²).
  App. A.1                  A* (eq. 18) is neither smooth nor strongly convex: in d = 1 at ω = (0, Σ) the
                            Hessian has eigenvalues 1/Σ and 1/(2Σ²) (unbounded above as Σ → 0, → 0 as Σ → ∞).
  App. A.2                  ∇A(θ) = ω and ∇A*(ω) = θ, with A(θ) = −¼θ₁ᵀθ₂⁻¹θ₁ − ½ log det(−2θ₂) + (d/2) log 2π (eq. 17).

The derivations of Lemmas 10–11 and of Lemma 3's constant: ω₁ = −½θ₂⁻¹θ₁, so
ω_{1} − ω̃_{1} = −½θ₂⁻¹(θ₁ − θ̃₁) − ½(θ₂⁻¹ − θ̃₂⁻¹)θ̃₁ with ‖½θ₂⁻¹‖ ≤ 1/λ (Lemma 5), θ₁ − θ̃₁ = ρΔ₁,
‖θ₂⁻¹ − θ̃₂⁻¹‖ ≤ 4ρ‖Δ₂‖/λ² (Lemma 6 on −2θ₂, −2θ̃₂ ⪰ λI) and ‖θ̃₁‖ ≤ Θ (Corollary 1); then
ω₂ − ω̃₂ = −½(θ₂⁻¹ − θ̃₂⁻¹) + ω₁(ω₁ − ω̃₁)ᵀ + (ω₁ − ω̃₁)ω̃₁ᵀ with ‖ω₁‖, ‖ω̃₁‖ ≤ Ω (Corollary 2). Lemma 3:
ρσ² = E⟨Δ, ω_{t+1} − ω̃_{t+1}⟩ ≤ E[‖Δ₁‖·(Lemma 10) + ‖Δ₂‖_F·(Lemma 11)], and ab ≤ (a² + b²)/2 on the cross terms.

The trajectories are the library's: `lsvi.papers.ngvi.checks.rates` (`ngd_step`, `ngd_run`, `batch_indices`, which call
`lsvi.core.ngvi.step`). The gauge of Lemma 9's set is a linear programme (scipy's HiGHS).

References
----------
K. Wu, J. R. Gardner (2024). Understanding stochastic natural gradient variational inference.
ICML 2024 (arXiv:2406.01870), Appendices A and C.
"""
from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from scipy.optimize import linprog

from lsvi.papers.ngvi.checks import rates as nr
from lsvi.papers.ngvi.checks.rates import Problem

GAUGE_TOL = 1e-6  # tolerance on Lemma 9's γ ≤ 1: γ is an LP optimum (HiGHS primal feasibility ~1e-7)


# ----------------------------------------------------------------------------- parameters in the paper's form
def paper_natural(eta, d: int):
    """The paper's θ = (θ₁ (..., d), θ₂ (..., d, d)) = (Σ⁻¹μ, −½Σ⁻¹) of the project's η (..., m) (eq. 5), numpy.

    The project stores η = (η⁽⁰⁾, Σ⁻¹μ, upper-triangular coefficients of −½Σ⁻¹ with doubled off-diagonals)
    (`gaussian.quad_matrix`); this is a change of storage, no inversion, defined even where θ₂ is not negative
    definite (ρ > 1)."""
    eta = np.asarray(eta, float)
    iu = np.triu_indices(d)
    upper = np.zeros(eta.shape[:-1] + (d, d))
    upper[..., iu[0], iu[1]] = eta[..., d + 1:]
    return eta[..., 1:d + 1], 0.5 * (upper + np.swapaxes(upper, -1, -2))


def expectation_from_natural(theta1, theta2):
    """ω = (μ, Σ + μμᵀ) from θ (..., d), (..., d, d) by the closed-form relations Σ = (−2θ₂)⁻¹, μ = Σθ₁ (eq. 5–6),
    numpy inverses (an independent route from the library's Cholesky `moments`)."""
    cov = np.linalg.inv(-2.0 * np.asarray(theta2))
    mu = np.einsum("...ij,...j->...i", cov, np.asarray(theta1))
    return mu, cov + mu[..., :, None] * mu[..., None, :]


# ----------------------------------------------------------------------------- data constants (Lemmas 5, 7, 8, Cor. 1–2)
class Constants(NamedTuple):
    """λ (Lemma 5), Θ (Corollary 1), Ω = Θ/λ (Corollary 2), V₁ (Lemma 7), V₂ (Lemma 8), n; from the data and prior only."""

    lam: float
    Theta: float
    Omega: float
    V1: float
    V2: float
    n: int


def lemma5_lambda(p: Problem, cov0=None) -> float:
    """λ = min(λ_min(Σ₀⁻¹), λ_min(S₀⁻¹)) (Lemma 5, reconstructed): −2θ_{t,2} = Σ_t⁻¹ ⪰ λI along NGD with ρ_t ≤ 1.
    cov0 (d, d): the initial covariance (default the prior's, as in notebook 50)."""
    S0 = np.asarray(p.S0)
    c0 = S0 if cov0 is None else np.asarray(cov0)
    return float(min(1.0 / np.linalg.eigvalsh(S0).max(), 1.0 / np.linalg.eigvalsh(c0).max()))


def constants(p: Problem, cov0=None) -> Constants:
    """Constants of Appendix C computed from X (n, d), y (n,), s and the prior, never from an iterate:
    Θ = n max_i ‖y_i x_i‖/s² (Cor. 1), Ω = Θ/λ (Cor. 2), V₁ = mean_i ‖u_i − ū‖² (Lemma 7),
    V₂ = mean_i ‖x_ix_iᵀ/(2s²) − mean‖²_F (Lemma 8), all reconstructed."""
    X, y, s2 = np.asarray(p.X), np.asarray(p.y), p.s**2
    n = X.shape[0]
    u = y[:, None] * X / s2
    lam = lemma5_lambda(p, cov0)
    Theta = float(n * np.linalg.norm(u, axis=1).max())
    V1 = float(np.mean(np.sum((u - u.mean(0)) ** 2, axis=1)))
    # ‖xxᵀ/(2s²) − M‖²_F = ‖x‖⁴/(4s⁴) − xᵀMx/s² + ‖M‖²_F, M = XᵀX/(2 n s²): no (n, d, d) array
    M = X.T @ X / (2 * n * s2)
    sq = np.sum(X**2, axis=1)
    V2 = float(np.mean(sq**2 / (4 * s2**2) - np.einsum("id,de,ie->i", X, M, X) / s2) + np.sum(M**2))
    return Constants(lam, Theta, Theta / lam, V1, V2, n)


def lemma78_bounds(c: Constants, batch_size: int):
    """(n²V₁/B, n²V₂/B): the bounds of Lemma 7 on E‖Δ₁‖² and of Lemma 8 (eq. 19) on E‖Δ₂‖²_F (reconstructed)."""
    return c.n**2 * c.V1 / batch_size, c.n**2 * c.V2 / batch_size


def lemma10_rhs(rho, d1, d2, c: Constants):
    """Lemma 10 (reconstructed): ρ(‖Δ₁‖/λ + 2Θ‖Δ₂‖/λ²) for draws d1 = ‖Δ₁‖ (K,), d2 = ‖Δ₂‖_F (K,)."""
    return rho * (d1 / c.lam + 2 * c.Theta * d2 / c.lam**2)


def lemma11_rhs(rho, d1, d2, c: Constants):
    """Lemma 11 (reconstructed): 2ρ‖Δ₂‖_F/λ² + 2Ω · lemma10_rhs, per draw (K,)."""
    return 2 * rho * d2 / c.lam**2 + 2 * c.Omega * lemma10_rhs(rho, d1, d2, c)


def lemma3_constants(c: Constants):
    """(C₁, C₂) with σ_t² ≤ C₁ E‖Δ₁‖² + C₂ E‖Δ₂‖²_F (Lemma 3's constant, reconstructed from Lemmas 10–11, see the
    module docstring): C₁ = 1/λ + 2Θ/λ², C₂ = 2/λ² + 2Θ/λ² + 4Θ²/λ³."""
    lam, Th = c.lam, c.Theta
    return 1 / lam + 2 * Th / lam**2, 2 / lam**2 + 2 * Th / lam**2 + 4 * Th**2 / lam**3


def lemma3_bound(c: Constants, batch_size: int) -> float:
    """Lemma 3's bound on σ_t² (eq. 12), reconstructed: (n²/B)(C₁V₁ + C₂V₂); independent of t."""
    C1, C2 = lemma3_constants(c)
    b1, b2 = lemma78_bounds(c, batch_size)
    return float(C1 * b1 + C2 * b2)


# ----------------------------------------------------------------------------- Lemma 6
def inverse_lipschitz_ratios(A, B, c: float):
    """Lemma 6 (reconstructed) on pairs A, B (K, d, d) ⪰ cI: ratios ‖A⁻¹ − B⁻¹‖ / (‖A − B‖/c²) in the spectral and the
    Frobenius norm, (K,) each (≤ 1 is the lemma). Inverses by numpy (float64), independent of the bound."""
    A, B = np.asarray(A, float), np.asarray(B, float)
    D, Di = A - B, np.linalg.inv(A) - np.linalg.inv(B)
    spec = np.linalg.norm(Di, 2, axis=(1, 2)) * c**2 / np.linalg.norm(D, 2, axis=(1, 2))
    frob = np.linalg.norm(Di, "fro", axis=(1, 2)) * c**2 / np.linalg.norm(D, "fro", axis=(1, 2))
    return spec, frob


def random_pairs_above(seed: int, d: int, c: float, num: int, log10_scale=(-3.0, 4.0)):
    """num random pairs A, B (num, d, d) in {⪰ cI}: each c(I + S·GGᵀ/d), G (d, d) standard normal, S log-uniform on
    10^log10_scale, so that some pairs sit near cI (where Lemma 6 is tight) and some far above it
    (the NGD precisions reach ≈ n‖x‖²)."""
    rng = np.random.default_rng(seed)

    def one():
        G = rng.normal(size=(d, d))
        return c * (np.eye(d) + 10 ** rng.uniform(*log10_scale) * G @ G.T / d)
    A = np.stack([one() for _ in range(num)])
    B = np.stack([one() for _ in range(num)])
    return A, B


# ----------------------------------------------------------------------------- one step's noise (Lemmas 6–8, 10–11, eq. 12)
def step_noise(seed: int, p: Problem, eta, rho: float, batch_size: int, num_draws: int) -> dict:
    """Monte Carlo over num_draws mini-batches (B i.i.d. uniform indices, eq. 15) of one NGD step from η_t (m,) with
    step ρ_t. Per draw (arrays (K,)): d1 = ‖Δ₁‖, d2 = ‖Δ₂‖_F, the Lemma 10–11 left sides e1 = ‖ω_{t+1,1} − ω̃_{t+1,1}‖,
    e2 = ‖ω_{t+1,2} − ω̃_{t+1,2}‖_F, the eq. (12) integrand ρ⁻¹⟨Δ, ω_{t+1} − ω̃_{t+1}⟩ (`sigma2`), and the Lemma 6 pair
    P = −2θ_{t+1,2}, Pt = −2θ̃_{t+1,2} (K, d, d). The steps are the library's (`nr.ngd_step`, one call per draw, so that
    no new function is compiled per batch size); Δ = (θ_{t+1} − θ̃_{t+1})/ρ, ω by `expectation_from_natural`."""
    n, d = p.X.shape
    batches = np.random.default_rng(seed).integers(0, n, (num_draws, batch_size))
    exact = np.asarray(nr.ngd_step(p, eta, jnp.arange(n), rho))
    new = np.stack([np.asarray(nr.ngd_step(p, eta, jnp.asarray(idx), rho)) for idx in batches])
    e1, e2 = paper_natural(exact, d)
    t1, t2 = paper_natural(new, d)
    w1e, w2e = expectation_from_natural(e1, e2)
    w1, w2 = expectation_from_natural(t1, t2)
    D1, D2 = (t1 - e1) / rho, (t2 - e2) / rho
    return dict(d1=np.linalg.norm(D1, axis=-1), d2=np.linalg.norm(D2, axis=(-2, -1)), e1=np.linalg.norm(w1 - w1e, axis=-1),
                e2=np.linalg.norm(w2 - w2e, axis=(-2, -1)),
                sigma2=(np.sum(D1 * (w1 - w1e), axis=-1) + np.sum(D2 * (w2 - w2e), axis=(-2, -1))) / rho,
                P=-2 * t2, Pt=np.broadcast_to(-2 * e2, t2.shape))


def mean_se(x):
    """(mean, standard error) of draws x (K,)."""
    x = np.asarray(x, float)
    return float(x.mean()), float(x.std(ddof=1) / np.sqrt(x.size)) if x.size > 1 else float("nan")


# ----------------------------------------------------------------------------- trajectories (Lemma 9, Cor. 1–2)
def trajectories(keys, p: Problem, num_steps: int, batch_size: int):
    """Stochastic NGD (eq. 15) with ρ_t = 2/(t + 2) from the prior, one run per key (R keys), by `nr.ngd_run`:
    η_0..η_T stacked (R, T + 1, m). Batches `nr.batch_indices(key, n, B, T)`: for the same key the same run as
    `ngvi_conjugate.compare` (Figure 1)."""
    eta0 = nr.natural(p.m0, p.S0)
    rhos = nr.theorem_rho(num_steps)
    return np.stack([np.asarray(nr.ngd_run(p, eta0, nr.batch_indices(k, p.X.shape[0], batch_size, num_steps), rhos))
                     for k in keys])


def constant_step_run(seed: int, p: Problem, batch_size: int, rho: float, num_steps: int):
    """η_0..η_T (T + 1, m) of stochastic NGD with a constant step ρ from the prior (`nr.ngd_step` per step; batches of
    B i.i.d. uniform indices from a numpy generator seeded by seed)."""
    etas = [np.asarray(nr.natural(p.m0, p.S0))]
    for idx in np.random.default_rng(seed).integers(0, p.X.shape[0], (num_steps, batch_size)):
        etas.append(np.asarray(nr.ngd_step(p, jnp.asarray(etas[-1]), idx, rho)))
    return np.stack(etas)


def log_times(num_steps: int, num: int) -> np.ndarray:
    """0 and num log-spaced integers in 1..T (unique), the iterates at which Lemma 9's LP is solved."""
    return np.unique(np.concatenate([[0], np.round(np.logspace(0, np.log10(max(num_steps, 1)), num)).astype(int)]))


def exact_steps(p: Problem, etas, times, rhos) -> np.ndarray:
    """θ̃_{t+1} (as η, (K, m)): the exact-gradient step (`nr.ngd_step`, full batch) from η_t, t in times, steps rhos (K,)."""
    full = jnp.arange(p.X.shape[0])
    return np.stack([np.asarray(nr.ngd_step(p, jnp.asarray(etas[t]), full, r)) for t, r in zip(times, rhos)])


def trajectory_norms(etas, d: int) -> dict:
    """Per iterate of stacks η (..., m), arrays (...,): ‖θ_{t,1}‖ (Cor. 1), ‖ω_{t,1}‖ = ‖μ_t‖ (Cor. 2) and the
    smallest eigenvalue of −2θ_{t,2} = Σ_t⁻¹ (Lemma 5: ≥ λ). Meaningful for ‖μ_t‖ only where θ₂ ≺ 0."""
    t1, t2 = paper_natural(etas, d)
    mu = np.linalg.solve(-2.0 * t2, t1[..., None])[..., 0]
    return dict(theta1=np.linalg.norm(t1, axis=-1), omega1=np.linalg.norm(mu, axis=-1),
                prec_min=np.linalg.eigvalsh(-2.0 * t2)[..., 0])


def gauge(U, theta1, batch: int = 300, tol: float = 1e-9, max_rounds: int = 60) -> float:
    """γ(θ₁) = min{Σ_i c_i : Σ_i c_i u_i = θ₁, c ≥ 0} / n for U = (u_i) (n, d), θ₁ (d,): θ₁ ∈ C of Lemma 9 iff γ ≤ 1
    (C = n·conv({0} ∪ {u_i})); +inf if θ₁ is not in the cone of the u_i.

    Solved exactly by column generation on the LP: the restricted primal on a working set S (HiGHS), its dual u
    (max ⟨u, θ₁⟩ s.t. ⟨u, u_i⟩ ≤ 1 for i ∈ S) checked against every i; the most violated columns are added until none
    is (then u is feasible for the full dual and the restricted optimum is the full one). Falls back to the full LP."""
    U, theta1 = np.asarray(U, float), np.asarray(theta1, float)
    n = U.shape[0]
    if not np.any(theta1):
        return 0.0
    order = np.argsort(-(U @ theta1))
    S = order[:batch]
    for _ in range(max_rounds):
        r = linprog(np.ones(S.size), A_eq=U[S].T, b_eq=theta1, bounds=(0, None), method="highs")
        if r.status == 2:  # infeasible on S: widen along θ₁
            if S.size >= n:
                return float("inf")
            S = np.union1d(S, order[: 2 * S.size])
            continue
        if r.status != 0:
            break
        viol = U @ r.eqlin.marginals - 1.0
        bad = np.nonzero(viol > tol)[0]
        if bad.size == 0:
            return float(r.fun / n)
        S = np.union1d(S, bad[np.argsort(-viol[bad])][:batch])
    r = linprog(np.ones(n), A_eq=U.T, b_eq=theta1, bounds=(0, None), method="highs")
    return float(r.fun / n) if r.status == 0 else float("inf")


def lemma9_gauges(p: Problem, theta1s) -> np.ndarray:
    """γ of each θ₁ in theta1s (K, d) for the data of p (u_i = y_i x_i/s²): (K,); ≤ 1 is Lemma 9's θ₁ ∈ C."""
    U = np.asarray(p.y)[:, None] * np.asarray(p.X) / p.s**2
    return np.array([gauge(U, t) for t in np.asarray(theta1s)])


# ----------------------------------------------------------------------------- App. A.1 and A.2
def log_partition(theta1, theta2):
    """A(θ) (eq. 17, reconstructed) = −¼θ₁ᵀθ₂⁻¹θ₁ − ½ log det(−2θ₂) + (d/2) log 2π; θ₁ (d,), θ₂ (d, d) ≺ 0."""
    d = theta1.shape[0]
    return (-0.25 * theta1 @ jnp.linalg.solve(theta2, theta1) - 0.5 * jnp.linalg.slogdet(-2 * theta2)[1]
            + 0.5 * d * jnp.log(2 * jnp.pi))


def hessian_eigs_1d(sigmas, mean: float = 0.0):
    """d = 1: eigenvalues (K, 2) of ∇²A*(ω) at ω = (μ, Σ + μ²) and of ∇²A(θ) at θ = (μ/Σ, −1/(2Σ)), Σ in sigmas (K,),
    both Hessians by autodiff of the closed forms (18) and (17) in the 2-vector (ω₁, ω₂) resp. (θ₁, θ₂)."""
    dual = jax.jit(jax.hessian(lambda w: nr.conjugate_dual(w[:1], w[1:].reshape(1, 1))))
    primal = jax.jit(jax.hessian(lambda t: log_partition(t[:1], t[1:].reshape(1, 1))))
    ed, ep = [], []
    for s in np.asarray(sigmas, float):
        ed.append(np.linalg.eigvalsh(np.asarray(dual(jnp.array([mean, s + mean**2])))))
        ep.append(np.linalg.eigvalsh(np.asarray(primal(jnp.array([mean / s, -0.5 / s])))))
    return np.stack(ed), np.stack(ep)


def _grad_maps(d: int):
    ga = jax.jit(jax.grad(log_partition, argnums=(0, 1)))
    gs = jax.jit(jax.grad(nr.conjugate_dual, argnums=(0, 1)))
    return ga, gs


def map_errors(etas, d: int) -> tuple[np.ndarray, np.ndarray]:
    """App. A.2 on each η of etas (K, m): relative max-errors of ∇A(θ) (autodiff of eq. 17) against the closed-form
    ω = (μ, Σ + μμᵀ) (`expectation_from_natural`), and of ∇A*(ω) (autodiff of eq. 18) against θ read from η.
    Returns two (K,) arrays; the relative error is max |difference| / max |reference| over both components."""
    ga, gs = _grad_maps(d)
    t1, t2 = paper_natural(etas, d)
    w1, w2 = expectation_from_natural(t1, t2)
    rel = lambda a, b, x, y: max(np.abs(a - x).max(), np.abs(b - y).max()) / max(np.abs(x).max(), np.abs(y).max())
    e_w, e_t = [], []
    for k in range(t1.shape[0]):
        g1, g2 = (np.asarray(v) for v in ga(jnp.asarray(t1[k]), jnp.asarray(t2[k])))
        h1, h2 = (np.asarray(v) for v in gs(jnp.asarray(w1[k]), jnp.asarray(w2[k])))
        e_w.append(rel(g1, g2, w1[k], w2[k]))
        e_t.append(rel(h1, h2, t1[k], t2[k]))
    return np.array(e_w), np.array(e_t)


def random_etas(seed: int, d: int, num: int):
    """num natural parameters η (num, m) of random Gaussians (`nr.random_gaussian`, means of scale 1)."""
    rng = np.random.default_rng(seed)
    return np.stack([np.asarray(nr.natural(*nr.random_gaussian(rng, d))) for _ in range(num)])


# ----------------------------------------------------------------------------- a near-worst-case instance of Example 1
def weak_problem(n: int = 3, scale: float = 0.05) -> Problem:
    """Example 1 with weak data (d = 2, prior N(0, I), s = 1): x_i = scale·(cos a_i, sin a_i), a_i evenly spaced on
    [0, 2π/3], y_i = 1. The posterior is prior-dominated, so Lemma 5's λ = 1 is nearly attained; the u_i have equal
    norms and are all extreme points of conv({0} ∪ {u_i}), so Corollary 1's Θ and Lemma 9's set are attained at B = 1.
    On Bike the reconstructed constants exceed the measured quantities by orders of magnitude; this instance is where
    a wrong constant would show."""
    a = np.linspace(0.0, 2 * np.pi / 3, n)
    return nr.problem(scale * np.stack([np.cos(a), np.sin(a)], axis=1), np.ones(n), 1.0)


# ----------------------------------------------------------------------------- studies (what notebook 50 runs)
def _ratio_max(x):
    x = np.asarray(x, float)
    return float(np.nanmax(x)) if x.size else float("nan")


def study(seed: int, p: Problem, keys, batch_size: int, num_steps: int, times, num_draws: int, lp_points: int,
          maps: bool = True) -> dict:
    """All Appendix C checks on one set-up (problem p, batch size B), from len(keys) stochastic NGD runs
    (ρ_t = 2/(t + 2), from the prior; `trajectories`). Returns a summary of floats:

    constants (λ, Θ, Ω, V₁, V₂: `constants`), B, R, T; cor1_max = max ‖θ₁‖/Θ and cor2_max = max ‖ω₁‖/Ω over every
    iterate of every run and the exact steps θ̃ at the LP times of run 0; prec_min = min λ_min(Σ_t⁻¹)/λ (Lemma 5);
    gauge_max, gauge_count: Lemma 9's γ at `log_times(T, lp_points)` of every run and at θ̃ there (run 0);
    a2 = (errors of ∇A, errors of ∇A*): App. A.2 at the LP iterates of run 0 (`map_errors`; empty unless maps); noise {t: ...}: per t in times
    (iterates of run 0, num_draws mini-batches, `step_noise` with seed + j for the j-th time): rho, d1sq / d2sq (mean, se) with bound1 / bound2 (Lemmas 7–8), l10_max,
    l11_max (left / right side, largest over the draws), l6_spec / l6_frob (Lemma 6 on the pairs −2θ₂, −2θ̃₂, with
    c = λ), sigma2 (mean, se) of eq. (12); lemma3_bound (`lemma3_bound`)."""
    c = constants(p)
    d = p.X.shape[1]
    etas = trajectories(keys, p, num_steps, batch_size)
    nrm = trajectory_norms(etas, d)
    rhos = np.asarray(nr.theorem_rho(num_steps))
    lp_t = log_times(num_steps, lp_points)
    lp_t = lp_t[lp_t < num_steps] if num_steps > 1 else lp_t
    tilde = exact_steps(p, etas[0], lp_t, rhos[lp_t])
    nt = trajectory_norms(tilde, d)
    theta1 = paper_natural(etas[:, lp_t], d)[0].reshape(-1, d)
    gauges = lemma9_gauges(p, np.concatenate([theta1, paper_natural(tilde, d)[0]]))
    a2w, a2t = map_errors(etas[0, lp_t], d) if maps else (np.array([]), np.array([]))
    b1, b2 = lemma78_bounds(c, batch_size)
    noise = {}
    for j, t in enumerate(times):
        t = int(t)
        rho = float(rhos[t]) if t < num_steps else 2.0 / (t + 2.0)
        mc = step_noise(seed + j, p, etas[0, t], rho, batch_size, num_draws)
        l6s, l6f = inverse_lipschitz_ratios(mc["P"], mc["Pt"], c.lam)
        noise[t] = dict(rho=rho, d1sq=mean_se(mc["d1"] ** 2), d2sq=mean_se(mc["d2"] ** 2), bound1=b1, bound2=b2,
                        l10_max=_ratio_max(mc["e1"] / lemma10_rhs(rho, mc["d1"], mc["d2"], c)),
                        l11_max=_ratio_max(mc["e2"] / lemma11_rhs(rho, mc["d1"], mc["d2"], c)),
                        l6_spec=_ratio_max(l6s), l6_frob=_ratio_max(l6f), sigma2=mean_se(mc["sigma2"]))
    return dict(constants=c._asdict(), B=batch_size, R=len(keys), T=num_steps,
                cor1_max=max(_ratio_max(nrm["theta1"]), _ratio_max(nt["theta1"])) / c.Theta,
                cor2_max=max(_ratio_max(nrm["omega1"]), _ratio_max(nt["omega1"])) / c.Omega,
                prec_min=float(min(nrm["prec_min"].min(), nt["prec_min"].min())) / c.lam,
                gauge_max=_ratio_max(gauges), gauge_count=int(gauges.size),
                a2=(a2w, a2t), noise=noise, lemma3_bound=lemma3_bound(c, batch_size))


def rho_above_one(seed: int, p: Problem, batch_size: int, rho: float, num_steps: int) -> dict:
    """The Lemma 9 / Corollary 1 / Lemma 5 checks of `study` on one run with a constant step ρ > 1 (outside Remark 2's
    ρ_t ≤ 1), from the prior: gauge_max and the first t with γ > 1 + 1e-6 (t = 1..T, every iterate), cor1_max, and
    prec_min = min_t λ_min(−2θ_{t,2})/λ (negative: θ₂ left the natural parameter space)."""
    c = constants(p)
    d = p.X.shape[1]
    etas = constant_step_run(seed, p, batch_size, rho, num_steps)
    nrm = trajectory_norms(etas[1:], d)
    g = lemma9_gauges(p, paper_natural(etas[1:], d)[0])
    fired = np.nonzero(g > 1 + GAUGE_TOL)[0]
    return dict(rho=rho, B=batch_size, T=num_steps, gauge_max=_ratio_max(g),
                first_t=int(fired[0] + 1) if fired.size else None, cor1_max=float(nrm["theta1"].max()) / c.Theta,
                prec_min=float(nrm["prec_min"].min()) / c.lam)

