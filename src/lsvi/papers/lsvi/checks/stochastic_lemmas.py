"""The stochastic lemmas of Appendix D (D.4, D.6, D.7, D.10) and the μ = 0 rate of Section 2.2 (notebook 12).

Notation as in `lsvi.exact.rates`: q_η = exp(ηᵀs) unnormalised, Z_η = ∫q_η, ω = ∇Z(η) = Z_η E_η[s] the moment
parameter, l(ω) = uKL(q_ω | π), F = E_η[ssᵀ], φ(η) = F⁻¹z (eq. 3), β̂ = F̂⁻¹ẑ the OLS of Algorithm 1 from N draws.

* Lemma D.6 (eqs. 72–74). With the stochastic gradient ∇̂l(ω) = η(ω) − F̂⁻¹ẑ (eq. 72), iteration (10) is the
  stochastic mirror-descent step ω̂_{t+1} = argmin_ω {∇̂lᵀω + ε⁻¹D_{Z*}(ω, ω̂_t)} (eq. 74). `legendre` is the
  Legendre transform Z*(ω) = sup_η {ηᵀω − Z_η} of the full-covariance Gaussian family in closed form, written in
  ω (Z*(ω) = ω⁽⁰⁾ log ω⁽⁰⁾ − ω⁽⁰⁾H(N(μ, Σ)) − ω⁽⁰⁾, H the entropy), and `md_step` solves eq. (74) by a damped
  Newton method on the autodiff gradient and Hessian of Z*: a route that shares nothing with the library's
  step (regression, relaxation, `rates.natural_to_moments`) but the draws. (The paper writes
  Z*(ω) = argmin_η{ηᵀω − Z_η}; the Legendre transform is the supremum's value.)
* Lemma D.7 (eq. 79). The biased stochastic MD bound: `d7_sides` evaluates both sides on stochastic runs, with
  the noise constant σ² of eq. (78) estimated by `sigma2_draws` / `sigma2_estimate` and the bias B_t of eq. (76)
  from the O(1/N) expansion of the OLS bias (`ols_bias_leading`).
* Lemma D.10 (eqs. 88–89). σ²(ω) = ε⁻¹E[(E∇̂l − ∇̂l)ᵀ(M(ω) − M̂(ω))] as printed, M, M̂ the exact and stochastic
  MD steps (eqs. 93–94). To first order M − M̂ = εZ_ωF(∇̂l − ∇l) (eq. 95), so the printed expectation is
  −Z_ω tr(F Cov β̂) ≤ 0; the descent lemma [Hanzely & Richtárik, Lemma 4.3] needs the noise term with the opposite
  sign, ε⁻¹E[(∇̂l − E∇̂l)ᵀ(M − M̂)] = ε⁻¹ tr Cov(β̂, M̂) ≥ 0. `sigma2_estimate` returns that one (the printed value is
  its negative); `sigma2_prediction` is its N → ∞, ε → 0 limit Z_ω tr(F V)/N (V the asymptotic covariance of β̂).
* Lemma D.4 (eqs. 68, 70), bounded statistic. For the product of Bernoullis, s(γ) = (1, γ), ‖s‖² ≤ B = 1 + d: the
  threshold N ≥ B(4r/3 + 2B)r⁻² log(2m/δ) for P(A) ≥ 1 − δ (`bernstein_threshold`) and the O(1/N) bias of F̂⁻¹
  itself (`inverse_bias`, with the leading constant `inverse_bias_leading`). F̂ depends on the draws only through
  the counts of the 2^d cells, so repetitions are multinomial draws of the counts (`cell_counts`).
* Section 2.2, μ = 0. A target whose Gaussian-VI optimum is degenerate, so that the relative strong-convexity
  constant at ω* is exactly 0 (`cusp_target`), and stochastic MD with Hanzely & Richtárik's step
  ε_K = min(1/L, √(D_{Z*}(ω*, ω_0)/(σ²K))) for a horizon K (`hr_step_sizes`, `mu0_study`).

References: F. Hanzely and P. Richtárik, Fastest rates for stochastic mirror descent methods, Comput. Optim. Appl.
79 (2021) (the paper's [30]: Theorem 4.5 is Lemma D.7 without the bias, Corollary 4.6 the μ = 0 rate).
"""
from __future__ import annotations

import functools
import math
from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from scipy import stats

from lsvi.exact import rates
from lsvi.core import quadrature as exact
from lsvi.core.algorithms import lsvi_generic


# ------------------------------------------------------------------ Lemma D.6: Legendre transform and MD step
def moment_blocks(omega, d: int):
    """(Z, μ (d,), Σ (d, d)) read off ω = Z·E[s] (m,) for the minimal full-covariance statistic
    s(x) = (1, x, x_i x_j (i ≤ j), row-major) of `lsvi.core.families.gaussian_fullcov`."""
    z = omega[0]
    mean = omega[1 : d + 1] / z
    iu = jnp.triu_indices(d)
    upper = jnp.zeros((d, d), omega.dtype).at[iu].set(omega[d + 1 :] / z)
    second = upper + jnp.triu(upper, 1).T
    return z, mean, second - jnp.outer(mean, mean)


def legendre(omega, d: int):
    """Z*(ω) = sup_η {ηᵀω − Z_η} for the full-covariance Gaussian family (scalar), ω (m,) in W.

    At the maximiser η(ω) (∇Z(η) = ω), ηᵀω = Z E_η[ηᵀs] = Z(log Z + E[log q̄]) = Z log Z − Z·H with
    H = ½ log det(2πeΣ) the entropy of N(μ, Σ), and Z_η = Z: Z*(ω) = Z log Z − Z·H − Z.
    Its gradient is the mirror map ∇Z*(ω) = η(ω) (`mirror_map`).
    """
    z, _, cov = moment_blocks(omega, d)
    _, logdet = jnp.linalg.slogdet(cov)
    entropy = 0.5 * (d * math.log(2.0 * math.pi * math.e) + logdet)
    return z * jnp.log(z) - z * entropy - z


def in_domain(omega, d: int) -> bool:
    """ω ∈ W: Z > 0 and Σ ≻ 0."""
    return bool(_legendre_derivatives(d)[3](jnp.asarray(omega)))


@functools.lru_cache(maxsize=None)
def _legendre_derivatives(d: int):
    fn = lambda w: legendre(w, d)

    def domain(w):
        z, _, cov = moment_blocks(w, d)
        return (z > 0) & jnp.all(jnp.linalg.eigvalsh(cov) > 0)

    return jax.jit(fn), jax.jit(jax.grad(fn)), jax.jit(jax.hessian(fn)), jax.jit(domain)


