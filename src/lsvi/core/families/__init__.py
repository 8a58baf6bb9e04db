"""Exponential families q_η(x) = exp{ηᵀ s(x)} with extended statistic s(x) = (1, s̄(x)) ∈ R^m.

A family is a `ExponentialFamily` record of pure functions; build one with
`gaussian_fullcov(d)`, `gaussian_meanfield(d)`, `bernoulli(d)` or
`truncated_gaussian_meanfield(lower, upper)`. The first component η⁽⁰⁾ multiplies the
constant statistic (Section 2 of the paper): the family is closed under multiplication
by a positive scalar, and `normalise(η)` sets η⁽⁰⁾ = −log ∫exp(η̄ᵀs̄).
"""
from typing import Callable, NamedTuple, Optional

import jax.numpy as jnp


class ExponentialFamily(NamedTuple):
    """Pure functions describing an exponential family.

    name:         short name.
    dim:          d, dimension of x.
    num_params:   m, dimension of η and s(x) (the constant statistic included).
    statistic:    X (N, d) -> s(X) (N, m).
    dot:          (η (m,), X (N, d)) -> ηᵀs(X) (N,), without materialising s(X).
    sample:       (key, η (m,), N) -> X (N, d), X_i i.i.d. ~ q̄_η.
    is_valid:     η (m,) -> bool, whether η ∈ V (q_η normalisable).
    log_partition: η (m,) -> log ∫exp(η̄ᵀ s̄) (ignores η⁽⁰⁾).
    project:      η -> η, maps an iterate back into the family's admissible set where the
                  family has one (e.g. Bernoulli probabilities kept in [ε, 1−ε]); identity
                  otherwise.
    reparameterise: (η (m,), Z (N, d)) -> X (N, d) with X ~ q̄_η when Z ~ N(0, I),
                  differentiable in η (Gaussian families: X = μ + L⁻ᵀZ, the one sampling
                  transform of the library); None for the other families.
    """

    name: str
    dim: int
    num_params: int
    statistic: Callable
    dot: Callable
    sample: Callable
    is_valid: Callable
    log_partition: Callable
    project: Callable
    reparameterise: Optional[Callable] = None


def normalise(family: ExponentialFamily, eta):
    """η with η⁽⁰⁾ = −log Z(q_η̄), so that q_η is a probability density."""
    return eta.at[0].set(-family.log_partition(eta))


def log_density(family: ExponentialFamily, eta, X):
    """Normalised log density log q̄_η(X) (N,) for X (N, d)."""
    return family.dot(eta, X) - eta[0] - family.log_partition(eta)


def _identity(eta):
    return eta


from lsvi.core.families.bernoulli import bernoulli  # noqa: E402
from lsvi.core.families.gaussian import gaussian_fullcov, gaussian_meanfield  # noqa: E402
from lsvi.core.families.truncated_gaussian import truncated_gaussian_meanfield  # noqa: E402

__all__ = [
    "ExponentialFamily",
    "normalise",
    "log_density",
    "gaussian_fullcov",
    "gaussian_meanfield",
    "bernoulli",
    "truncated_gaussian_meanfield",
]
