"""The algorithms of the library, one module each, and the registry that builds them.

Every algorithm is a *regression* for the one LSVI step of `lsvi.core.kernel`, built the
same way, ``regression(family, log_target, num_samples, **options)``:

=========  ===========================  =====================================  ======================
name       module                       families                               options
=========  ===========================  =====================================  ======================
``alg1``   `lsvi_generic` (Algorithm 1)  any exponential family                 —
``alg2``   `lsvi_mf` (Algorithm 2)       ``gaussian_meanfield``                 ``centre``, ``residual``
``alg3``   `lsvi_fc` (Algorithm 3)       ``gaussian_fullcov``                   ``centre``, ``residual``
``ngd``    `ngd` (NGD, Section 5.1)      ``gaussian_fullcov``, ``gaussian_meanfield``  ``gradient``, ``fim``
=========  ===========================  =====================================  ======================

``kernel = build_kernel("alg3", family, log_target, num_samples)`` gives
``kernel(key, state, step_size, max_residual_var)``; `register` adds an algorithm (a new
regression is one module plus one `register` call).
"""
from __future__ import annotations

from typing import Callable, NamedTuple

from lsvi.core import kernel as _kernel
from lsvi.core.algorithms import lsvi_fc, lsvi_generic, lsvi_mf, ngd


class Algorithm(NamedTuple):
    """name: registry key; label: how figures name it; families: names of the families it
    supports (``None``: any); regression: ``(family, log_target, num_samples, **options)
    -> (key, η) -> (P, f(X), η')``; options: the keyword options ``regression`` takes;
    normalise: whether iterates are normalised (η⁽⁰⁾ = −log Z(η̄))."""

    name: str
    label: str
    families: tuple | None
    regression: Callable
    options: tuple = ()
    normalise: bool = False


ALGORITHMS: dict[str, Algorithm] = {}


def register(algorithm: Algorithm) -> Algorithm:
    """Add ``algorithm`` to `ALGORITHMS` (an existing name is an error)."""
    if algorithm.name in ALGORITHMS:
        raise ValueError(f"an algorithm named {algorithm.name!r} is already registered")
    ALGORITHMS[algorithm.name] = algorithm
    return algorithm


register(Algorithm("alg1", "LSVI (Algorithm 1)", None, lsvi_generic.regression))
register(Algorithm("alg2", "LSVI-MF (Algorithm 2)", ("gaussian_meanfield",), lsvi_mf.regression, ("centre", "residual")))
register(Algorithm("alg3", "LSVI-FC (Algorithm 3)", ("gaussian_fullcov",), lsvi_fc.regression, ("centre", "residual")))
register(Algorithm("ngd", "NGD", ngd.SUPPORTED, ngd.regression, ("gradient", "fim"), normalise=True))


def get(name: str) -> Algorithm:
    if name not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {name!r}; registered: {', '.join(ALGORITHMS)}")
    return ALGORITHMS[name]


def build_regression(name: str, family, log_target, num_samples: int, **options):
    """The regression of algorithm ``name`` for ``family`` (checked against the families and
    options the algorithm supports)."""
    alg = get(name)
    if alg.families is not None and family.name not in alg.families:
        raise ValueError(f"{name} ({alg.label}) supports the families {alg.families}, not {family.name!r}")
    bad = sorted(set(options) - set(alg.options))
    if bad:
        raise ValueError(f"options {bad} do not apply to {name} (it takes {alg.options or 'none'})")
    return alg.regression(family, log_target, num_samples, **options)


def build_kernel(name: str, family, log_target, num_samples: int, max_halvings: int = 60, **options):
    """``kernel(key, state, step_size, max_residual_var=inf) -> (state, info)`` of algorithm
    ``name`` (see `lsvi.core.kernel.build_kernel`); ``log_target(key, X (N, d)) -> (N,)``."""
    return _kernel.build_kernel(family, build_regression(name, family, log_target, num_samples, **options),
                                max_halvings, normalise=get(name).normalise)


def default_for(family) -> str:
    """The algorithm the paper pairs with a family: Algorithm 3 for the full-covariance
    Gaussian, Algorithm 2 for the mean-field Gaussian, Algorithm 1 otherwise."""
    return {"gaussian_fullcov": "alg3", "gaussian_meanfield": "alg2"}.get(family.name, "alg1")
