"""`fit`: LSVI on your own log density in one call.

    import jax.numpy as jnp
    import lsvi

    log_density = lambda x: -0.5 * jnp.sum((x - 1.0) ** 2) - x[0] ** 4 / 4   # unnormalised, x (d,)
    result = lsvi.fit(log_density, lsvi.families.gaussian_fullcov(2), num_samples=10_000,
                      num_steps=50, schedule=lsvi.schedules.harmonic())
    result.mean, result.cov                        # the Gaussian approximation

The algorithm is the one the paper pairs with the family (`lsvi.core.algorithms.default_for`:
Algorithm 3 for ``gaussian_fullcov``, 2 for ``gaussian_meanfield``, 1 otherwise) unless
``algorithm`` names another registered one. Below this, the low-level API:
``lsvi.core.algorithms.build_kernel`` and ``lsvi.core.kernel.run``.
"""
from __future__ import annotations

from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp

from lsvi.core import algorithms
from lsvi.core import kernel as _kernel
from lsvi.core import step_size
from lsvi.core.families import ExponentialFamily
from lsvi.core.families.gaussian import (
    fullcov_from_natural,
    fullcov_to_natural,
    meanfield_from_natural,
    meanfield_to_natural,
)


class Fit(NamedTuple):
    """The result of `fit`.

    eta (m,): final natural parameter; etas (T + 1, m): every iterate, the initial one first;
    info: `lsvi.core.kernel.LSVIInfo` with leaves (T,) (step sizes used, residual variances,
    halvings, acceptance); algorithm: its registry name; family: the family fitted."""

    eta: jax.Array
    etas: jax.Array
    info: _kernel.LSVIInfo
    algorithm: str
    family: ExponentialFamily

    @property
    def mean(self):
        """Mean (d,) of the final Gaussian approximation."""
        return _moments(self.family, self.eta)[0]

    @property
    def cov(self):
        """Covariance (d, d) (full covariance) or variances (d,) (mean field)."""
        return _moments(self.family, self.eta)[1]


def _moments(family, eta):
    if family.name == "gaussian_fullcov":
        return fullcov_from_natural(eta, family.dim)
    if family.name == "gaussian_meanfield":
        return meanfield_from_natural(eta, family.dim)
    raise ValueError(f"mean / cov are defined for the Gaussian families, not {family.name!r}")


def standard_normal_eta(family):
    """Natural parameter of N(0, I) in a Gaussian family (the paper's initial q)."""
    d = family.dim
    if family.name == "gaussian_fullcov":
        return fullcov_to_natural(jnp.zeros(d), jnp.eye(d))
    if family.name == "gaussian_meanfield":
        return meanfield_to_natural(jnp.zeros(d), jnp.ones(d))
    raise ValueError(f"no default initial parameter for the {family.name!r} family: pass eta0")


def as_schedule(schedule) -> step_size.Schedule:
    """A `Schedule`, a Table 3 index (1–6) or a constant step size (float)."""
    if isinstance(schedule, step_size.Schedule):
        return schedule
    if isinstance(schedule, int) and not isinstance(schedule, bool):
        return step_size.table3(schedule)
    if isinstance(schedule, float):
        return step_size.constant(schedule)
    raise TypeError(f"schedule must be a Schedule, a Table 3 index or a float, not {schedule!r}")


def fit(log_density: Callable, family: ExponentialFamily, num_samples: int, num_steps: int, schedule, *,
        algorithm: str | None = None, eta0=None, seed: int = 0, batched: bool = False, **options) -> Fit:
    """Run ``num_steps`` LSVI iterations with ``num_samples`` draws each on ``log_density``.

    log_density: the unnormalised log target, ``x (d,) -> scalar`` (vectorised with
    ``jax.vmap``), or with ``batched=True`` ``X (N, d) -> (N,)``. family: an
    `ExponentialFamily` of `lsvi.families`. schedule: a `lsvi.schedules.Schedule`, a Table 3
    index (1–6) or a constant ε. algorithm: a name of `lsvi.core.algorithms.ALGORITHMS`
    (default: `lsvi.core.algorithms.default_for`); ``options`` go to it (e.g. ``centre``).
    eta0: initial natural parameter (default N(0, I) for Gaussian families). seed: the
    PRNG seed (same seed, same numbers).
    """
    batch = log_density if batched else jax.vmap(log_density)
    log_target = lambda key, X: batch(X)
    name = algorithm or algorithms.default_for(family)
    kern = algorithms.build_kernel(name, family, log_target, int(num_samples), **options)
    eta0 = standard_normal_eta(family) if eta0 is None else jnp.asarray(eta0)
    final, etas, info = _kernel.run_schedule(jax.random.PRNGKey(seed), kern, _kernel.init(eta0),
                                             as_schedule(schedule), int(num_steps))
    return Fit(final.eta, etas, info, name, family)
