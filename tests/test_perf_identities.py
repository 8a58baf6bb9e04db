"""Identities behind the performance changes of issue 17: the faster form equals the plain one."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from lsvi.core.algorithms import lsvi_generic as generic
from lsvi.core.families import gaussian_fullcov
from lsvi.core.families.gaussian import fullcov_to_natural


def design(mean, sd, d=4, N=2000, seed=0):
    """s(X) of the full-covariance family for X ~ N(mean·1, sd²I) and a non-quadratic target:
    far from the origin (mean ≫ sd) the columns 1, x, x² differ in scale and are nearly collinear."""
    fam = gaussian_fullcov(d)
    eta = fullcov_to_natural(mean * jnp.ones(d), sd**2 * jnp.eye(d))
    X = fam.sample(jax.random.key(seed), eta, N)
    y = -0.5 * jnp.sum((X - mean) ** 2 / (2 * sd**2), axis=1) + jnp.sin(X[:, 0])
    return fam.statistic(X), y


@pytest.mark.parametrize("seed", [0, 1])
def test_gram_first_equilibration_equals_design_equilibration(seed):
    """D⁻¹(SᵀS)D⁻¹ with D² = diag(SᵀS) is (SD⁻¹)ᵀ(SD⁻¹): on a moderately conditioned design the
    two OLS agree to rounding and with a thin QR (the backward-stable reference), and the
    residual is orthogonal to the columns (the normal equations hold)."""
    S, y = design(3.0, 0.5, seed=seed)
    assert S.shape[0] >= 20 * S.shape[1]  # the Cholesky path of `ols`, not its QR fallback
    new, old, qr = generic.ols(S, y), generic.ols_equilibrated_design(S, y), generic.ols_qr(S, y)
    np.testing.assert_allclose(new, old, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(new, qr, rtol=1e-9, atol=1e-11)
    r = y - S @ new
    assert float(jnp.max(jnp.abs(S.T @ r) / (jnp.linalg.norm(S, axis=0) * jnp.linalg.norm(y)))) < 1e-12


@pytest.mark.parametrize("seed", [0, 1])
def test_gram_first_equilibration_is_no_less_accurate(seed):
    """Far from the origin (mean 30, sd 0.1: cond(S) ≈ 10⁷ after equilibration) both normal-equation
    solvers lose digits; the Gram-first one stays as close to QR as the design-first one (within 10×)
    in coefficients and in fitted values."""
    S, y = design(30.0, 0.1, seed=seed)
    new, old, qr = generic.ols(S, y), generic.ols_equilibrated_design(S, y), generic.ols_qr(S, y)
    err_new, err_old = float(jnp.max(jnp.abs(new - qr))), float(jnp.max(jnp.abs(old - qr)))
    assert np.isfinite(err_new) and err_new <= 10 * err_old + 1e-12 * float(jnp.max(jnp.abs(qr)))
    fit_err_new, fit_err_old = (float(jnp.max(jnp.abs(S @ b - S @ qr))) for b in (new, old))
    assert fit_err_new <= 10 * fit_err_old + 1e-12 * float(jnp.max(jnp.abs(S @ qr)))


def test_gram_first_ols_is_exact_on_a_polynomial():
    """y in the span of s(X): the OLS recovers the coefficients (the scaling is undone correctly)."""
    S, _ = design(1.0, 1.0, d=3, N=1000, seed=2)
    beta = jnp.linspace(-1.0, 1.0, S.shape[1])
    np.testing.assert_allclose(generic.ols(S, S @ beta), beta, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("N", [55, 1000])
def test_qr_from_the_augmented_r_factor_equals_lstsq(N):
    """R of [S, y] holds Qᵀy in its last column: `ols_qr` (R only, no Q) equals numpy's
    least squares (SVD) on a badly scaled design, including the square case N = m."""
    rng = np.random.default_rng(N)
    S = rng.normal(size=(N, 55)) * np.logspace(0, 3, 55)
    y = rng.normal(size=N)
    ref = np.linalg.lstsq(S, y, rcond=None)[0]
    out = np.asarray(generic.ols_qr(jnp.asarray(S), jnp.asarray(y)))
    np.testing.assert_allclose(out, ref, rtol=0, atol=1e-9 * np.max(np.abs(ref)))
