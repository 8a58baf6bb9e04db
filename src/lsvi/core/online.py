"""Online variational updates of Alquier's EcoSta 2019 slides: EWA, SVA, SVB, NGVI and OGA.

Sequential prediction (slides "Sequential estimation problem"): at step t the forecaster
holds θ_t, x_t = (features, label) is revealed, the loss ℓ_t(θ_t) = −log p_{θ_t}(x_t) is
incurred, and θ_t → θ_{t+1}. Here the loss depends on θ through z = xᵀθ only:

    logistic (y ∈ {−1, +1}):    ℓ(z, y) = log(1 + e^{−yz})
    squared (Gaussian, unit noise, the constant ½ log 2π dropped):  ℓ(z, y) = ½ (y − z)²

Variational algorithms use the mean-field Gaussian family q_{m,σ} = N(m, diag σ²) (the
slides' Gaussian example), prior π = N(0, s² I), forecast θ_t = E_{q_t}[θ] = m_t, and the
expected loss ℓ̄_t(m, σ) = E_{θ∼q_{m,σ}} ℓ_t(θ). As z = xᵀθ ~ N(xᵀm, Σ_i x_i² σ_i²) under
q_{m,σ}, ℓ̄_t is a 1-D Gauss–Hermite integral (`lsvi.core.quadrature.gauss_hermite`),
exact for the squared loss and accurate to rounding for the logistic loss at 64 nodes.

Updates (slides "SVA and SVB strategies", "NGVI strategy", "An example: SVB with Gaussian
approximations"), μ the variational parameter, g_t = ∇_μ ℓ̄_t at μ_t:

    EWA   p_{t+1} ∝ p_θ(x_t)^α p_t, p_1 = π, θ_t = E_{p_t}θ   (Algorithm 2; so p_t = π_{t−1,α})
    SVA   μ_{t+1} = argmin_μ  μᵀ Σ_{i≤t} g_i + K(q_μ, π)/α                     (Algorithm 3)
    SVB   μ_{t+1} = argmin_μ  μᵀ g_t + K(q_μ, q_{μ_t})/α
    NGVI  μ_{t+1} = argmin_μ  μᵀ g_t + K(q_μ, π)/α + K(q_μ, q_{μ_t})/β
    OGA   θ_{t+1} = θ_t − λ ∇_θ ℓ_t(θ_t)      (online gradient; named, never defined, in the slides)

How they are read (the slides write ∇_μ Σ_{i≤t} E_{q_μ}[…] without saying where the
gradient is taken): SVA linearises each loss at the iterate where it was revealed (the
linearised follow-the-regularised-leader form, which the SVA regret bound needs).
SVA and SVB use μ = (m, σ), the location–scale parameter of the slides' Gaussian example
and of the SVA theorem's assumption; their argmins are closed forms with
h(x) = √(1 + x²) − x (componentwise):

    SVB   m_{t+1} = m_t − α σ_t² ⊙ g_m,        σ_{t+1} = σ_t ⊙ h(α σ_t ⊙ g_σ / 2)       (slides)
    SVA   m_{t+1} = −α s² Σ_{i≤t} g_{m,i},     σ_{t+1} = s h(α s Σ_{i≤t} g_{σ,i} / 2)  (same algebra)

NGVI (Khan & Lin 2017) is mirror descent in the *expectation* parameter μ = (E θ, E θ²)
(the slides' conclusion: NGVI works with the natural parameters of the exponential
family); the argmin of a linear term plus KLs is then a geometric mixture, in natural
parameters λ = (m/σ², −1/(2σ²)):

    λ_{t+1} = (λ_π/α + λ_t/β − g_t) / (1/α + 1/β),   g_t = ∇_{(Eθ, Eθ²)} ℓ̄_t
                                                        = (∂_m ℓ̄ − 2m ∂_v ℓ̄,  ∂_v ℓ̄),  v = σ².

The `*_objective` functions are the bracketed objectives (with the project's exact
`kl_gaussian`), for checking the closed forms against a numerical argmin.

Each method is an algorithm in the kernel shape: ``algorithm = build_svb(loss, alpha=…)`` (likewise
`build_oga`, `build_sva`, `build_ngvi`) is an `OnlineAlgorithm` (init, step) with
``state = algorithm.init(m0)`` and ``state, info = algorithm.step(state, x_t, y_t)``; the loss is a function
ℓ(z, y) (`logistic_loss`, `squared_loss`, or any other). `run(algorithm, X, y)` scans one over a sequence.

All functions are pure; shapes: d features, T steps; X (T, d), y (T,).

References
----------
B.-E. Chérif-Abdellatif, P. Alquier, M. E. Khan (2019). A generalization bound for online
variational inference. ACML 2019 (arXiv:1904.03920).
M. E. Khan, W. Lin (2017). Conjugate-computation variational inference. AISTATS 2017.
P. Alquier (2019). Generalization bounds for variational inference. Slides, EcoSta 2019.
"""
from __future__ import annotations

