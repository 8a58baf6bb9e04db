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

Bad input is refused before anything runs, with a message that says what to change: too few
draws for the algorithm (`min_num_samples`), ``num_steps < 1``, a log density that is not finite
at draws of the initial distribution or that returns the wrong shape, an unknown family,
algorithm or schedule. After the run, iterates that Algorithm 4 rejected (no valid step found,
the previous iterate kept: a regression that returned NaN, say) are counted in
``Fit.num_rejected`` and reported by a warning. `fit` raises `RuntimeError` when every step is
rejected, or when no step's regression target η' was a normalisable q (Algorithm 4 backtracked at
every iteration, ``Fit.num_backtracked``): the mark of an improper target, whose iterates only
creep towards the boundary of V.
"""
from __future__ import annotations

import warnings
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

    @property
    def num_rejected(self) -> int:
        """Iterations whose step Algorithm 4 rejected (no valid step: the previous iterate kept)."""
        return int(jnp.sum(~jnp.asarray(self.info.accepted)))

    @property
    def num_backtracked(self) -> int:
        """Iterations where Algorithm 4 had to halve ε (the step ε·η' + (1 − ε)·η left V)."""
        return int(jnp.sum(jnp.asarray(self.info.num_halvings) > 0))


def min_num_samples(algorithm: str, family: ExponentialFamily) -> int:
    """The fewest draws per iteration ``algorithm`` can work with on ``family``: Algorithm 1's
    least squares has m = ``family.num_params`` coefficients, so it needs N > m draws (N = m fits
    exactly and leaves no residual); the others estimate moments and a residual variance: N >= 2."""
    return family.num_params + 1 if algorithm == "alg1" else 2


def check_log_density(batch: Callable, family: ExponentialFamily, eta0, key, num_draws: int = 16) -> None:
    """Raise ValueError unless ``batch`` (X (n, d) -> (n,)) returns one finite value per draw of the
    initial distribution q_η₀ (``num_draws`` draws)."""
    X = family.sample(key, eta0, num_draws)
    y = jnp.asarray(batch(X))
    if y.shape != (num_draws,):
        raise ValueError(f"log_density must return one scalar per point: X of shape {X.shape} gave shape {y.shape} "
                         "(pass x (d,) -> scalar, or with batched=True X (N, d) -> (N,))")
    bad = int(jnp.sum(~jnp.isfinite(y)))
    if bad:
        raise ValueError(f"log_density is not finite at {bad} of {num_draws} draws from the initial distribution "
                         f"(values such as {float(y[~jnp.isfinite(y)][0])}): LSVI regresses on these values; "
                         "give a log density that is finite where q_η₀ puts mass, or another eta0")


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

    Raises ValueError on bad input (see the module docstring) and RuntimeError when every step is
    rejected; warns (`RuntimeWarning`) with their number when some are.
    """
    if not isinstance(family, ExponentialFamily):
        raise TypeError(f"family must be an ExponentialFamily of lsvi.families, not {family!r}")
    if isinstance(num_steps, bool) or int(num_steps) != num_steps or num_steps < 1:
        raise ValueError(f"num_steps must be a positive integer, got {num_steps!r}")
    name = algorithm or algorithms.default_for(family)
    algorithms.get(name)  # an unknown name: ValueError listing the registered ones
    need = min_num_samples(name, family)
    if isinstance(num_samples, bool) or int(num_samples) != num_samples or num_samples < need:
        raise ValueError(f"{name} ({algorithms.get(name).label}) on {family.name} (m = {family.num_params} natural "
                         f"parameters) needs num_samples >= {need}, got {num_samples!r}")
    schedule = as_schedule(schedule)
    batch = log_density if batched else jax.vmap(log_density)
    log_target = lambda key, X: batch(X)
    kern = algorithms.build_kernel(name, family, log_target, int(num_samples), **options)
    eta0 = standard_normal_eta(family) if eta0 is None else jnp.asarray(eta0)
    key = jax.random.PRNGKey(seed)
    check_log_density(batch, family, eta0, jax.random.fold_in(key, 1))
    final, etas, info = _kernel.run_schedule(key, kern, _kernel.init(eta0), schedule, int(num_steps))
    result = Fit(final.eta, etas, info, name, family)
    rejected, backtracked = result.num_rejected, result.num_backtracked
    if rejected == int(num_steps):
        raise RuntimeError(f"every one of the {rejected} steps was rejected: Algorithm 4 found no step size giving a "
                           "normalisable q (is the target proper, and log_density its log density?)")
    if backtracked == int(num_steps):
        raise RuntimeError(f"the regression's target η' was outside V (not a normalisable q) at every one of the "
                           f"{backtracked} steps, and Algorithm 4 had to shrink each step: the target looks improper "
                           "(is log_density a log density, with a finite integral?)")
    if rejected:
        warnings.warn(f"{rejected} of {int(num_steps)} steps were rejected (Algorithm 4 found no valid step; the "
                      "previous iterate was kept): see Fit.num_rejected and Fit.info.accepted", RuntimeWarning,
                      stacklevel=2)
    return result
