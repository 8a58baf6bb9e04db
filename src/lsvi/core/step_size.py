"""Step sizes: Algorithm 4 (backtracking + residual-variance control) and Table 3's schedules.

A `Schedule` pairs an upper bound u² on the residual variance with a base step ε_t.
Table 3 of the paper indexes six of them:

    #  (u², ε_t)
    1  (10, 1)          2  (∞, 1/(t+1))      3  (∞, 1)
    4  (1, 1)           5  (∞, 10⁻³)         6  (10, 10⁻³)

and Theorem 3.4 uses linearly decreasing steps ε_t⁻¹ = L + αt (`linear`).

Which residual (Algorithm 4, lines 7–8). The paper takes the residuals of the log target
against the relaxed iterate at the draws, r_i = f(X_i) − η̃ᵀs(X_i), X_i ~ q_η, and so do
we. For Algorithms 2–3, X_i = μ + CZ_i with Z_i ~ N(0, I), and η̃ᵀs(μ + Cz) = γ̃ᵀt(z) for
the γ̃ that represents the same quadratic in the standardised coordinates (Lemma D.3): the
residual of the regression of f on t(Z) *is* r_i, so s(X) is also the natural choice in
the whitened coordinates. The authors' code (github.com/ylefay/LSVI,
``variational/gaussian_lsvi.py`` and ``variational/meanfield_gaussian_lsvi.py``, function
``momentum_backtracking``, read at commit b09aa73) passes ``statistic(samples)`` with
``samples`` the standard-normal Z_i, i.e. it uses

    r_i^Z = f(X_i) − η̃ᵀs(Z_i),

the x-coordinate polynomial evaluated at z. The two coincide only when μ = 0 and C = I (the
N(0, I) start of Pima and Sonar, so the first step agrees). Near a fixed point η̃ ≈ η,
η̃ᵀs(x) = −½(x − μ)ᵀΣ⁻¹(x − μ) + c and f(X) ≈ −½ZᵀZ + c', so r^Z does not vanish: its
variance tends to ‖Σ⁻¹μ‖² + ½‖Σ⁻¹ − I‖²_F, which for a posterior far from N(0, I) keeps
v̂ above u, so that ε_t stays capped at u/v̂ at every iteration: a persistent damping that
the paper's analysis does not have. Algorithm 3 offers both (``residual="X"`` of `lsvi.core.algorithms.lsvi_fc.regression`:
the paper's and the default, ``"Z"`` the authors' code): the regression hands `control`
the points at which s is evaluated.
"""
from __future__ import annotations

from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp


class Schedule(NamedTuple):
    """u2: bound on the residual variance (``inf``: no control); eps: t (int) -> ε_t."""

    u2: float
    eps: Callable


def constant(eps0: float, u2: float = jnp.inf) -> Schedule:
    return Schedule(u2, lambda t: eps0 * jnp.ones_like(t, dtype=jnp.float64))


def harmonic(u2: float = jnp.inf) -> Schedule:
    """ε_t = 1/(t+1), t = 0, 1, … (schedule 2: the first step is a full step)."""
    return Schedule(u2, lambda t: 1.0 / (t + 1.0))


def linear(L: float, alpha: float, u2: float = jnp.inf) -> Schedule:
    """ε_t = 1/(L + αt), the linearly decreasing steps of Theorem 3.4."""
    return Schedule(u2, lambda t: 1.0 / (L + alpha * t))


TABLE3 = {
    1: (10.0, "1"),
    2: (float("inf"), "1/(t+1)"),
    3: (float("inf"), "1"),
    4: (1.0, "1"),
    5: (float("inf"), "1e-3"),
    6: (10.0, "1e-3"),
}


def table3(index: int) -> Schedule:
    """Schedule number ``index`` (1–6) of Table 3."""
    if index not in TABLE3:
        raise ValueError(f"Table 3 has schedules 1–6, not {index!r}")
    u2, eps = TABLE3[index]
    return harmonic(u2) if eps == "1/(t+1)" else constant(float(eps), u2)


class ControlInfo(NamedTuple):
    """eps: step used; residual_var: v̂² at the backtracked step; num_halvings;
    accepted: False when no halving made the iterate valid (the step is then rejected, ε = 0)."""

    eps: jax.Array
    residual_var: jax.Array
    num_halvings: jax.Array
    accepted: jax.Array


def control(eps0, u2, family, eta, eta_new, X, y, max_halvings: int = 60):
    """Algorithm 4: halve ε until εη' + (1−ε)η ∈ V, then cap ε ≤ u / v̂.

    eta (m,): current iterate, in V.  eta_new (m,): the OLS η'.  X (N, d), y (N,): the
    draws X_i ~ q_η and f(X_i) used for the regression (X: the points at which s is
    evaluated; the standard-normal Z_i reproduce the authors' code, see the module
    docstring).

    v̂² is the empirical variance of the residuals f(X_i) − η̃ᵀs(X_i) of the log target
    against the backtracked iterate η̃ (Algorithm 4, lines 7–8, with the evident fix that
    line 8 centres the residuals, as the authors' code does). Since V is convex and η ∈ V,
    shrinking ε after the backtracking keeps the iterate in V.

    Returns (ε, ControlInfo).
    """
    mix = lambda e: e * eta_new + (1.0 - e) * eta

    def halve(c):
        e, k = c
        return e / 2.0, k + 1

    eps, k = jax.lax.while_loop(
        lambda c: (~family.is_valid(mix(c[0]))) & (c[1] < max_halvings), halve, (jnp.asarray(eps0, eta.dtype), 0)
    )
    accepted = family.is_valid(mix(eps))
    eps = jnp.where(accepted, eps, 0.0)
    resid = y - family.dot(mix(eps), X)
    v2 = jnp.var(resid)
    capped = jnp.isfinite(u2) & (v2 >= u2)
    eps = jnp.where(capped, jnp.minimum(eps, jnp.sqrt(u2 / v2)), eps)
    return eps, ControlInfo(eps, v2, k, accepted)