from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp
from jax.scipy.special import logsumexp

from lsvi.core.families.gaussian import meanfield_to_natural
from lsvi.core.losses import kl_gaussian
from lsvi.core.quadrature import gauss_hermite

NUM_NODES = 64


# ---------------------------------------------------------------- losses
def logistic_loss(z, y):
    """log(1 + exp(−y z)), y ∈ {−1, +1}; any broadcastable shapes."""
    return jnp.logaddexp(0.0, -y * z)


def squared_loss(z, y):
    """½ (y − z)²: −log of N(y; z, 1) without the constant ½ log 2π."""
    return 0.5 * (y - z) ** 2


def h(x):
    """h(x) = √(1 + x²) − x > 0 (componentwise), written to avoid cancellation for x ≫ 0."""
    return jnp.where(x > 0, 1.0 / (jnp.sqrt(1.0 + x**2) + x), jnp.sqrt(1.0 + x**2) - x)


def expected_loss(loss, m, var, x, y, num_nodes: int = NUM_NODES):
    """ℓ̄ = E_{θ∼N(m, diag var)} ℓ(xᵀθ, y): m, var, x (d,), y () -> (); 1-D Gauss–Hermite in z = xᵀθ."""
    z, w = gauss_hermite(1, num_nodes)
    mean, sd = x @ m, jnp.sqrt(x**2 @ var)
    return w @ loss(mean + sd * z[:, 0], y)


def grad_location_scale(loss, m, sigma, x, y):
    """(∂ℓ̄/∂m (d,), ∂ℓ̄/∂σ (d,)) at q_{m,σ}."""
    return jax.grad(lambda m_, s_: expected_loss(loss, m_, s_**2, x, y), argnums=(0, 1))(m, sigma)


def grad_expectation(loss, m, sigma, x, y):
    """∇ℓ̄ in the expectation parameter (E θ, E θ²) = (m, m² + σ²): (g₁ (d,), g₂ (d,))."""
    gm, gv = jax.grad(lambda m_, v_: expected_loss(loss, m_, v_, x, y), argnums=(0, 1))(m, sigma**2)
    return gm - 2.0 * m * gv, gv


# ---------------------------------------------------------------- the updates (closed forms)
def svb_step(g_m, g_s, m, sigma, alpha):
    """SVB: (m_{t+1}, σ_{t+1}) = (m − α σ² g_m, σ h(α σ g_σ / 2))."""
    return m - alpha * sigma**2 * g_m, sigma * h(alpha * sigma * g_s / 2.0)


def sva_step(G_m, G_s, alpha, prior_sd):
    """SVA from the accumulated gradients (G_m, G_s) = Σ_{i≤t} g_i: (−α s² G_m, s h(α s G_σ / 2))."""
    return -alpha * prior_sd**2 * G_m, prior_sd * h(alpha * prior_sd * G_s / 2.0)


def ngvi_step(g1, g2, m, sigma, alpha, beta, prior_sd):
    """NGVI: λ_{t+1} = (λ_π/α + λ_t/β − g)/(1/α + 1/β) in natural parameters; returns (m, σ)."""
    lam_t = meanfield_to_natural(m, sigma**2)[1:]
    lam_p = meanfield_to_natural(jnp.zeros_like(m), jnp.full_like(m, prior_sd**2))[1:]
    lam = (lam_p / alpha + lam_t / beta - jnp.concatenate([g1, g2])) / (1.0 / alpha + 1.0 / beta)
    d = m.shape[0]
    var = -0.5 / lam[d:]
    return var * lam[:d], jnp.sqrt(var)


# ---------------------------------------------------------------- the objectives (for checks)
def _kl_diag(m0, s0, m1, s1):
    return kl_gaussian(m0, jnp.diag(s0**2), m1, jnp.diag(s1**2))


def svb_objective(m, sigma, g_m, g_s, m_t, sigma_t, alpha):
    """mᵀg_m + σᵀg_σ + K(q_{m,σ}, q_{m_t,σ_t})/α."""
    return m @ g_m + sigma @ g_s + _kl_diag(m, sigma, m_t, sigma_t) / alpha


