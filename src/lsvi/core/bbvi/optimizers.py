"""Descent directions d_k of eq. 4 (RABVI paper, Sections 2.3 and 4.3), as optax transforms
*without* the learning rate: the kernel takes λ ← λ − γ d_k with γ an argument, so that one
optimiser serves every fixed learning rate of RABVI.

* `sgd`: d = ĝ (optax.identity);
* `rmsprop`: optax.scale_by_rms (ν ← βν + (1−β)ĝ², d = ĝ/(√ν + ε));
* `adam`: optax.scale_by_adam (bias-corrected first and second moments);
* `avg_rmsprop`, `avg_adam`: eq. 18, the squared-gradient average with β_k = 1 − 1/k, i.e.
  ν^{(k+1)} = (k+1)^{-1} Σ_{k'≤k} ĝ^{(k')}⊙ĝ^{(k')} — the only part optax lacks, written here as
  `scale_by_averaged_rms`; avgAdam divides optax's bias-corrected first-moment EMA (optax.ema) by that average
  (optax.scale_by_adam cannot do it: its b2 is a constant);
* `ngd_meanfield`: natural gradient descent (Appendix B.6, eq. B.12, in the family's own coordinates) for the mean-field family
  λ = (τ, ψ), q_λ = N(τ, diag e^{2ψ}): d = F(λ)^{-1} ĝ with the exact Fisher information of q_λ in these
  coordinates. Since log q = Σ_i [−ψ_i − (θ_i − τ_i)² e^{−2ψ_i}/2] + const,
  ∂_{τ_i} log q = (θ_i − τ_i)/σ_i², ∂_{ψ_i} log q = (θ_i − τ_i)²/σ_i² − 1 (σ_i = e^{ψ_i}), so with
  z = (θ − τ)/σ ~ N(0, I): F_{τ_iτ_i} = E[z_i²]/σ_i² = 1/σ_i², F_{ψ_iψ_i} = Var(z_i²) = 2, and the cross terms
  E[z_i(z_i² − 1)]/σ_i = 0. Hence F^{-1} = diag(σ², 1/2) and d = (σ² ⊙ ĝ_τ, ĝ_ψ/2). The Fisher depends on λ
  only, so it is an optax transform that reads `params` (the kernel passes λ) and keeps no state. The
  full-rank family is not covered (its Fisher in the log-Cholesky coordinates is not diagonal).
* `natural_parameter_meanfield` (a `SteppedTransformation`: direction ĝ, step `natural_parameter_step`): Khan & Lin's NGD as Appendix B.6 writes it,
  eq. B.14, η ← η − γ ∇_m D with η = (μ/σ², −1/(2σ²)) the natural and m = (μ, μ² + σ²) the expectation parameters
  of each coordinate. By the chain rule from ĝ = (ĝ_τ, ĝ_ψ) (s = σ² = e^{2ψ}): ∂D/∂m₂ = ∂D/∂s = ĝ_ψ/(2s) and
  ∂D/∂m₁ = ĝ_τ − 2μ ∂D/∂s, so η₂' = −(1 + γĝ_ψ)/(2s) and, mapped back, σ'² = σ²/(1 + γĝ_ψ),
  μ' = μ − γσ²ĝ_τ/(1 + γĝ_ψ) (derived here): to first order in γ the step of `ngd_meanfield`, but not for the large
  γ of RABVI's first epochs. Where 1 + γĝ_ψ ≤ 0 the step leaves the natural-parameter space (σ'² would be negative
  or infinite): the paper does not say what happens then; here the iterate becomes NaN (the run has diverged, and
  FASO and RABVI report a failure), rather than a guard the paper does not describe.
* SQN (Appendix B.5): `lsvi.core.bbvi.sqn`.

Constants the paper does not state (chosen here): β = 0.9 for RMSProp's ν, Adam's
(b1, b2) = (0.9, 0.999), avgAdam's momentum b1 = 0.9 with bias correction, ε = 1e-8 everywhere.

References
----------
M. Welandawe, M. R. Andersen, A. Vehtari, J. H. Huggins (2024). A framework for improving the
reliability of black-box variational inference. arXiv:2203.15945.
"""
from __future__ import annotations

from typing import Callable, NamedTuple

import jax.numpy as jnp
import optax

EPS = 1e-8


class AveragedRmsState(NamedTuple):
    count: jnp.ndarray  # k, the number of squared gradients averaged so far
    nu: jnp.ndarray  # running mean of ĝ⊙ĝ, shape of the parameters


