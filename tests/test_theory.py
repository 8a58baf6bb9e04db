"""lsvi.exact.theory: exact (quadrature) objects of Section 2 — uKL, KL, NGD, MD, fixed point."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from lsvi.exact import theory as th
from lsvi.core.families import gaussian_fullcov, gaussian_meanfield
from lsvi.core.families.gaussian import fullcov_from_natural, fullcov_to_natural, meanfield_to_natural

QUARTIC = th.polynomial_log_target([1.0, 0.8, -0.5, 0.3, -0.1])  # concave, skewed, polynomial
BANANA = th.banana_log_target(1.0, 0.5, 0.7)
FC1, FC2 = gaussian_fullcov(1), gaussian_fullcov(2)


def eta_fc(mean, cov, log_mass=0.0):
    return fullcov_to_natural(jnp.asarray(mean, float), jnp.asarray(cov, float)).at[0].add(log_mass)


def test_small_linear_algebra_matches_the_families():
    cov = jnp.array([[2.0, 0.6], [0.6, 0.5]])
    eta = eta_fc([0.3, -1.0], cov, 0.4)
    np.testing.assert_allclose(th.log_Z(FC2, eta), 0.4, atol=1e-12)
    np.testing.assert_allclose(th.log_Z(FC2, eta), eta[0] + FC2.log_partition(eta), atol=1e-12)
    mean, c = th.gaussian_parameters(FC2, eta)
    m2, c2 = fullcov_from_natural(eta, 2)
    np.testing.assert_allclose(mean, m2, atol=1e-12)
    np.testing.assert_allclose(c, c2, atol=1e-12)
    np.testing.assert_allclose(th.natural_parameters(FC2, mean, c, 0.4), eta, atol=1e-12)
    mf = gaussian_meanfield(2)
    eta_mf = meanfield_to_natural(jnp.array([1.0, -2.0]), jnp.array([0.5, 3.0]))
    np.testing.assert_allclose(th.log_Z(mf, eta_mf), 0.0, atol=1e-12)
    assert bool(th.is_valid(FC2, eta)) and not bool(th.is_valid(FC2, eta.at[3].set(1.0)))


def test_quadrature_moments_and_fisher_from_partition():
    """Nodes reproduce E_η[s]; F_η = E_η[ssᵀ] = ∇²Z_η / Z_η (eq. 35); ω(η) = Z_η E_η[s]."""
    eta = eta_fc([0.5], [[2.0]], 0.7)
    X, w = th.nodes(FC1, eta, 10)
    F, _ = th.expectations(FC1, eta, QUARTIC, 10)
    np.testing.assert_allclose(F, th.fisher_from_partition(FC1, eta), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(th.moment(FC1, eta), np.exp(0.7) * (w @ FC1.statistic(X)), rtol=1e-10)
    np.testing.assert_allclose(w @ FC1.statistic(X), [1.0, 0.5, 2.0 + 0.25], rtol=1e-12)


def test_moment_map_roundtrip():
    for fam, eta in [(FC2, eta_fc([0.5, -1.0], [[1.0, -0.4], [-0.4, 0.6]], 1.3)),
                     (gaussian_meanfield(2), meanfield_to_natural(jnp.array([0.2, 3.0]), jnp.array([0.3, 2.0])).at[0].add(-0.5))]:
        np.testing.assert_allclose(th.natural_from_moment(fam, th.moment(fam, eta)), eta, atol=1e-11)


def test_target_in_family_is_recovered_and_divergences_vanish():
    """π = q_η*: φ(η) = η* from any η (Section 2.1); uKL(q_η* | π) = KL = 0 and both are > 0 elsewhere."""
    eta_star = eta_fc([1.0, -0.5], [[0.8, 0.2], [0.2, 0.4]], 1.1)
    target = lambda key, X: FC2.dot(eta_star, X)
    eta = eta_fc([-2.0, 3.0], [[3.0, -1.0], [-1.0, 2.0]])
    np.testing.assert_allclose(th.lsvi_map(FC2, eta, target, 4), eta_star, atol=1e-10)
    np.testing.assert_allclose(th.ukl(FC2, eta_star, target, 1.1, 4), 0.0, atol=1e-12)
    np.testing.assert_allclose(th.kl(FC2, eta_star, target, 1.1, 4), 0.0, atol=1e-12)
    assert th.ukl(FC2, eta, target, 1.1, 4) > 0.1 and th.kl(FC2, eta, target, 1.1, 4) > 0.1
    # KL is a function of η̄ only; uKL is not
    np.testing.assert_allclose(th.kl(FC2, eta.at[0].add(3.0), target, 1.1, 4), th.kl(FC2, eta, target, 1.1, 4))


def test_ukl_gradient_formula_matches_autodiff():
    """Eq. (24/33) ∇uKL = Z(Fη − z) equals jax.grad of the quadrature uKL (exact for a polynomial f)."""
    eta = eta_fc([-1.0], [[2.0]], 0.3)
    g_auto = jax.grad(lambda e: th.ukl(FC1, e, QUARTIC, 0.0, 10))(eta)
    np.testing.assert_allclose(th.ukl_gradient(FC1, eta, QUARTIC, 10), g_auto, rtol=1e-10, atol=1e-10)
    assert np.abs(g_auto).max() > 0.1  # far from the optimum: a non-trivial comparison


def test_lsvi_ngd_md_one_step_coincide():
    """Proposition 2.4 for one step: eq. (5) = eq. (6) = eq. (7) = eq. (8)."""
    eta = eta_fc([-1.0], [[2.0]], 0.3)
    md = th.md_solver(FC1, QUARTIC, 10)
    for eps in (0.3, 1.0):
        ref = th.lsvi_step(FC1, eta, eps, QUARTIC, 10)
        np.testing.assert_allclose(th.ngd_step(FC1, eta, eps, QUARTIC, 10), ref, atol=1e-11)
        np.testing.assert_allclose(th.ngd_moment_step(FC1, eta, eps, QUARTIC, 10), ref, atol=1e-11)
        eta_md, info = md(eta, eps)
        np.testing.assert_allclose(eta_md, ref, atol=1e-11)
        assert info.grad_norm < 1e-10
        assert np.abs(ref - eta).max() > 0.05


def test_bregman_is_nonnegative_and_zero_on_the_diagonal():
    eta = eta_fc([0.3], [[1.5]], 0.2)
    w0 = th.moment(FC1, eta)
    assert abs(float(th.bregman_conjugate(FC1, w0, w0))) < 1e-14
    for e2 in (eta_fc([1.0], [[0.5]], -0.3), eta_fc([-2.0], [[3.0]], 1.0)):
        assert float(th.bregman_conjugate(FC1, th.moment(FC1, e2), w0)) > 1e-3


def test_fixed_point_is_a_critical_point_of_ukl_and_kl():
    """Props 2.2/2.3 on the quartic target: at the fixed point both gradients vanish and eq. (27) holds."""
    fp = th.fixed_point(FC1, eta_fc([0.0], [[4.0]]), QUARTIC, num_nodes=10)
    assert fp.residual < 1e-11
    eta = fp.eta
    assert np.abs(th.ukl_gradient(FC1, eta, QUARTIC, 10)).max() < 1e-10
    g_kl = jax.grad(lambda e: th.kl(FC1, e, QUARTIC, 0.0, 10))(eta)
    assert np.abs(g_kl).max() < 1e-10
    X, w = th.nodes(FC1, eta, 10)
    np.testing.assert_allclose(eta[0], w @ (QUARTIC(None, X) - FC1.dot(eta.at[0].set(0.0), X)), atol=1e-11)


def test_grid_normaliser_and_grid_kl():
    np.testing.assert_allclose(th.log_normaliser_grid(BANANA, [-9.0, -10.0], [9.0, 45.0], 300), 0.7, atol=1e-9)
    sk = th.skew_normal_log_target(3.0, 0.5, 2.0, log_mass=-1.2)
    np.testing.assert_allclose(th.log_normaliser_grid(sk, -25.0, 25.0, 400), -1.2, atol=1e-10)
    eta = eta_fc([0.7], [[0.8]])
    lz = th.log_normaliser_grid(QUARTIC, -12.0, 14.0, 400)
    np.testing.assert_allclose(th.kl_grid(FC1, eta, QUARTIC, -12.0, 14.0, 400), th.kl(FC1, eta, QUARTIC, lz, 10), atol=1e-10)


def test_minimise_kl_agrees_with_the_lsvi_fixed_point():
    fp = th.fixed_point(FC1, eta_fc([0.0], [[4.0]]), QUARTIC, num_nodes=10)
    kmin = th.minimise_kl(FC1, QUARTIC, [0.0], [[1.0]], num_nodes=10)
    assert kmin.grad_norm < 1e-12
    np.testing.assert_allclose(kmin.eta[1:], fp.eta[1:], atol=1e-10)


@pytest.mark.parametrize("meanfield", [True, False])
def test_whitened_map_quadrature_is_exact_for_a_gaussian_target(meanfield):
    """Algorithms 2–3's γ → η map with exact γ recovers η* (eq. 18 / 43)."""
    d = 2
    fam = gaussian_meanfield(d) if meanfield else gaussian_fullcov(d)
    if meanfield:
        eta_star = meanfield_to_natural(jnp.array([1.0, -1.0]), jnp.array([0.5, 2.0])).at[0].add(0.9)
        eta = meanfield_to_natural(jnp.array([0.0, 0.5]), jnp.array([2.0, 1.0]))
    else:
        eta_star = eta_fc([1.0, -1.0], [[0.5, 0.3], [0.3, 2.0]], 0.9)
        eta = eta_fc([0.0, 0.5], [[2.0, -0.5], [-0.5, 1.0]])
    target = lambda key, X: fam.dot(eta_star, X)
    np.testing.assert_allclose(th.whitened_map_quadrature(fam, eta, target, 4), eta_star, atol=1e-10)
    # the Monte Carlo version (eq. 20) is not exact at finite N, but is unbiased: its error is O(N^-1/2)
    Z = jax.random.normal(jax.random.key(0), (4000, d))
    err = np.abs(th.whitened_map(fam, eta, target, Z, jnp.full(4000, 1 / 4000)) - eta_star).max()
    assert 1e-6 < err < 1.0