def sva_objective(m, sigma, G_m, G_s, alpha, prior_sd):
    """mᵀG_m + σᵀG_σ + K(q_{m,σ}, N(0, s²I))/α."""
    return m @ G_m + sigma @ G_s + _kl_diag(m, sigma, jnp.zeros_like(m), jnp.full_like(m, prior_sd)) / alpha


def ngvi_objective(m, sigma, g1, g2, m_t, sigma_t, alpha, beta, prior_sd):
    """(m, m² + σ²)ᵀ(g₁, g₂) + K(q, π)/α + K(q, q_t)/β, as a function of (m, σ)."""
    prior = _kl_diag(m, sigma, jnp.zeros_like(m), jnp.full_like(m, prior_sd))
    return m @ g1 + (m**2 + sigma**2) @ g2 + prior / alpha + _kl_diag(m, sigma, m_t, sigma_t) / beta


# ---------------------------------------------------------------- the algorithms (kernel shape)
class State(NamedTuple):
    """The forecaster after t − 1 steps: q_t = N(m_t, diag σ_t²), forecast θ_t = m_t (OGA: θ_t = m, σ = 0).

    m (d,); sigma (d,)."""
    m: jnp.ndarray
    sigma: jnp.ndarray


class SVAState(NamedTuple):
    """SVA's state: q_t = N(m_t, diag σ_t²) and the accumulated gradients (G_m, G_σ) = Σ_{i<t} g_i of
    Algorithm 3's linearised losses. m, sigma, G_m, G_s (d,)."""
    m: jnp.ndarray
    sigma: jnp.ndarray
    G_m: jnp.ndarray
    G_s: jnp.ndarray


class Info(NamedTuple):
    """One step's record, all *before* (x_t, y_t) is revealed: loss () = ℓ(x_tᵀθ_t, y_t), the loss the
    forecast θ_t = m_t incurs; m (d,), sigma (d,) = (m_t, σ_t), the forecaster that incurred it."""
    loss: jnp.ndarray
    m: jnp.ndarray
    sigma: jnp.ndarray


class OnlineAlgorithm(NamedTuple):
    """``init(m0 (d,)) -> state``: the first forecaster, mean m0 (`run`: m0 = 0, the prior mean);
    ``step(state, x (d,), y ()) -> (state, Info)``: forecast, incur ℓ(xᵀθ_t, y), update."""
    init: Callable
    step: Callable


def _init_sd(prior_sd, init_sd):
    return prior_sd if init_sd is None else init_sd


def build_oga(loss, lr) -> OnlineAlgorithm:
    """OGA: θ_{t+1} = θ_t − λ ∇_θ ℓ(x_tᵀθ_t, y_t), θ_1 = m0 (online gradient; named in the slides,
    never defined). ``loss(z, y)`` a loss of the linear predictor z = xᵀθ (`logistic_loss`,
    `squared_loss`); lr = λ. The state's σ is 0 (a point forecaster)."""

    def init(m0) -> State:
        return State(m0, jnp.zeros_like(m0))

    def step(state: State, x, y):
        m, s = state
        incurred = loss(x @ m, y)
        m_new = m - lr * jax.grad(lambda th: loss(x @ th, y))(m)
        return State(m_new, s), Info(incurred, m, s)

    return OnlineAlgorithm(init, step)


def build_svb(loss, alpha, prior_sd=1.0, init_sd=None) -> OnlineAlgorithm:
    """SVB (slides "SVA and SVB strategies", "An example: SVB with Gaussian approximations"):
    μ_{t+1} = argmin_μ μᵀg_t + K(q_μ, q_{μ_t})/α, g_t = ∇_{(m,σ)} ℓ̄_t at (m_t, σ_t), in closed form
    (`svb_step`): m_{t+1} = m_t − α σ_t² ⊙ g_m, σ_{t+1} = σ_t ⊙ h(α σ_t ⊙ g_σ / 2).
    ``loss(z, y)`` as in `build_oga`; q_1 = N(m0, σ_1² I), σ_1 = ``init_sd`` if given, else s = ``prior_sd``."""

    def init(m0) -> State:
        return State(m0, jnp.full_like(m0, _init_sd(prior_sd, init_sd)))

    def step(state: State, x, y):
        m, s = state
        incurred = loss(x @ m, y)
        m_new, s_new = svb_step(*grad_location_scale(loss, m, s, x, y), m, s, alpha)
        return State(m_new, s_new), Info(incurred, m, s)

    return OnlineAlgorithm(init, step)


