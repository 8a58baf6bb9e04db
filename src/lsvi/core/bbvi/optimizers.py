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
* `ngd_meanfield`: natural gradient descent (Appendix B.6, eq. B.12) for the mean-field family
  λ = (τ, ψ), q_λ = N(τ, diag e^{2ψ}): d = F(λ)^{-1} ĝ with the exact Fisher information of q_λ in these
  coordinates. Since log q = Σ_i [−ψ_i − (θ_i − τ_i)² e^{−2ψ_i}/2] + const,
  ∂_{τ_i} log q = (θ_i − τ_i)/σ_i², ∂_{ψ_i} log q = (θ_i − τ_i)²/σ_i² − 1 (σ_i = e^{ψ_i}), so with
  z = (θ − τ)/σ ~ N(0, I): F_{τ_iτ_i} = E[z_i²]/σ_i² = 1/σ_i², F_{ψ_iψ_i} = Var(z_i²) = 2, and the cross terms
  E[z_i(z_i² − 1)]/σ_i = 0. Hence F^{-1} = diag(σ², 1/2) and d = (σ² ⊙ ĝ_τ, ĝ_ψ/2). The Fisher depends on λ
  only, so it is an optax transform that reads `params` (the kernel passes λ) and keeps no state. The
  full-rank family is not covered (its Fisher in the log-Cholesky coordinates is not diagonal).
  SQN (Appendix B.5) is not implemented.

Constants the paper does not state (chosen here): β = 0.9 for RMSProp's ν, Adam's
(b1, b2) = (0.9, 0.999), avgAdam's momentum b1 = 0.9 with bias correction, ε = 1e-8 everywhere.

References
----------
M. Welandawe, M. R. Andersen, A. Vehtari, J. H. Huggins (2024). A framework for improving the
reliability of black-box variational inference. arXiv:2203.15945.
"""
from __future__ import annotations

from typing import NamedTuple

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


OPTIMIZERS = {"sgd": sgd, "rmsprop": rmsprop, "adam": adam, "avg_rmsprop": avg_rmsprop, "avg_adam": avg_adam,
              "ngd": ngd_meanfield}


def get(name: str) -> optax.GradientTransformation:
    """The optimiser called `name` (keys of `OPTIMIZERS`) with its default constants."""
    return OPTIMIZERS[name]()
