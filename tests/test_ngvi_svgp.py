import jax
import numpy as np
import pytest

jax.config.update("jax_enable_x64", True)
from lsvi.papers.ngvi import svgp as sv
from lsvi.papers.ngvi import svgp_claims as sc


@pytest.fixture(scope="module")
def small():
    rng = np.random.default_rng(0)
    x = rng.uniform(-2, 2, size=(60, 1))
    y = np.sin(2 * x[:, 0]) + 0.3 * rng.normal(size=60)
    return sv.build(x, y, np.linspace(-2, 2, 7)[:, None], 1.0, 0.7, 0.3)


def test_reduction_passes(small):
    row = sc.reduction_row(sv.reduction_check(small), "test")
    assert row["passed"] and row["assessable"]


def test_reduction_fails_with_wrong_features(small, monkeypatch):
    wrong = lambda g: sv.nr.Problem(g.Kxz, g.y, g.s, np.zeros(g.Kzz.shape[0]), g.Kzz)  # features K_xz without K_zz⁻¹
    monkeypatch.setattr(sv, "reduced_problem", wrong)
    assert not sc.reduction_row(sv.reduction_check(small), "test")["passed"]


def test_rate_row_pass_fail_na():
    """Theorem 1's bound 4σ²/(T+1): a 1/T decay under it PASSes, a 1/√T decay (which crosses it) FAILs, and so does a
    1/T decay above the constant; too few repetitions or horizons are NOT ASSESSABLE."""
    rng = np.random.default_rng(1)
    T = np.array([10, 100, 1000, 10000])
    good = 5.0 / T * np.exp(0.05 * rng.normal(size=(6, 4)))
    assert sc.rate_row(T, good, 2.0, "t")["passed"]  # 4σ²/(T+1) = 8/(T+1) > 5/T
    slow = 5.0 / np.sqrt(T) * np.exp(0.05 * rng.normal(size=(6, 4)))
    r = sc.rate_row(T, slow, 2.0, "t")
    assert not r["passed"] and r["assessable"]
    r = sc.rate_row(T, good, 1.0, "t")  # 4/(T+1) < 5/T
    assert not r["passed"] and r["assessable"]
    r = sc.rate_row(T, good[:3], 2.0, "t")
    assert not r["assessable"]
    r = sc.rate_row(T[:2], good[:, :2], 2.0, "t")
    assert not r["assessable"]


def test_rate_runs_small(small):
    avg, last, etas = sv.rate_runs(jax.random.PRNGKey(0), small, 2, 200, 5, [10, 100, 200])
    assert avg.shape == (2, 3) and np.all(avg >= -1e-10) and avg[:, -1].mean() < avg[:, 0].mean()
    assert etas.shape[0] == 201
    sigma2 = sv.sigma2_along(jax.random.PRNGKey(1), small, etas, [0, 1, 10, 100], 5, 20)
    assert np.isfinite(sigma2) and sigma2 > 0
