"""PyMC ADVI wrapper (`lsvi.baselines.pymc_advi`): target, ordering, trace structure.

PyMC's default optimiser (adagrad_window, learning rate 1e-3) moves the mean by a few
1e-4 per iteration, so even this 2-d posterior needs ~2·10⁴ iterations (~4 s) to converge.
"""
import numpy as np
import pytest

import pymc as pm  # a missing baseline library must fail, not skip

from lsvi.baselines import pymc_advi, to_natural  # noqa: E402
from lsvi.core.families.gaussian import fullcov_from_natural, meanfield_from_natural  # noqa: E402

PRIOR_VAR = 25.0
T = 20_000


@pytest.fixture(scope="module")
def data():
    """n = 20, d = 2 synthetic logistic regression, flipped rows y_i x_i; posterior mean
    ≈ (0.57, −0.91): distinct, non-zero coordinates (a swapped order or a sign error moves
    it by > 1), posterior sd ≈ 0.7–0.8."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 2))
    y = np.where(rng.uniform(size=20) < 1.0 / (1.0 + np.exp(-X @ np.array([1.0, -1.0]))), 1.0, -1.0)
    return y[:, None] * X


def grid_posterior(X_flipped, prior_var):
    """Posterior mean (2,) and covariance (2, 2) by quadrature on a fine 2-d grid."""
    g = np.linspace(-8.0, 8.0, 801)
    B = np.stack(np.meshgrid(g, g, indexing="ij"), -1).reshape(-1, 2)
    logp = -0.5 * np.sum(B**2, 1) / prior_var - np.sum(np.logaddexp(0.0, -B @ X_flipped.T), 1)
    w = np.exp(logp - logp.max())
    w /= w.sum()
    m = w @ B
    return m, (B - m).T @ ((B - m) * w[:, None])


@pytest.fixture(scope="module")
def fullrank(data):
    return pymc_advi.fit(data, PRIOR_VAR, num_iterations=T, method="fullrank_advi", num_records=30, seed=0)


@pytest.fixture(scope="module")
def meanfield(data):
    return pymc_advi.fit(data, PRIOR_VAR, num_iterations=T, method="advi", num_records=30, seed=1)


def test_matches_grid_posterior(data, fullrank, meanfield):
    """Observed at T = 2·10⁴ (seeds 0, 1): |μ − m| ≤ 0.04 (full rank and mean field),
    full-rank Σ within 20% of the posterior covariance (still shrinking from 1.72 I)."""
    m, C = grid_posterior(data, PRIOR_VAR)
    assert np.all(np.abs(m) > 0.5) and abs(m[0] - m[1]) > 1.0  # a sign/order error would show
    np.testing.assert_allclose(fullrank.mean[-1], m, atol=0.1)
    np.testing.assert_allclose(meanfield.mean[-1], m, atol=0.15)
    np.testing.assert_allclose(np.diag(fullrank.cov[-1]), np.diag(C), rtol=0.35)
    assert fullrank.cov[-1][0, 1] < 0 and C[0, 1] < 0
    # the unflipped design (or −X̃) would give a posterior mean far from ADVI's
    m_wrong, _ = grid_posterior(-data, PRIOR_VAR)
    assert np.max(np.abs(fullrank.mean[-1] - m_wrong)) > 0.5


@pytest.mark.parametrize("which", ["fullrank", "meanfield"])
def test_trace_structure(which, request):
    tr = request.getfixturevalue(which)
    K = len(tr.iterations)
    assert tr.iterations[0] == 0 and tr.iterations[-1] == T and np.all(np.diff(tr.iterations) > 0)
    assert tr.mean.shape == (K, 2) and tr.elapsed.shape == (K,)
    assert np.all(np.diff(tr.elapsed) >= 0) and tr.elapsed[0] >= 0
    assert tr.loop_s >= tr.elapsed[-1]  # the loop ends after its last record
    assert not tr.info["diverged"] and tr.info["error"] is None and tr.info["iterations_completed"] == T
    assert len(tr.info["loss_block_mean"]) == K - 1 and np.all(np.isfinite(tr.info["loss_block_mean"]))
    np.testing.assert_array_equal(tr.mean[0], 0.0)  # PyMC's default start: the model's initial point
    if which == "meanfield":
        assert tr.meanfield and tr.cov.shape == (K, 2)
        assert np.all(tr.cov > 0)
        np.testing.assert_allclose(tr.cov[0], np.log(2.0) ** 2)  # σ₀ = softplus(0)
    else:
        assert not tr.meanfield and tr.cov.shape == (K, 2, 2)
        np.testing.assert_allclose(tr.cov, np.swapaxes(tr.cov, 1, 2))
        assert np.all(np.linalg.eigvalsh(tr.cov) > 0)
        np.testing.assert_allclose(tr.cov[0], np.log1p(np.e) ** 2 * np.eye(2))  # L₀ = softplus(1) I


@pytest.mark.parametrize("which, m", [("fullrank", 6), ("meanfield", 5)])
def test_to_natural(which, m, request):
    """One natural-parameter row per record, mapping back to the recorded (μ, Σ)."""
    tr = request.getfixturevalue(which)
    eta = np.asarray(to_natural(tr))
    assert eta.shape == (len(tr.iterations), m) and np.all(np.isfinite(eta))
    back = meanfield_from_natural if tr.meanfield else fullcov_from_natural
    mean, cov = back(eta[-1], 2)
    np.testing.assert_allclose(mean, tr.mean[-1], rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(cov, tr.cov[-1], rtol=1e-8)


def test_nan_is_reported_not_dropped(data):
    """A NaN loss makes PyMC raise FloatingPointError: caught, reported, records kept.
    (pm.Data refuses NaN; an infinite row gives ∞ − ∞ = NaN in x̃ᵀβ or in the gradient.)"""
    bad = data.copy()
    bad[0] = [np.inf, -np.inf]
    tr = pymc_advi.fit(bad, PRIOR_VAR, num_iterations=50, method="advi", num_records=51)
    assert tr.info["diverged"] and "FloatingPointError" in tr.info["error"]
    done = tr.info["iterations_completed"]
    assert done < 50 and tr.iterations.tolist() == list(range(done + 1))


def test_fit_gaussian_target_wiring_and_convergence_callback():
    """Mean-field ADVI on N(0, diag(4, 0.09)) (`fit_gaussian`, the Fig. 7 stand-in for Stan's ADVI): records every
    200 iterations; from PyMC's start σ = log 2 ≈ 0.69 the first σ grows toward 2 and the second shrinks toward 0.3
    (a swapped or inverted covariance would reverse both); the mean stays near 0. A loose tolerance makes PyMC's
    convergence callback fire at its first comparison (by iteration 200) without cutting the recorded curve; an
    impossible tolerance never fires."""
    V = np.diag([4.0, 0.09])
    c = pymc_advi.fit_gaussian(V, 3000, record_every=200, seed=0, convergence={"tolerance": 10.0})
    assert list(c.iterations) == list(range(200, 3001, 200))
    assert c.mean.shape == (15, 2) and c.std.shape == (15, 2)
    assert c.std[-1, 0] > c.std[0, 0] + 0.1 and c.std[-1, 1] < c.std[0, 1] - 0.1
    assert c.std[-1, 0] < 2.0 + 0.2 and c.std[-1, 1] > 0.3 - 0.05
    assert np.all(np.abs(c.mean[-1]) < 0.3)
    assert c.stop_iteration is not None and c.stop_iteration <= 200
    strict = pymc_advi.fit_gaussian(V, 400, seed=0, convergence={"tolerance": 1e-12})
    assert strict.stop_iteration is None and list(strict.iterations) == [200, 400]
