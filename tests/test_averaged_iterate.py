"""Theorem 3.4's weighted average of the logistic runs (`lsvi.papers.lsvi.averaged_iterate`) and its claim builder."""
from types import SimpleNamespace

import jax.numpy as jnp
import numpy as np
import pandas as pd
import pytest

from lsvi.core.families import gaussian_fullcov, gaussian_meanfield
from lsvi.core.families.gaussian import fullcov_from_natural, fullcov_to_natural, meanfield_from_natural, \
    meanfield_to_natural
from lsvi.papers.lsvi import averaged_iterate, averaged_iterate_claims

D = 3


def _iterates(rng, k):
    mus = [rng.normal(size=D) for _ in range(k)]
    covs = []
    for _ in range(k):
        a = rng.normal(size=(D, D))
        covs.append(a @ a.T + D * np.eye(D))
    return mus, covs


def test_fullcov_average_is_the_mass_and_step_weighted_moment_average():
    """Against the definition written out by hand: ω̂_t = Z_t (1, μ_t, Σ_t + μ_tμ_tᵀ), weights c_{t−1} = ε_{t−1}/ε_0 (μ = 0)."""
    rng = np.random.default_rng(0)
    mus, covs = _iterates(rng, 4)
    etas = np.stack([np.asarray(fullcov_to_natural(jnp.array(m), jnp.array(c))) for m, c in zip(mus, covs)])[None]
    offsets = np.array([0.0, 0.3, -0.2, 0.5])  # log masses Z_t of unnormalised iterates
    etas[0, :, 0] += offsets
    eps = np.array([[0.5, 0.25, 0.25]])
    bar = averaged_iterate.average_trace(gaussian_fullcov(D), etas, eps)
    assert bar.shape == etas.shape and np.array_equal(bar[0, 0], etas[0, 0])
    w = np.array([1.0, 0.5, 0.5]) * np.exp(offsets[1:])
    for k in (1, 2, 3):
        ww = w[:k] / w[:k].sum()
        m = sum(ww[i] * mus[i + 1] for i in range(k))
        s = sum(ww[i] * (covs[i + 1] + np.outer(mus[i + 1], mus[i + 1])) for i in range(k))
        mb, cb = fullcov_from_natural(jnp.array(bar[0, k]), D)
        np.testing.assert_allclose(mb, m, atol=1e-12)
        np.testing.assert_allclose(cb, s - np.outer(m, m), atol=1e-11)


def test_meanfield_average_and_a_larger_mu_weighs_later_iterates_more():
    rng = np.random.default_rng(1)
    mus, covs = _iterates(rng, 3)
    etas = np.stack([np.asarray(meanfield_to_natural(jnp.array(m), jnp.diag(jnp.array(c)))) for m, c in zip(mus, covs)])
    etas = np.stack([etas, etas])  # two repetitions
    eps = np.array([[0.5, 0.5], [0.5, 0.25]])
    bar = averaged_iterate.average_trace(gaussian_meanfield(D), etas, eps)
    for r, c in enumerate(([1.0, 1.0], [1.0, 0.5])):
        w = np.array(c) / sum(c)
        m = w[0] * mus[1] + w[1] * mus[2]
        s = w[0] * (np.diag(covs[1]) + mus[1] ** 2) + w[1] * (np.diag(covs[2]) + mus[2] ** 2)
        mb, vb = meanfield_from_natural(jnp.array(bar[r, 2]), D)
        np.testing.assert_allclose(mb, m, atol=1e-12)
        np.testing.assert_allclose(vb, s - m**2, atol=1e-12)
    c0, c1 = averaged_iterate.weights([[0.5, 0.5, 0.5]], 0.0)[0], averaged_iterate.weights([[0.5, 0.5, 0.5]], 1.0)[0]
    assert np.allclose(c0, 1.0) and c1[2] > c1[1] > c1[0]


def _tables(avg, last):
    cols = ["max |dmean|/sd*", "max |log sd/sd*|"]
    return pd.DataFrame({"A": avg}, index=cols).T, pd.DataFrame({"A": last}, index=cols).T


GOOD = SimpleNamespace(rhat_max=1.001, ess_bulk_min=2000)
BAD = SimpleNamespace(rhat_max=1.2, ess_bulk_min=50)


@pytest.mark.parametrize("avg, last, gold, full, status", [
    ((0.05, 0.08), (2.0, 1.0), GOOD, True, "PASS"),
    ((0.5, 0.08), (2.0, 1.0), GOOD, True, "FAIL"),
    ((0.05, 0.08), (2.0, 1.0), BAD, True, "NOT ASSESSABLE"),
    ((0.05, 0.08), (2.0, 1.0), GOOD, False, "NOT ASSESSABLE"),
])
def test_average_close_claim(avg, last, gold, full, status):
    a, b = _tables(avg, last)
    (row,) = averaged_iterate_claims.average_close({"A": "thm34-average-close-a"}, a, b, gold, {"A": full}, "")
    got = "NOT ASSESSABLE" if not row["assessable"] else ("PASS" if row["passed"] else "FAIL")
    assert got == status and row["kind"] == "beyond"
    assert ("ω̄_T close, last iterate not" in row["measured"]) == (avg[0] < 0.1)