def scale_by_averaged_rms(eps: float = EPS) -> optax.GradientTransformation:
    """Eq. 18 with β_k = 1 − 1/k: d = ĝ/(√ν + ε), ν the running *mean* of ĝ⊙ĝ (all iterations)."""

    def init_fn(params):
        return AveragedRmsState(jnp.zeros([], jnp.int32), jnp.zeros_like(params))

    def update_fn(updates, state, params=None):
        k = state.count + 1
        nu = state.nu + (updates * updates - state.nu) / k
        return updates / (jnp.sqrt(nu) + eps), AveragedRmsState(k, nu)

    return optax.GradientTransformation(init_fn, update_fn)


def sgd() -> optax.GradientTransformation:
    return optax.identity()


def rmsprop(decay: float = 0.9, eps: float = EPS) -> optax.GradientTransformation:
    return optax.scale_by_rms(decay=decay, eps=eps)


def adam(b1: float = 0.9, b2: float = 0.999, eps: float = EPS) -> optax.GradientTransformation:
    return optax.scale_by_adam(b1=b1, b2=b2, eps=eps)


def avg_rmsprop(eps: float = EPS) -> optax.GradientTransformation:
    return scale_by_averaged_rms(eps)


def avg_adam(b1: float = 0.9, eps: float = EPS) -> optax.GradientTransformation:
    """Momentum m_k (optax.ema with decay b1, bias-corrected) divided by √ν_k + ε, with ν_k the
    eq. 18 average of ĝ⊙ĝ."""
    avg = scale_by_averaged_rms(eps)
    ema = optax.ema(decay=b1, debias=True)

    def init_fn(params):
        return (ema.init(params), avg.init(params))

    def update_fn(updates, state, params=None):
        m, ema_state = ema.update(updates, state[0])
        k = state[1].count + 1
        nu = state[1].nu + (updates * updates - state[1].nu) / k
        return m / (jnp.sqrt(nu) + eps), (ema_state, AveragedRmsState(k, nu))

    return optax.GradientTransformation(init_fn, update_fn)


def ngd_meanfield() -> optax.GradientTransformation:
    """Natural gradient for λ = (τ, ψ) (P = 2d): d = (e^{2ψ} ⊙ ĝ_τ, ĝ_ψ / 2) = F(λ)^{-1} ĝ (module docstring).

    Needs `params` = λ in `update` (raises otherwise); stateless."""

    def init_fn(params):
        return optax.EmptyState()

    def update_fn(updates, state, params=None):
        if params is None:
            raise ValueError("ngd_meanfield needs the current parameters λ = (τ, ψ)")
        d = params.shape[-1] // 2
        return jnp.concatenate([jnp.exp(2 * params[d:]) * updates[:d],
                                0.5 * updates[d:]]), state

    return optax.GradientTransformation(init_fn, update_fn)


class SteppedTransformation(NamedTuple):
    """An optax transform (``init``, ``update``: the direction d) with its own step ``apply(λ, d, γ) -> λ'``, for a
    step that is not λ − γ d (`lsvi.core.bbvi.kernel.build` uses ``apply`` when the optimiser has one)."""
    init: Callable
    update: Callable
    apply: Callable


def natural_parameter_meanfield() -> SteppedTransformation:
    """Eq. B.14 for the mean-field family: direction d = ĝ unchanged (optax.identity), step
    `natural_parameter_step` (it reads the current λ and γ). Stateless."""
    identity = optax.identity()
    return SteppedTransformation(identity.init, identity.update, natural_parameter_step)


def natural_parameter_step(position, direction, step_size):
    """Eq. B.14 for the mean-field family λ = (τ, ψ) (P = 2d) from ĝ = ``direction``: with a = 1 + γĝ_ψ,
    τ' = τ − γ e^{2ψ} ĝ_τ / a, ψ' = ψ − ½ log a (module docstring); NaN where a ≤ 0 (the natural parameter
    −1/(2σ²) would leave (−∞, 0))."""
    d = position.shape[-1] // 2
    tau, psi = position[..., :d], position[..., d:]
    g_tau, g_psi = direction[..., :d], direction[..., d:]
    a = 1.0 + step_size * g_psi
    a = jnp.where(a > 0, a, jnp.nan)
    return jnp.concatenate([tau - step_size * jnp.exp(2 * psi) * g_tau / a, psi - 0.5 * jnp.log(a)], axis=-1)


OPTIMIZERS = {"sgd": sgd, "rmsprop": rmsprop, "adam": adam, "avg_rmsprop": avg_rmsprop, "avg_adam": avg_adam,
              "ngd": ngd_meanfield, "ngd_natural": natural_parameter_meanfield}


def get(name: str) -> optax.GradientTransformation:
    """The optimiser called `name` (keys of `OPTIMIZERS`) with its default constants."""
    if name not in OPTIMIZERS:
        raise ValueError(f"unknown optimiser {name!r}; known: {', '.join(OPTIMIZERS)}")
    return OPTIMIZERS[name]()
