"""The approximation metrics of RABVI's Section 7.2 against closed forms."""
import numpy as np
import pytest
from scipy import stats

from lsvi.papers.rabvi import approximation_metrics as am


def _gauss_kernel_mean(m1, S1, m2, S2, s):
    """E k(x, y), x ~ N(m1, S1), y ~ N(m2, S2) independent, k = exp(-|x - y|^2 / (2 s^2)): closed form."""
    d = len(m1)
    A = s**2 * np.eye(d) + S1 + S2
    diff = m1 - m2
    return s**d / np.sqrt(np.linalg.det(A)) * np.exp(-0.5 * diff @ np.linalg.solve(A, diff))


@pytest.mark.parametrize("shift", [0.0, 0.7])
def test_mmd_matches_gaussian_closed_form(shift):
    rng = np.random.default_rng(0)
    d, n, s = 2, 3000, 1.3
    S1, S2 = np.diag([1.0, 0.5]), np.array([[2.5, 0.6], [0.6, 0.8]])
    m1, m2 = np.zeros(d), np.array([shift, -shift])
    x = rng.multivariate_normal(m1, S1, n)
    y = rng.multivariate_normal(m2, S2, n)
    exact = (_gauss_kernel_mean(m1, S1, m1, S1, s) + _gauss_kernel_mean(m2, S2, m2, S2, s)
             - 2 * _gauss_kernel_mean(m1, S1, m2, S2, s))
    est = am.mmd_squared(x, y, np.ones(d), s, max_points=n)
    assert est == pytest.approx(exact, abs=3.5 * (0.001 + 0.02 * exact))  # ~3.5 sd of the estimator (8 seeds)
    assert exact > 0.02  # the two cases differ in covariance already: the test can fail


def test_mmd_same_distribution_near_zero_and_standardisation():
    rng = np.random.default_rng(1)
    sd = np.array([100.0, 0.01])
    x, y = rng.normal(size=(2000, 2)) * sd, rng.normal(size=(2000, 2)) * sd
    bw = am.median_bandwidth(y, sd)
    assert bw == pytest.approx(np.sqrt(stats.chi2(2).median()), rel=0.1)  # |x-x'|^2/2 ~ chi2_2 for standard normals
    assert abs(am.mmd_squared(x, y, sd, bw)) < 0.005
    assert am.mmd_squared(x + np.array([0.0, 0.01]), y, sd, bw) > 0.05  # one reference sd along the small axis


def test_undercoverage_of_too_narrow_gaussian():
    rng = np.random.default_rng(2)
    ref = rng.normal(size=(200_000, 3))
    lo, hi = am.gaussian_interval(np.zeros(3), np.array([1.0, 0.5, 2.0]))
    u = am.undercoverage(lo, hi, ref)
    expected_c = 2 * stats.norm.cdf(am.Z95 * 0.5) - 1  # 0.673
    np.testing.assert_allclose(u, [0.0, 0.95 - expected_c, 0.0], atol=0.005)
    lo, hi = am.central_interval(ref)
    assert np.all(am.undercoverage(lo, hi, ref) < 0.002)


def test_relative_errors():
    me, se = am.relative_errors(np.array([[1.0, 0.0]]), np.array([[2.0, 1.0]]), np.zeros(2), np.array([2.0, 1.0]))
    np.testing.assert_allclose(me, [0.5])
    np.testing.assert_allclose(se, [0.0])