def mirror_map(omega, d: int):
    """η(ω) = ∇Z*(ω) (m,), by automatic differentiation of `legendre`."""
    return _legendre_derivatives(d)[1](jnp.asarray(omega))


def bregman(omega, omega_ref, d: int):
    """D_{Z*}(ω, ω') = Z*(ω) − Z*(ω') − ∇Z*(ω')ᵀ(ω − ω') (= uKL(q_ω | q_ω'), as in the proof of Lemma D.7)."""
    val, grad, _, _ = _legendre_derivatives(d)
    return val(omega) - val(omega_ref) - grad(omega_ref) @ (omega - omega_ref)


class MDStep(NamedTuple):
    omega: np.ndarray  # (m,) the argmin of eq. (74)
    iterations: int
    residual: float  # ‖ε∇Φ(ω)‖_∞ at the returned ω (stationarity of eq. 74, in η units)


def md_step(omega_t, grad, eps: float, d: int, max_iter: int = 100, tol: float = 1e-14) -> MDStep:
    """ω̂_{t+1} = argmin_{ω ∈ W} {ĝᵀω + ε⁻¹D_{Z*}(ω, ω̂_t)} (eq. 74), ω̂_t (m,), ĝ = ∇̂l(ω̂_t) (m,).

    Damped Newton on Φ(ω) = ĝᵀω + ε⁻¹(Z*(ω) − ∇Z*(ω̂_t)ᵀω) (the terms of D_{Z*} constant in ω dropped), with
    gradient and Hessian of Z* by autodiff: the step is halved until it stays in W and does not increase Φ;
    stops when a full Newton step moves ω by less than ``tol``·(1 + ‖ω‖), or when no step length is accepted
    (rounding). Φ is strictly convex (Z* is), so this is its unique minimiser when one exists in W; the returned
    ``residual`` says whether it was reached. Starts at ω̂_t.
    """
    val, gradf, hess, _ = _legendre_derivatives(d)
    omega = np.asarray(omega_t, float)
    eta_t = np.asarray(gradf(jnp.asarray(omega)))
    g = np.asarray(grad, float)

    def phi(w):
        return float(g @ w + (val(jnp.asarray(w)) - eta_t @ w) / eps)

    def dphi(w):
        return g + (np.asarray(gradf(jnp.asarray(w))) - eta_t) / eps

    it = 0
    for it in range(1, max_iter + 1):
        gr = dphi(omega)
        step = -np.linalg.solve(np.asarray(hess(jnp.asarray(omega))) / eps, gr)
        lam, cur, accepted = 1.0, phi(omega), False
        while lam > 1e-12:
            cand = omega + lam * step
            if in_domain(cand, d) and phi(cand) <= cur + 1e-12 * abs(cur):
                accepted = True
                break
            lam /= 2.0
        if not accepted:
            break
        omega = cand
        if lam == 1.0 and np.linalg.norm(step) <= tol * (1.0 + np.linalg.norm(omega)):
            break
    return MDStep(omega, it, float(np.max(np.abs(eps * dphi(omega)))))


def stochastic_gradient(eta, S, y):
    """∇̂l(ω) = η(ω) − F̂⁻¹ẑ (eq. 72) from the statistic S = s(X) (N, m) and y = f(X) (N,) at draws X of q̄_η:
    F̂⁻¹ẑ by numpy's SVD least squares (`lstsq`), not the library's OLS. Returns (m,)."""
    return np.asarray(eta) - np.linalg.lstsq(np.asarray(S), np.asarray(y), rcond=None)[0]


@functools.lru_cache(maxsize=None)
def _draws(family, f, num_samples):
    """jit (key, η) -> (s(X), f(X)) with X = family.reparameterise(η, normal(key, (N, d)))."""

    def fn(key, eta):
        X = family.reparameterise(eta, jax.random.normal(key, (num_samples, family.dim), dtype=eta.dtype))
        return family.statistic(X), f(X)

    return jax.jit(fn)


@functools.lru_cache(maxsize=None)
def _lsvi_step(family):
    """jit (S, y, η, ε) -> ε F̂⁻¹ẑ + (1 − ε)η: iteration (10) with Algorithm 1's OLS (`lsvi_generic.ols`)."""
    return jax.jit(lambda S, y, eta, eps: eps * lsvi_generic.ols(S, y) + (1.0 - eps) * eta)


class Equivalence(NamedTuple):
    """Lemma D.6 on ``num_reps`` trajectories of ``num_steps`` steps."""

    omega_lsvi: np.ndarray  # (R, T + 1, m) ω(η̂_t) of iteration (10)
    omega_md: np.ndarray  # (R, T + 1, m) ω̂_t of the mirror-descent route (74)
    max_rel_diff: float  # max_t,r ‖ω_md − ω_lsvi‖ / ‖ω_lsvi‖
    max_newton_residual: float
    max_newton_iterations: int
    euclidean_rel_diff: float  # median over steps of ‖(ω̂_t − εĝ) − ω̂_{t+1}‖ / ‖ω̂_{t+1}‖ (a step without mirror map)
    invalid: int  # steps of route 1 that left V (none expected at this ε)


def md_ngd_equivalence(key, family, f: Callable, eta0, eps: float, num_samples: int, num_steps: int,
                       num_reps: int) -> Equivalence:
    """Lemma D.6: the same stochastic iteration computed twice on the same standard normals.

    Step t of repetition r uses Z = normal(k, (N, d)), k = ``split(split(key, R)[r], T)[t]``. Route 1 (the
    library): X = `family.reparameterise`(η̂_t, Z), Algorithm 1's OLS (`lsvi_generic.ols`) and the relaxation (10),
    η̂_{t+1} = ε F̂⁻¹ẑ + (1 − ε)η̂_t, mapped to ω by `rates.natural_to_moments`. Route 2 (mirror descent in ω):
    η(ω̂_t) = ∇Z*(ω̂_t) by autodiff of `legendre`, X from the same Z at that η, ∇̂l from eq. (72) by numpy's
    least squares (`stochastic_gradient`), and ω̂_{t+1} = argmin of eq. (74) by `md_step`. The routes share
    the draws and the statistic s, nothing else. Full-covariance Gaussian family.
    """
    d = family.dim
    draw, step10 = _draws(family, f, num_samples), _lsvi_step(family)
    to_omega = jax.jit(lambda e: rates.natural_to_moments(family, e))
    om_l, om_m, worst_res, worst_it, eucl, invalid = [], [], 0.0, 0, [], 0
    for rep_key in jax.random.split(key, num_reps):
        eta = jnp.asarray(eta0)
        wl = [np.asarray(to_omega(eta))]
        wm = [wl[0]]
        for k in jax.random.split(rep_key, num_steps):
            eta = step10(*draw(k, eta), eta, float(eps))
            invalid += int(not bool(family.is_valid(eta)))
            wl.append(np.asarray(to_omega(eta)))
            eta_md = mirror_map(wm[-1], d)
            g = stochastic_gradient(eta_md, *draw(k, eta_md))
            step = md_step(wm[-1], g, float(eps), d)
            worst_res, worst_it = max(worst_res, step.residual), max(worst_it, step.iterations)
            eucl.append(np.linalg.norm(wm[-1] - eps * g - step.omega) / np.linalg.norm(step.omega))
            wm.append(step.omega)
        om_l.append(np.stack(wl))
        om_m.append(np.stack(wm))
    om_l, om_m = np.stack(om_l), np.stack(om_m)
    rel = np.linalg.norm(om_m - om_l, axis=-1) / np.linalg.norm(om_l, axis=-1)
    return Equivalence(om_l, om_m, float(np.max(rel)), worst_res, worst_it, float(np.median(eucl)), invalid)