def build_sva(loss, alpha, prior_sd=1.0, init_sd=None) -> OnlineAlgorithm:
    """SVA (Algorithm 3, slides "SVA and SVB strategies"): μ_{t+1} = argmin_μ μᵀ Σ_{i≤t} g_i + K(q_μ, π)/α,
    each g_i = ∇_{(m,σ)} ℓ̄_i at the iterate (m_i, σ_i) where x_i was revealed (linearised FTRL), in closed form
    (`sva_step`): m_{t+1} = −α s² Σ g_{m,i}, σ_{t+1} = s h(α s Σ g_{σ,i} / 2); π = N(0, s² I), s = ``prior_sd``.
    ``loss(z, y)`` as in `build_oga`; q_1 = N(m0, σ_1² I), σ_1 = ``init_sd`` if given, else s."""

    def init(m0) -> SVAState:
        return SVAState(m0, jnp.full_like(m0, _init_sd(prior_sd, init_sd)), jnp.zeros_like(m0), jnp.zeros_like(m0))

    def step(state: SVAState, x, y):
        m, s, G_m, G_s = state
        incurred = loss(x @ m, y)
        g_m, g_s = grad_location_scale(loss, m, s, x, y)
        G_m, G_s = G_m + g_m, G_s + g_s
        m_new, s_new = sva_step(G_m, G_s, alpha, prior_sd)
        return SVAState(m_new, s_new, G_m, G_s), Info(incurred, m, s)

    return OnlineAlgorithm(init, step)


def build_ngvi(loss, alpha, beta, prior_sd=1.0, init_sd=None) -> OnlineAlgorithm:
    """Online NGVI (slide "NGVI strategy"; Khan & Lin 2017): μ_{t+1} = argmin_μ μᵀg_t + K(q_μ, π)/α + K(q_μ, q_{μ_t})/β
    in the expectation parameter μ = (E θ, E θ²), g_t = (∂_m ℓ̄ − 2m ∂_v ℓ̄, ∂_v ℓ̄) (`grad_expectation`); in closed
    form (`ngvi_step`) λ_{t+1} = (λ_π/α + λ_t/β − g_t)/(1/α + 1/β) in natural parameters. π = N(0, s² I),
    s = ``prior_sd``; ``loss(z, y)`` as in `build_oga`; q_1 = N(m0, σ_1² I), σ_1 = ``init_sd`` if given, else s."""

    def init(m0) -> State:
        return State(m0, jnp.full_like(m0, _init_sd(prior_sd, init_sd)))

    def step(state: State, x, y):
        m, s = state
        incurred = loss(x @ m, y)
        m_new, s_new = ngvi_step(*grad_expectation(loss, m, s, x, y), m, s, alpha, beta, prior_sd)
        return State(m_new, s_new), Info(incurred, m, s)

    return OnlineAlgorithm(init, step)


def run(algorithm: OnlineAlgorithm, X, y):
    """Run one online algorithm over the sequence X (T, d), y (T,) (``lax.scan``), starting from
    ``algorithm.init(0 (d,))``; returns (losses (T,), m (T, d), σ (T, d)).

    losses[t] = ℓ(x_tᵀθ_t, y_t) with θ_t = m_t the forecast made *before* x_t is revealed; m, σ are
    those forecasters' (m_t, σ_t) (σ = 0 for OGA)."""
    state = algorithm.init(jnp.zeros(X.shape[1], X.dtype))
    _, info = jax.lax.scan(lambda s, xy: algorithm.step(s, *xy), state, (X, y))
    return info.loss, info.m, info.sigma


def ewa_log_weights(log_prior, grid_losses, alpha):
    """EWA on a finite grid (Algorithm 2): log p_t (T, K) for t = 1..T, from log π (K,) and the
    grid's losses grid_losses[t, k] = ℓ_t(θ_k) (T, K): log p_t = log π − α Σ_{i<t} ℓ_i − log norm.

    This is the tempered posterior π_{t−1,α} on the grid (exactly, for the log-loss)."""
    past = jnp.concatenate([jnp.zeros_like(grid_losses[:1]), jnp.cumsum(grid_losses, axis=0)[:-1]])
    lw = log_prior[None, :] - alpha * past
    return lw - logsumexp(lw, axis=1, keepdims=True)