def test_autodiff_gradients_and_finite_difference_reference():
    """`ukl_autodiff_gradient` = eq. (33) away from the optimum; `kl_autodiff_gradient` = the
    Gauss–Legendre finite differences of `kl_grid_fd_gradient`; both vanish at the fixed point."""
    eta = eta_fc([-1.0], [[2.0]], 0.3)
    g = th.ukl_autodiff_gradient(FC1, eta, QUARTIC, 10)
    np.testing.assert_allclose(g, th.ukl_gradient(FC1, eta, QUARTIC, 10), rtol=1e-10, atol=1e-10)
    assert np.abs(g).max() > 0.1
    lz = th.log_normaliser_grid(QUARTIC, -12.0, 14.0, 400)
    g_kl = th.kl_autodiff_gradient(FC1, eta, QUARTIC, 10)
    g_fd = th.kl_grid_fd_gradient(FC1, eta, QUARTIC, -12.0, 14.0, 400, 1e-5, log_z_target=lz)
    assert g_kl.shape == g_fd.shape == (2,) and np.abs(g_kl).max() > 0.1
    np.testing.assert_allclose(g_fd, g_kl, rtol=1e-6, atol=1e-8)
    fp = th.fixed_point(FC1, eta, QUARTIC, num_nodes=10)
    assert np.abs(th.ukl_autodiff_gradient(FC1, fp.eta, QUARTIC, 10)).max() < 1e-10
    assert np.abs(th.kl_autodiff_gradient(FC1, fp.eta, QUARTIC, 10)).max() < 1e-10


def test_random_fullcov_natural_is_valid_and_reproducible():
    etas = [th.random_fullcov_natural(jax.random.key(i), 3) for i in range(5)]
    assert all(bool(th.is_valid(gaussian_fullcov(3), e)) for e in etas)
    np.testing.assert_array_equal(th.random_fullcov_natural(jax.random.key(0), 3), etas[0])
    assert np.abs(etas[0] - etas[1]).max() > 0.1
    np.testing.assert_allclose(th.log_Z(gaussian_fullcov(3), etas[0]), 0.0, atol=1e-12)  # normalised