# ------------------------------------------------------------------ Lemmas D.7 and D.10: the noise constant σ²
class SigmaDraws(NamedTuple):
    """Per repetition (R,) of one stochastic step from η: the OLS β̂ (R, m), the moment parameter of the
    relaxed iterate M̂ = ω((1 − ε)η + εβ̂) (R, m; 0 where invalid), the event A(ω) = [‖F − F̂‖ < ‖F⁻¹‖⁻¹] and
    the validity of the relaxed iterate ((1 − ε)η + εβ̂ ∈ V, else Algorithm 4 would halve ε)."""

    beta: np.ndarray
    omega_next: np.ndarray
    in_event: np.ndarray
    valid: np.ndarray


def sigma2_draws(key, family, f: Callable, eta, eps: float, num_samples: int, num_reps: int, num_nodes: int = 40,
                 batch: int = 1000) -> SigmaDraws:
    """`SigmaDraws` at η (m,) for N = ``num_samples`` draws per repetition (Algorithm 1's OLS; full-covariance
    Gaussian family). F is exact (Gauss–Hermite, ``num_nodes`` per axis). Repetitions run in batches of
    ``batch`` (``vmap``). β̂ = F̂⁻¹ẑ by a direct solve of the m × m normal equations (eq. 9), which has no
    ``lax.cond`` (unlike `lsvi_generic.ols`, see `rates.estimator_stats` for why that matters under ``vmap``)."""
    Xq, wq = rates.nodes(family, eta, num_nodes)
    F, _ = exact.fisher(family, Xq, wq)
    r = 1.0 / jnp.linalg.norm(jnp.linalg.inv(F), 2)
    eta = jnp.asarray(eta)
    batch = int(max(1, min(batch, num_reps, 2 * 10**7 // (num_samples * family.num_params))))
    one_batch = _sigma_batch(family, f, num_samples, batch)
    nb = -(-num_reps // batch)
    outs = [one_batch(k, eta, float(eps), F, r) for k in jax.random.split(key, nb)]
    beta, om, ev, ok = (np.concatenate([np.asarray(o[i]) for o in outs])[:num_reps] for i in range(4))
    return SigmaDraws(beta, om, ev.astype(bool), ok.astype(bool))


@functools.lru_cache(maxsize=None)
def _sigma_batch(family, f, num_samples, batch):
    def one(k, eta, eps, F, r):
        X = family.sample(k, eta, num_samples)
        S = family.statistic(X)
        Fhat = S.T @ S / num_samples
        beta = jnp.linalg.solve(Fhat, S.T @ f(X) / num_samples)  # F̂⁻¹ẑ (eq. 9)
        in_event = jnp.linalg.norm(Fhat - F, 2) < r
        nxt = (1.0 - eps) * eta + eps * beta
        valid = family.is_valid(nxt)
        om = rates.natural_to_moments(family, jnp.where(valid, nxt, eta))
        return beta, jnp.where(valid, om, 0.0), in_event, valid

    return jax.jit(lambda key, eta, eps, F, r: jax.vmap(lambda k: one(k, eta, eps, F, r))(jax.random.split(key, batch)))


class Sigma2(NamedTuple):
    value: float  # ε⁻¹ tr Cov(β̂, M̂) over the kept repetitions (the sign the descent lemma needs)
    se: float
    printed: float  # the expectation (88) as printed: −value
    kept: int  # repetitions used
    fraction: float  # kept / all


def sigma2_estimate(draws: SigmaDraws, eps: float, condition_on_event: bool = True) -> Sigma2:
    """σ²(ω) of Lemma D.10 from `SigmaDraws`: ε⁻¹E[(∇̂l − E∇̂l)ᵀ(M − M̂)] = ε⁻¹E[(β̂ − Eβ̂)ᵀ(M̂ − M)]
    (∇̂l = η − β̂), the sample cross-covariance ε⁻¹ Σ_r (β̂_r − β̄)ᵀ(M̂_r − M̄̂)/(n − 1) over the kept repetitions
    (the exact step M cancels). Kept: valid steps, and within A(ω) when ``condition_on_event`` (eq. 88
    conditions on A(ω); the bound (78) of Lemma D.7 does not). se: standard error of the mean of the per-rep
    products. The printed eq. (88), ε⁻¹E[(E∇̂l − ∇̂l)ᵀ(M − M̂)], is −value."""
    keep = draws.valid & (draws.in_event if condition_on_event else True)
    n = int(keep.sum())
    if n < 3:
        return Sigma2(float("nan"), float("nan"), float("nan"), n, n / max(1, draws.valid.size))
    b = draws.beta[keep] - draws.beta[keep].mean(0)
    w = draws.omega_next[keep] - draws.omega_next[keep].mean(0)
    u = np.sum(b * w, axis=1) * n / (n - 1) / eps
    return Sigma2(float(u.mean()), float(u.std(ddof=1) / math.sqrt(n)), -float(u.mean()), n, n / draws.valid.size)


def sigma2_prediction(family, f: Callable, eta, num_nodes: int = 40, algorithm: str = "alg1") -> float:
    """lim N·σ²(ω) as N → ∞ and ε → 0: Z_η tr(F V), V the asymptotic covariance of η̂' (`rates.ols_asymptotic_cov`
    for Algorithm 1, `rates.alg3_asymptotic_cov` for Algorithm 3): M̂ − M = εZ_ηF(η̂' − φ) + o(ε) (eq. 95), so
    σ² = Z_η tr(F Cov η̂') + o(1)."""
    X, w = rates.nodes(family, eta, num_nodes)
    F, _ = exact.fisher(family, X, w)
    cov = rates.ols_asymptotic_cov if algorithm == "alg1" else rates.alg3_asymptotic_cov
    V = cov(family, f, eta, num_nodes)
    return float(jnp.exp(rates.log_mass(family, eta)) * jnp.trace(F @ V))


# ------------------------------------------------------------------ Lemma D.7: both sides of eq. (79)
def _ols_bias_leading(family, f, num_nodes, eta):
    X, w = rates.nodes(family, eta, num_nodes)
    F, S = exact.fisher(family, X, w)
    y = f(X)
    beta = jnp.linalg.solve(F, S.T @ (w * y))
    r = y - S @ beta
    lev = jnp.sum(S * jnp.linalg.solve(F, S.T).T, axis=1)  # sᵀF⁻¹s at each node
    return -jnp.linalg.solve(F, S.T @ (w * lev * r))


def ols_bias_leading(family, f: Callable, etas, num_nodes: int = 40):
    """b(η) with E[F̂⁻¹ẑ] − φ(η) = b(η)/N + O(N⁻²) for the OLS of Algorithm 1 (one sample for F̂ and ẑ):
    b = −F⁻¹E[s (sᵀF⁻¹s) r], r = f − φᵀs (second-order expansion of F̂⁻¹ around F⁻¹; E[sr] = 0), by
    quadrature. etas (..., m) -> (..., m)."""
    etas = jnp.asarray(etas)
    return np.asarray(_bias_fn(family, f, num_nodes)(etas.reshape(-1, etas.shape[-1]))).reshape(etas.shape)


@functools.lru_cache(maxsize=None)
def _bias_fn(family, f, num_nodes):
    return jax.jit(jax.vmap(functools.partial(_ols_bias_leading, family, f, num_nodes)))


class D7Sides(NamedTuple):
    """Both sides of eq. (79) at the steps ``ks`` (#k,), from R runs; 95 % intervals (lo, hi)."""

    ks: np.ndarray
    lhs: np.ndarray  # (1/C_k) Σ_{t=1}^k c_{t−1} E[l(ω̂_t) − l*]
    lhs_lo: np.ndarray
    lhs_hi: np.ndarray
    descent: np.ndarray  # (ε_0⁻¹ − μ) uKL(q* | q_0)/C_k
    noise: np.ndarray  # σ² Σ_{t<k} c_t ε_t / C_k
    bias: np.ndarray  # Σ_{t<k} (c_t/C_k) E[B_tᵀ(ω* − ω̂_{t+1})]
    rhs: np.ndarray
    rhs_lo: np.ndarray
    rhs_hi: np.ndarray


def d7_sides(family, f: Callable, traces, eta_star, l_star: float, eps, mu: float, d0: float, sigma2: float,
             sigma2_lo: float, sigma2_hi: float, num_samples: int, ks, num_nodes: int = 40,
             level: float = 0.95) -> D7Sides:
    """Eq. (79) on the runs ``traces`` (R, T + 1, m) of iteration (10) with steps ``eps`` (T,).

    c_t, C_k as in Lemma D.7 (`rates.theorem_weights`, with the local μ); the left side per run from the exact
    excess l(η̂_t) − l* (`rates.excess`), mean over runs with a Student-t interval; the right side's descent term
    is exact (d0 = uKL(q_ω* | q_ω0)), the noise term uses σ² with its interval (σ²_lo, σ²_hi), and the bias term
    B_t = E[∇̂l − ∇l | ω̂_t] = −b(η̂_t)/N (`ols_bias_leading`) dotted with ω* − ω̂_{t+1}, mean over runs with a
    normal interval. Returns `D7Sides`.
    """
    traces = np.asarray(traces)
    R, T1, m = traces.shape
    eps = np.asarray(eps, float)[: T1 - 1]
    c = rates.theorem_weights(eps, mu)
    C = rates.cumulative_weights(c)
    ks = np.asarray(ks, int)
    exc = rates.excess(family, f, traces, l_star, num_nodes)  # (R, T + 1)
    to_w = jax.jit(jax.vmap(lambda e: rates.natural_to_moments(family, e)))
    om = np.asarray(to_w(jnp.asarray(traces.reshape(-1, m)))).reshape(R, T1, m)
    om_star = np.asarray(rates.natural_to_moments(family, jnp.asarray(eta_star)))
    B = -ols_bias_leading(family, f, traces[:, :-1], num_nodes) / num_samples  # (R, T, m)
    bt = np.einsum("rtm,rtm->rt", B, om_star - om[:, 1:])  # B_tᵀ(ω* − ω̂_{t+1})
    q_t = stats.t.ppf(0.5 + level / 2, R - 1)
    q_n = stats.norm.ppf(0.5 + level / 2)
    out = {k: [] for k in ("lhs", "lhs_lo", "lhs_hi", "bias", "bias_se")}
    for k in ks:
        wts = c[:k] / C[k - 1]
        per_run = exc[:, 1 : k + 1] @ wts
        mean, se = per_run.mean(), per_run.std(ddof=1) / math.sqrt(R)
        out["lhs"].append(mean)
        out["lhs_lo"].append(mean - q_t * se)
        out["lhs_hi"].append(mean + q_t * se)
        b_run = bt[:, :k] @ wts
        out["bias"].append(b_run.mean())
        out["bias_se"].append(b_run.std(ddof=1) / math.sqrt(R))
    descent = rates.descent_bound(eps[0], mu, d0, C[ks - 1])
    s_eps = np.array([np.sum(c[:k] * eps[:k]) / C[k - 1] for k in ks])
    bias, bias_se = np.array(out["bias"]), np.array(out["bias_se"])
    rhs = descent + sigma2 * s_eps + bias
    return D7Sides(ks, np.array(out["lhs"]), np.array(out["lhs_lo"]), np.array(out["lhs_hi"]), descent,
                   sigma2 * s_eps, bias, rhs, descent + sigma2_lo * s_eps + bias - q_n * bias_se,
                   descent + sigma2_hi * s_eps + bias + q_n * bias_se)


# ------------------------------------------------------------------ Lemma D.4: bounded statistic (Bernoulli)
class Cells(NamedTuple):
    """The 2^d points of {0,1}^d (2^d, d), their probabilities (2^d,) under the product of Bernoulli(p),
    the statistic s at each (2^d, m), the exact F = E[ssᵀ] (m, m) and r = ‖F⁻¹‖⁻¹ = λ_min(F)."""

    points: np.ndarray
    probs: np.ndarray
    S: np.ndarray
    F: np.ndarray
    r: float


def bernoulli_cells(family, eta) -> Cells:
    """`Cells` of the Bernoulli family (`lsvi.core.families.bernoulli`) at η, by enumeration
    (`lsvi.core.quadrature.binary_grid`)."""
    from lsvi.core.families import log_density

    pts = exact.binary_grid(family.dim)
    probs = np.exp(np.asarray(log_density(family, jnp.asarray(eta), pts)))
    F, S = exact.fisher(family, pts, jnp.asarray(probs))
    F = np.asarray(F)
    return Cells(np.asarray(pts), probs, np.asarray(S), F, float(np.linalg.eigvalsh(F).min()))


def bernstein_threshold(B: float, r: float, m: int, delta):
    """N_δ = B(4r/3 + 2B) r⁻² log(2m/δ): Lemma D.4's sample size for P(A) ≥ 1 − δ (from the matrix Bernstein
    bound (70), with ‖s‖² ≤ B and r = inf ‖F⁻¹‖⁻¹)."""
    return B * (4.0 * r / 3.0 + 2.0 * B) / r**2 * np.log(2.0 * m / np.asarray(delta, float))


def cell_counts(rng: np.random.Generator, probs, num_samples: int, num_reps: int):
    """Counts of the cells in ``num_reps`` samples of size N (num_reps, 2^d): multinomial(N, probs)."""
    return rng.multinomial(num_samples, np.asarray(probs, float), size=num_reps)


def fisher_from_counts(cells: Cells, counts, num_samples: int):
    """F̂ = N⁻¹ Σ_i s(γ_i)s(γ_i)ᵀ = Σ_c (n_c/N) s_c s_cᵀ (R, m, m) from the cell counts (R, 2^d)."""
    outer = np.einsum("ci,cj->cij", cells.S, cells.S)
    return np.einsum("rc,cij->rij", np.asarray(counts, float) / num_samples, outer)


def well_conditioned(cells: Cells, Fhat):
    """A = [‖F − F̂‖ < ‖F⁻¹‖⁻¹] (spectral norm) for F̂ (R, m, m) -> (R,) bool."""
    return np.linalg.norm(Fhat - cells.F, 2, axis=(1, 2)) < cells.r


def event_probability(rng: np.random.Generator, cells: Cells, num_samples: int, num_reps: int):
    """(P̂(A), number of repetitions in A) for F̂ from N = ``num_samples`` draws, ``num_reps`` repetitions."""
    inside = well_conditioned(cells, fisher_from_counts(cells, cell_counts(rng, cells.probs, num_samples, num_reps),
                                                        num_samples))
    return float(inside.mean()), int(inside.sum())


def clopper_pearson(successes: int, trials: int, level: float = 0.95):
    """Exact binomial interval (lo, hi) for a proportion."""
    a = (1.0 - level) / 2.0
    lo = stats.beta.ppf(a, successes, trials - successes + 1) if successes > 0 else 0.0
    hi = stats.beta.ppf(1.0 - a, successes + 1, trials - successes) if successes < trials else 1.0
    return float(lo), float(hi)


class InverseBias(NamedTuple):
    bias: np.ndarray  # (m, m) estimate of E[F̂⁻¹ − F⁻¹ | A]
    se: np.ndarray  # (m, m) standard errors
    norm: float  # Frobenius norm of ``bias``
    norm_se: float
    p_event: float


def inverse_bias(rng: np.random.Generator, cells: Cells, num_samples: int, num_reps: int) -> InverseBias:
    """E[F̂⁻¹ − F⁻¹ | A] (eq. 68) by Monte Carlo over ``num_reps`` multinomial repetitions, with a control variate.

    With Δ = F̂ − F and Y = F̂⁻¹ − F⁻¹ + F⁻¹ΔF⁻¹ (second order in Δ), E[Δ] = 0 gives the identity
    E[(F̂⁻¹ − F⁻¹)1_A] = E[Y 1_A + F⁻¹ΔF⁻¹ 1_{A^c}]: the first-order term, whose mean is 0 but whose variance
    dominates the plain estimator, is removed where F̂ is well conditioned. Estimate mean(u)/P̂(A) with u the
    bracket per repetition; se from the spread of u (P̂(A)'s own noise neglected: it is ≈ 1 where the bias is
    read). Norm: Frobenius, its se by the delta method.
    """
    Fhat = fisher_from_counts(cells, cell_counts(rng, cells.probs, num_samples, num_reps), num_samples)
    inside = well_conditioned(cells, Fhat)
    Finv = np.linalg.inv(cells.F)
    delta = Fhat - cells.F
    lin = Finv @ delta @ Finv
    Fhat_inv = np.linalg.inv(np.where(inside[:, None, None], Fhat, cells.F))  # F̂ is invertible on A
    u = np.where(inside[:, None, None], Fhat_inv - Finv + lin, lin)
    p = float(inside.mean())
    bias = u.mean(0) / p
    se = u.std(0, ddof=1) / math.sqrt(num_reps) / p
    norm = float(np.linalg.norm(bias))
    norm_se = float(np.linalg.norm(bias * se) / norm) if norm > 0 else float("nan")
    return InverseBias(bias, se, norm, norm_se, p)


def inverse_bias_leading(cells: Cells):
    """K (m, m) with E[F̂⁻¹] − F⁻¹ = K/N + O(N⁻²): K = F⁻¹E[(ssᵀ − F)F⁻¹(ssᵀ − F)]F⁻¹ (second-order term of the
    Neumann series (69)), by enumeration of the cells."""
    Finv = np.linalg.inv(cells.F)
    D = np.einsum("ci,cj->cij", cells.S, cells.S) - cells.F
    return Finv @ np.einsum("c,cij,jk,ckl->il", cells.probs, D, Finv, D) @ Finv


# ------------------------------------------------------------------ Section 2.2: μ = 0
CUSP_B = 2.0 * math.sqrt(2.0)
CUSP_A = math.exp(2.0) / 8.0
CUSP_VAR = 0.5


def cusp_target(a: float = CUSP_A, b: float = CUSP_B) -> Callable:
    """log_target(key, X) = −x²/2 + a cos(bx), X (N, 1). At (a, b) = (e²/8, 2√2) the Gaussian-VI optimum
    N(0, 1/2) is degenerate: relative strong convexity constant μ = 0 at ω*.

    Why. For a symmetric f, the Gaussian fixed point with mean 0 has variance v = g(v),
    g(v) = −1/E[f''] = 1/(1 + u), u = ab²e^{−b²v/2}; the mean and mass directions of I − Dφ have eigenvalue 1,
    the variance direction 1 − g'(v) with g'(v) = ½b²u/(1 + u)². μ = 0 needs g' = 1, i.e. 2u² + (4 − b²)u + 2 = 0,
    whose two roots (a saddle-node) merge when b² = 8: u = 1, v = 1/2, a = e²/8 (a cusp, where also g'' = 0:
    l − l* is quartic, not quadratic, along the variance direction, and ω* is still a strict minimum)."""

    def log_target(key, X):
        return -0.5 * X[:, 0] ** 2 + a * jnp.cos(b * X[:, 0])

    return log_target


class CuspOptimum(NamedTuple):
    eta_star: object  # (3,)
    residual: float  # ‖φ(η*) − η*‖_∞
    eigenvalues: np.ndarray  # sorted eig(I − Dφ(η*)): (μ̂, …, L̂)
    l_star: float  # l(η*) without the constant Z(π)


def cusp_optimum(family, f: Callable, num_nodes: int = 40) -> CuspOptimum:
    """The closed-form fixed point of `cusp_target`: η* = φ(η(0, 1/2)) (φ ignores η⁽⁰⁾, so one application
    fixes the mass), its residual and the eigenvalues of I − J (`rates.relative_curvature`)."""
    from lsvi.core.families.gaussian import fullcov_to_natural

    eta = rates.exact_map(family, f, fullcov_to_natural(jnp.zeros(1), jnp.full((1, 1), CUSP_VAR)), num_nodes)
    res = float(jnp.max(jnp.abs(rates.exact_map(family, f, eta, num_nodes) - eta)))
    eig = rates.relative_curvature(rates.map_jacobian(family, f, eta, num_nodes))
    return CuspOptimum(eta, res, eig, float(rates.objective(family, f, eta, num_nodes)))


def hr_step_sizes(d0: float, sigma2: float, horizons, L: float):
    """ε_K = min(1/L, √(d0/(σ²K))) for each horizon K: the minimiser of d0/(εK) + σ²ε, the right side of eq. (79)
    with μ = 0, constant ε (c_t = 1, C_K = K) and B = 0 [Hanzely & Richtárik, Cor. 4.6, reconstructed]."""
    K = np.asarray(horizons, float)
    return np.minimum(1.0 / L, np.sqrt(d0 / (sigma2 * K)))


class Mu0Runs(NamedTuple):
    """Per repetition and horizon (R, #K): the left side of eq. (79) with μ = 0 and constant ε,
    K⁻¹ Σ_{t=1}^K l(ω̂_t) − l*; the averaged iterate's excess l(ω̄_K) − l*, ω̄_K = K⁻¹ Σ_{t=1}^K ω̂_t; the last
    iterate's excess; and Algorithm 4's halvings (a step that left V) over all steps."""

    horizons: np.ndarray
    eps: np.ndarray
    lhs: np.ndarray
    averaged: np.ndarray
    last: np.ndarray
    diverged: int


def mu0_study(key, family, regression, f: Callable, eta0, l_star: float, eps, horizons, num_reps: int,
              num_nodes: int = 40) -> Mu0Runs:
    """Stochastic LSVI with the constant step ε_K for horizon K (``eps`` (#K,), ``horizons`` (#K,)), ``num_reps``
    runs each, in one compiled call of `rates.run_schedules` (row K runs max K steps at ε_K; its first K are the
    run of horizon K; common random numbers across horizons); ``regression`` from
    `lsvi.core.algorithms.build_regression`. Runs whose excess is not finite are counted in ``diverged``."""
    horizons = np.asarray(horizons, int)
    eps = np.asarray(eps, float)
    rows = np.repeat(eps[:, None], horizons.max(), axis=1)
    tr = np.asarray(rates.run_schedules(key, family, regression, eta0, rows, num_reps))  # (#K, R, K_max + 1, m)
    exc_all = rates.excess(family, f, tr, l_star, num_nodes)  # (#K, R, K_max + 1), one compilation
    avg_all = np.asarray(rates.average_excess(family, f, tr, np.ones(horizons.max()), l_star, num_nodes))  # k = 1..K_max
    lhs, avg, last, div = [], [], [], 0
    for s, K in enumerate(horizons):
        exc = exc_all[s, :, : K + 1]  # (R, K + 1)
        div += int(np.sum(~np.all(np.isfinite(exc), axis=1)))
        lhs.append(exc[:, 1:].mean(axis=1))
        avg.append(avg_all[s, :, K - 1])  # ω̄_K: uniform average of ω̂_1..ω̂_K
        last.append(exc[:, -1])
    return Mu0Runs(horizons, eps, np.stack(lhs, 1), np.stack(avg, 1), np.stack(last, 1), div)


# ------------------------------------------------------------------ the studies of notebook 12, one per lemma
def _stayed(exc, limit: float = 1e3):
    """Runs (rows of exc (R, T + 1)) whose excess stayed finite and below ``limit`` (else they left the basin)."""
    return np.all(np.isfinite(exc) & (exc < limit), axis=1)


class LemmaD7(NamedTuple):
    sides: dict  # N -> D7Sides
    sigma2: dict  # N -> {"value", "lo", "hi", "t": checkpoint of the sup, "max_rel_se"} (× N⁻¹ units: raw σ²)
    excluded: dict  # N -> why the bound is not read at this N
    num_reps: int
    report: str


def lemma_d7(key, family, f: Callable, traces: dict, eta_star, l_star: float, eps: float, mu: float, d0: float, ks,
             checkpoints, sigma_reps: int, max_rel_se: float = 0.25, num_nodes: int = 40) -> LemmaD7:
    """Both sides of eq. (79) for the constant-ε runs ``traces`` {N: (R, T + 1, m)} of Algorithm 1.

    σ² of eq. (78) at each N: the largest `sigma2_estimate` (unconditional, as the runs are) over the iterates of
    run 0 at the steps ``checkpoints`` (the supremum over the visited points, approximated), ``sigma_reps``
    repetitions each; its interval is (max of the lower ends, max of the upper ends) of the 95 % intervals. An N is
    not read when one of its runs left the basin, or when σ² is not resolved (relative standard error above
    ``max_rel_se`` at a checkpoint: the unconditional noise of F̂⁻¹ẑ is heavy-tailed at small N, where the bound
    is then vacuous). ``ks``: the k of eq. (79) (≤ T).
    """
    q = stats.norm.ppf(0.975)
    sides, sig, excluded, lines = {}, {}, {}, []
    R = 0
    for n, tr in traces.items():
        tr = np.asarray(tr)
        R, T1, _ = tr.shape
        exc = rates.excess(family, f, tr, l_star, num_nodes)
        if not np.all(_stayed(exc)):
            excluded[n] = f"{int(np.sum(~_stayed(exc)))} runs left the basin"
            continue
        vals = []
        for t in [t for t in checkpoints if t < T1]:
            dr = sigma2_draws(jax.random.fold_in(key, 10 * n + t), family, f, tr[0, t], eps, n, sigma_reps, num_nodes)
            vals.append((t, sigma2_estimate(dr, eps, condition_on_event=False)))
        v = np.array([s.value for _, s in vals])
        se = np.array([s.se for _, s in vals])
        rel = np.where(v > 0, se / np.abs(v), np.inf)
        i = int(np.nanargmax(v))
        sig[n] = {"value": float(v[i]), "lo": float(np.max(v - q * se)), "hi": float(np.max(v + q * se)),
                  "t": vals[i][0], "max_rel_se": float(np.max(rel))}
        if not np.all(rel <= max_rel_se):
            excluded[n] = f"σ² not resolved (relative se up to {np.max(rel):.2g} > {max_rel_se:g})"
            continue
        ks_n = np.asarray([k for k in ks if k < T1])
        sides[n] = d7_sides(family, f, tr, eta_star, l_star, np.full(T1 - 1, eps), mu, d0, sig[n]["value"],
                            sig[n]["lo"], sig[n]["hi"], n, ks_n, num_nodes)
    for n, sd in sides.items():
        s2 = sig[n]
        lines.append(f"N = {n}: σ² = {s2['value']:.3g} [{s2['lo']:.3g}, {s2['hi']:.3g}] (N·σ² = {n * s2['value']:.3g}, "
                     f"sup at t = {s2['t']})")
        for j, k in enumerate(sd.ks):
            lines.append(f"   k = {k:4d}: LHS {sd.lhs[j]:.3e} [{sd.lhs_lo[j]:.3e}, {sd.lhs_hi[j]:.3e}]  ≤  RHS "
                         f"{sd.rhs[j]:.3e} [{sd.rhs_lo[j]:.3e}, {sd.rhs_hi[j]:.3e}] = descent {sd.descent[j]:.2e} "
                         f"+ σ² term {sd.noise[j]:.2e} + bias term {sd.bias[j]:+.1e}")
    for n, why in excluded.items():
        lines.append(f"N = {n}: not read ({why})")
    return LemmaD7(sides, sig, excluded, R, "\n".join(lines))


class LemmaD10(NamedTuple):
    n_grid: np.ndarray  # (#N,)
    points: tuple  # names of the points ω
    value: np.ndarray  # (P, #N) σ²(ω), conditional on A(ω), sign of the descent lemma
    se: np.ndarray
    printed: np.ndarray  # (P, #N) eq. (88) as printed (= −value)
    p_event: np.ndarray  # (P, #N) P̂(A(ω) ∩ valid)
    mass: np.ndarray  # (P,) Z_ω
    prediction: np.ndarray  # (P,) lim N σ² (ε → 0): Z_ω tr(F V)
    fits: dict  # point -> (SlopeFit | None, N used)
    num_reps: int
    report: str


def lemma_d10(key, family, f: Callable, points: dict, eps: float, n_grid, num_reps: int, min_event: float = 0.5,
              num_nodes: int = 40) -> LemmaD10:
    """σ²(ω) of eq. (88), conditional on A(ω) (as the lemma), at each of ``points`` {name: η} and N in ``n_grid``;
    weighted log–log slope in N over the N where P̂(A(ω)) ≥ ``min_event`` ("N large enough", Lemma D.5)."""
    from lsvi.exact.statistics import loglog_fit

    n_grid = np.asarray(sorted(int(n) for n in n_grid))
    P = len(points)
    val, se, pe = (np.full((P, n_grid.size), np.nan) for _ in range(3))
    mass, pred, fits = np.zeros(P), np.zeros(P), {}
    for i, (name, eta) in enumerate(points.items()):
        mass[i] = float(jnp.exp(rates.log_mass(family, eta)))
        pred[i] = sigma2_prediction(family, f, eta, num_nodes)
        for j, n in enumerate(n_grid):
            s = sigma2_estimate(sigma2_draws(jax.random.fold_in(key, 100 * int(n) + i), family, f, eta, eps, int(n),
                                             num_reps, num_nodes), eps, condition_on_event=True)
            val[i, j], se[i, j], pe[i, j] = s.value, s.se, s.fraction
        ok = (pe[i] >= min_event) & np.isfinite(val[i]) & (val[i] > 0)
        fits[name] = (loglog_fit(n_grid[ok], val[i, ok], sigma=se[i, ok] / val[i, ok]) if ok.sum() >= 2 else None,
                      n_grid[ok])
    lines = []
    for i, name in enumerate(points):
        fit, used = fits[name]
        lines.append(f"{name}: Z_ω = {mass[i]:.4g};  N·σ²(ω)/Z_ω = "
                     + ", ".join(f"{n * v / mass[i]:.3g}±{n * e / mass[i]:.2g} (N={n}, P(A)={p:.2f})"
                                 for n, v, e, p in zip(n_grid, val[i], se[i], pe[i]))
                     + f";  ε → 0 limit tr(F V) = {pred[i] / mass[i]:.3g}"
                     + (f";  slope {fit.slope:.3f} [{fit.lo:.3f}, {fit.hi:.3f}] over N = {[int(n) for n in used]}" if fit else ""))
    return LemmaD10(n_grid, tuple(points), val, se, -val, pe, mass, pred, fits, num_reps, "\n".join(lines))


class LemmaD4(NamedTuple):
    cells: Cells
    bound_B: float  # B ≥ ‖s‖²
    deltas: np.ndarray  # (#δ,)
    thresholds: np.ndarray  # (#δ,) N_δ of the lemma
    p_at_threshold: np.ndarray  # (#δ,) P̂(A) at ⌈N_δ⌉
    cp: np.ndarray  # (#δ, 2) Clopper–Pearson 95 % interval
    empirical: np.ndarray  # (#δ,) smallest N of the scan with P̂(A) ≥ 1 − δ (nan: none)
    n_grid: np.ndarray
    bias: list  # InverseBias per N
    fit: object  # SlopeFit of ‖E[F̂⁻¹ − F⁻¹ | A]‖ in N (weighted) or None
    leading: float  # ‖K‖_F, the N → ∞ limit of N‖bias‖
    num_reps: int
    report: str


def lemma_d4(seed: int, family, eta, deltas, n_grid, num_reps: int, scan_points: int = 20) -> LemmaD4:
    """Lemma D.4 for the product of Bernoullis (``family`` = `lsvi.core.families.bernoulli`, η (d + 1,)):
    ‖s‖² ≤ B = 1 + d. For each δ: N_δ (`bernstein_threshold`), P̂(A) at ⌈N_δ⌉ with its exact interval, and the
    smallest N of a geometric scan (``scan_points`` values in [10, max N_δ]) where P̂(A) ≥ 1 − δ. The bias
    E[F̂⁻¹ − F⁻¹ | A] (`inverse_bias`) at each N of ``n_grid``, its weighted log–log slope, and the leading
    constant ‖K‖ (`inverse_bias_leading`). One numpy Generator seeded with ``seed``."""
    from lsvi.exact.statistics import loglog_fit

    rng = np.random.default_rng(seed)
    cells = bernoulli_cells(family, eta)
    m = cells.S.shape[1]
    B = float(np.max(np.sum(cells.S**2, axis=1)))
    deltas = np.asarray(deltas, float)
    thr = bernstein_threshold(B, cells.r, m, deltas)
    p_at, cp = [], []
    for t in thr:
        p, k = event_probability(rng, cells, int(math.ceil(t)), num_reps)
        p_at.append(p)
        cp.append(clopper_pearson(k, num_reps))
    scan = np.unique(np.geomspace(10, thr.max(), scan_points).astype(int))
    p_scan = np.array([event_probability(rng, cells, int(n), min(num_reps, 20000))[0] for n in scan])
    emp = np.array([scan[np.argmax(p_scan >= 1 - dl)] if np.any(p_scan >= 1 - dl) else np.nan for dl in deltas])
    n_grid = np.asarray(sorted(int(n) for n in n_grid))
    bias = [inverse_bias(rng, cells, int(n), num_reps) for n in n_grid]
    norms = np.array([b.norm for b in bias])
    ses = np.array([b.norm_se for b in bias])
    fit = loglog_fit(n_grid, norms, sigma=ses / norms) if n_grid.size >= 2 else None
    leading = float(np.linalg.norm(inverse_bias_leading(cells)))
    lines = [f"p = {np.round(np.asarray(1 / (1 + np.exp(-np.asarray(eta)[1:]))), 4)}, m = {m}, B = {B:g}, "
             f"r = λ_min(F) = {cells.r:.4f}",
             "δ: N_δ (Lemma D.4) / P̂(A) at N_δ [95 % CP] / smallest scanned N with P̂(A) ≥ 1 − δ: "
             + "; ".join(f"{dl:g}: {t:.0f} / {p:.5f} [{lo:.5f}, {hi:.5f}] / {e:.0f}"
                         for dl, t, p, (lo, hi), e in zip(deltas, thr, p_at, cp, emp)),
             "N·‖E[F̂⁻¹ − F⁻¹ | A]‖_F: " + ", ".join(f"{n * b.norm:.3f}±{n * b.norm_se:.2g} (N={n}, P(A)={b.p_event:.4f})"
                                                    for n, b in zip(n_grid, bias))
             + f";  leading constant ‖K‖_F = {leading:.3f}"
             + (f";  slope {fit.slope:.4f} [{fit.lo:.4f}, {fit.hi:.4f}]" if fit else "")]
    return LemmaD4(cells, B, deltas, thr, np.array(p_at), np.array(cp), emp, n_grid, bias, fit, leading, num_reps,
                   "\n".join(lines))


class Mu0Rate(NamedTuple):
    optimum: CuspOptimum
    num_samples: int
    algorithm: str
    d0: float  # uKL(q_ω* | q_ω0)
    sigma2: float  # σ² used in the step size: Z* tr(F V)/N at η*
    runs: Mu0Runs
    fits: dict  # "lhs", "averaged", "last" -> SlopeFit (bootstrap over runs) or None
    in_regime: bool  # every ε_K < 1/L̂ (the √(d0/(σ²K)) branch)
    report: str


def mu0_rate(key, family, eta0, horizons, num_samples: int, num_reps: int, algorithm: str = "alg3",
             num_boot: int = 1000, seed: int = 0, num_nodes: int = 40) -> Mu0Rate:
    """Section 2.2's μ = 0 rate on `cusp_target`: ε_K = `hr_step_sizes`(uKL(q*|q_0), σ², K, L̂) with
    σ² = Z* tr(F V)/N the leading noise constant at η* (`sigma2_prediction`) and L̂ = λ_max(I − J(η*)); stochastic
    runs of ``algorithm`` (default Algorithm 3, whose η̂' is unbiased: B_t = 0, the setting of Hanzely & Richtárik's
    corollary); log–log slopes in K with percentile-bootstrap intervals over runs."""
    from lsvi.core.algorithms import build_regression

    log_target = cusp_target()
    f = rates.as_f(log_target)
    opt = cusp_optimum(family, f, num_nodes)
    d0 = float(rates.ukl_between(family, opt.eta_star, eta0))
    sigma2 = sigma2_prediction(family, f, opt.eta_star, num_nodes, algorithm) / num_samples
    L = float(opt.eigenvalues[-1])
    eps = hr_step_sizes(d0, sigma2, horizons, L)
    runs = mu0_study(key, family, build_regression(algorithm, family, log_target, num_samples), f, eta0, opt.l_star,
                     eps, horizons, num_reps, num_nodes)
    fits = {}
    for name, Y in (("lhs", runs.lhs), ("averaged", runs.averaged), ("last", runs.last)):
        ok = np.all(np.isfinite(Y) & (Y > 0), axis=0)
        fits[name] = (rates.bootstrap_loglog_slope(runs.horizons[ok], Y[:, ok], num_boot, seed)
                      if ok.sum() >= 2 else None)
    in_regime = bool(np.all(eps < 1.0 / L))
    lines = [f"cusp target f = −x²/2 + (e²/8) cos(2√2 x): q* = N(0, 1/2), |φ(η*) − η*|∞ = {opt.residual:.1e}, "
             f"eig(I − J(η*)) = {np.array2string(opt.eigenvalues, precision=3)} (μ̂ = {opt.eigenvalues[0]:.1e}, "
             f"L̂ = {L:.3f})",
             f"uKL(q*|q0) = {d0:.4f}, σ² = {sigma2:.4g} ({algorithm}, N = {num_samples}); ε_K = "
             + ", ".join(f"{e:.4f} (K={k})" for k, e in zip(runs.horizons, eps)),
             "K⁻¹Σ_t E[l(ω̂_t)] − l* (left side of eq. 79): " + ", ".join(f"{v:.3e}" for v in runs.lhs.mean(0)),
             "l(ω̄_K) − l* (averaged iterate): " + ", ".join(f"{v:.3e}" for v in runs.averaged.mean(0))]
    for name, fit in fits.items():
        if fit is not None:
            lines.append(f"slope in K of {name}: {fit.slope:.3f} [{fit.lo:.3f}, {fit.hi:.3f}]")
    return Mu0Rate(opt, num_samples, algorithm, d0, sigma2, runs, fits, in_regime, "\n".join(lines))
