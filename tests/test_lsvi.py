"""Algorithms 1–4: each test asserts a property stated in the paper, at small sizes."""
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lsvi.core import algorithms, kernel, step_size
from lsvi.core.algorithms import lsvi_fc as fc
from lsvi.core.algorithms import lsvi_generic as generic
from lsvi.core.algorithms import lsvi_mf as mf
from lsvi.core.quadrature import binary_grid, gauss_hermite, gaussian_nodes, lsvi_map
from lsvi.core.families import bernoulli, gaussian_fullcov, gaussian_meanfield
from lsvi.core.families.bernoulli import bernoulli_to_natural
from lsvi.core.families.gaussian import (
    fullcov_from_natural,
    fullcov_precision_cholesky,
    fullcov_to_natural,
    meanfield_from_natural,
    meanfield_to_natural,
)


def spd(key, d):
    A = jax.random.normal(key, (d, d))
    return A @ A.T + 0.5 * jnp.eye(d)


def keyed(f):
    return lambda key, X: f(X)


def skewed_logdensity(X):
    """A smooth non-Gaussian log density on R^d: Gaussian × logistic factors (skewed)."""
    return -0.5 * jnp.sum(X**2, axis=1) / 2.0 + jax.nn.log_sigmoid(3.0 * X.sum(1) + 1.0) + 0.3 * jnp.sin(X[:, 0])


# ------------------------------------------------------------------ eq. 16, 42: E[t tᵀ] = I
@pytest.mark.parametrize("d", [1, 2, 3])
def test_whitened_statistics_are_orthonormal(d):
    Z, w = gauss_hermite(d, 4)  # exact for degree ≤ 7; t tᵀ has degree 4
    for t in (fc.whitened_statistic, mf.whitened_statistic):
        T = t(Z)
        np.testing.assert_allclose((T * w[:, None]).T @ T, np.eye(T.shape[1]), atol=1e-12)


# ------------------------------------------------------------------ Lemma D.1 / D.3
@partial(jax.jit, static_argnums=1)
def _lemma_d3_sides(key, d):
    k = jax.random.split(key, 4)
    m = 1 + d + d * (d + 1) // 2
    gamma = jax.random.normal(k[0], (m,))
    mean = jax.random.normal(k[1], (d,))
    L = jnp.linalg.cholesky(spd(k[2], d))
    Z = jax.random.normal(k[3], (7, d))
    beta = fc.gamma_to_eta(gamma[0], gamma[1 : d + 1], fc.gamma_matrix(gamma[d + 1 :], d), mean, L)
    X = mean + jax.scipy.linalg.solve_triangular(L, Z.T, lower=True, trans="T").T
    return fc.whitened_statistic(Z) @ gamma, gaussian_fullcov(d).dot(beta, X)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), d=st.integers(1, 5))
def test_lemma_d3_fullcov_gamma_t_equals_eta_s(seed, d):
    """For any γ, μ and square root C = L⁻ᵀ of Σ: β = map(γ) satisfies γᵀt(z) = βᵀs(μ + Cz)."""
    lhs, rhs = _lemma_d3_sides(jax.random.key(seed), d)
    np.testing.assert_allclose(rhs, lhs, rtol=1e-9, atol=1e-9)


@partial(jax.jit, static_argnums=1)
def _lemma_d1_sides(key, d):
    k = jax.random.split(key, 4)
    gamma = jax.random.normal(k[0], (2 * d + 1,))
    mean = jax.random.normal(k[1], (d,))
    var = jnp.exp(jax.random.normal(k[2], (d,)))
    Z = jax.random.normal(k[3], (7, d))
    beta = mf.gamma_to_eta(gamma[0], gamma[1 : d + 1], gamma[d + 1 :], mean, var)
    return mf.whitened_statistic(Z) @ gamma, gaussian_meanfield(d).dot(beta, mean + jnp.sqrt(var) * Z)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), d=st.integers(1, 6))
def test_lemma_d1_meanfield_gamma_t_equals_eta_s(seed, d):
    lhs, rhs = _lemma_d1_sides(jax.random.key(seed), d)
    np.testing.assert_allclose(rhs, lhs, rtol=1e-9, atol=1e-9)


def test_estimate_gamma_matches_explicit_average():
    d, n = 3, 50
    Z = jax.random.normal(jax.random.key(0), (n, d))
    y = jax.random.normal(jax.random.key(1), (n,)) + 5.0
    g0, g1, Gamma = fc.estimate_gamma(Z, y)
    gamma = fc.whitened_statistic(Z).T @ y / n
    np.testing.assert_allclose(g0, gamma[0])
    np.testing.assert_allclose(g1, gamma[1 : d + 1], atol=1e-12)
    np.testing.assert_allclose(Gamma, fc.gamma_matrix(gamma[d + 1 :], d), atol=1e-12)
    h0, h1, h2 = mf.estimate_gamma(Z, y)
    gm = mf.whitened_statistic(Z).T @ y / n
    np.testing.assert_allclose(jnp.concatenate([jnp.array([h0]), h1, h2]), gm, atol=1e-12)


# ------------------------------------------------------------------ exactness (Section 2.1)
@pytest.mark.parametrize("d", [1, 3])
def test_algorithm1_exact_in_one_step_gaussian(d):
    """π in the family ⇒ φ(η) = η* from any η, with any N ≥ m (the OLS fit is exact)."""
    fam = gaussian_fullcov(d)
    target = fullcov_to_natural(jnp.arange(d) - 1.0, spd(jax.random.key(1), d))
    step = algorithms.build_kernel("alg1", fam, keyed(lambda X: fam.dot(target, X)), fam.num_params)
    for seed in range(3):
        start = fullcov_to_natural(jax.random.normal(jax.random.key(seed), (d,)), spd(jax.random.key(seed + 10), d))
        state, info = step(jax.random.key(seed), kernel.init(start), 1.0)
        np.testing.assert_allclose(state.eta, target, atol=1e-8)
        assert float(info.eps) == 1.0


def test_algorithm1_exact_in_one_step_bernoulli():
    d = 6
    fam = bernoulli(d, eps=1e-6)
    target = bernoulli_to_natural(jnp.linspace(0.1, 0.9, d))
    step = algorithms.build_kernel("alg1", fam, keyed(lambda X: fam.dot(target, X)), 200)
    state, _ = step(jax.random.key(0), kernel.init(bernoulli_to_natural(jnp.full(d, 0.5))), 1.0)
    np.testing.assert_allclose(state.eta, target, atol=1e-8)


def test_algorithms_2_3_exact_with_exact_expectations():
    """With γ = E[t(Z) f(μ + CZ)] computed exactly, the maps (18) and (43) return η* for π in the family."""
    d = 2
    Z, w = gauss_hermite(d, 5)
    mean0, cov0 = jnp.array([0.3, -0.2]), spd(jax.random.key(3), d)
    L = jnp.linalg.cholesky(jnp.linalg.inv(cov0))
    X = mean0 + jax.scipy.linalg.solve_triangular(L, Z.T, lower=True, trans="T").T
    target = fullcov_to_natural(jnp.array([1.0, 2.0]), spd(jax.random.key(4), d))
    y = gaussian_fullcov(d).dot(target, X)
    gamma = fc.whitened_statistic(Z).T @ (w * y)
    eta = fc.gamma_to_eta(gamma[0], gamma[1 : d + 1], fc.gamma_matrix(gamma[d + 1 :], d), mean0, L)
    np.testing.assert_allclose(eta, target, atol=1e-10)

    tmf = meanfield_to_natural(jnp.array([1.0, 2.0]), jnp.array([0.5, 3.0]))
    mean, var = jnp.array([0.0, 1.0]), jnp.array([2.0, 0.3])
    Xm = mean + jnp.sqrt(var) * Z
    gm = mf.whitened_statistic(Z).T @ (w * gaussian_meanfield(d).dot(tmf, Xm))
    np.testing.assert_allclose(mf.gamma_to_eta(gm[0], gm[1 : d + 1], gm[d + 1 :], mean, var), tmf, atol=1e-10)


@pytest.mark.parametrize("d", [1, 2, 3])
def test_algorithm3_agrees_with_algorithm1_ols_in_expectation(d):
    """Non-Gaussian f: the γ → η map (18) equals the exact OLS φ(η) = F⁻¹z on s(X) (Algorithm 1)."""
    fam = gaussian_fullcov(d)
    eta = fullcov_to_natural(0.3 * jnp.ones(d), spd(jax.random.key(d), d) / 2)
    X, w = gaussian_nodes(eta, d, meanfield=False, num_nodes=24 if d < 3 else 16)
    y = skewed_logdensity(X)
    phi = lsvi_map(fam, y, X, w)
    mean, L = fullcov_precision_cholesky(eta, d)
    Z, _ = gauss_hermite(d, 24 if d < 3 else 16)
    gamma = fc.whitened_statistic(Z).T @ (w * y)
    eta3 = fc.gamma_to_eta(gamma[0], gamma[1 : d + 1], fc.gamma_matrix(gamma[d + 1 :], d), mean, L)
    np.testing.assert_allclose(eta3, phi, atol=1e-8)


@pytest.mark.parametrize("d", [1, 3])
def test_algorithm2_agrees_with_algorithm1_ols_in_expectation(d):
    fam = gaussian_meanfield(d)
    eta = meanfield_to_natural(0.2 * jnp.ones(d), jnp.linspace(0.5, 2.0, d))
    X, w = gaussian_nodes(eta, d, meanfield=True, num_nodes=20)
    y = skewed_logdensity(X)
    mean, var = meanfield_from_natural(eta, d)
    Z, _ = gauss_hermite(d, 20)
    g = mf.whitened_statistic(Z).T @ (w * y)
    np.testing.assert_allclose(mf.gamma_to_eta(g[0], g[1 : d + 1], g[d + 1 :], mean, var), lsvi_map(fam, y, X, w), atol=1e-8)


def test_stochastic_algorithms_converge_to_exact_map():
    """The Monte Carlo η̂' of Algorithms 1–3 approaches the exact φ(η) as N grows (error ∝ N^{-1/2})."""
    d = 2
    fam = gaussian_fullcov(d)
    eta = fullcov_to_natural(jnp.zeros(d), jnp.eye(d))
    X, w = gaussian_nodes(eta, d, meanfield=False, num_nodes=24)
    phi = lsvi_map(fam, skewed_logdensity(X), X, w)
    logt = keyed(skewed_logdensity)
    errs = {}
    for name, reg in [("alg1", generic.regression(fam, logt, 0)), ("alg3", fc.regression(fam, logt, 0, centre=True))]:
        errs[name] = []
        for n in (4_000, 256_000):
            reg = (generic.regression(fam, logt, n) if name == "alg1" else fc.regression(fam, logt, n, centre=True))
            e = [jnp.linalg.norm(reg(jax.random.key(s), eta)[2][1:] - phi[1:]) for s in range(4)]
            errs[name].append(float(np.mean(e)))
        # 64× more draws: error should shrink by about 8×; accept ≥ 4×
        assert errs[name][1] < errs[name][0] / 4, errs


# ------------------------------------------------------------------ Theorem 4.1 (19), Theorem D.2 (44)
def test_stein_form_of_the_gaussian_map():
    """For smooth f, φ(η) is N(μ − E[∇²f]⁻¹E[∇f], −E[∇²f]⁻¹) (eq. 19), and the diagonal version (44)."""
    d = 2
    f1 = lambda x: -0.5 * x @ jnp.array([[2.0, 0.5], [0.5, 1.0]]) @ x + jnp.sin(x[0]) + 0.5 * jnp.cos(x[1] - x[0])
    fam = gaussian_fullcov(d)
    eta = fullcov_to_natural(jnp.array([0.5, -0.3]), jnp.array([[0.8, 0.2], [0.2, 0.5]]))
    X, w = gaussian_nodes(eta, d, meanfield=False, num_nodes=30)
    mean, _ = fullcov_from_natural(eta, d)
    grad = jnp.einsum("k,kd->d", w, jax.vmap(jax.grad(f1))(X))
    hess = jnp.einsum("k,kde->de", w, jax.vmap(jax.hessian(f1))(X))
    m_new, c_new = fullcov_from_natural(lsvi_map(fam, jax.vmap(f1)(X), X, w), d)
    np.testing.assert_allclose(c_new, -jnp.linalg.inv(hess), atol=1e-9)
    np.testing.assert_allclose(m_new, mean - jnp.linalg.solve(hess, grad), atol=1e-9)

    mfam = gaussian_meanfield(d)
    eta_m = meanfield_to_natural(jnp.array([0.5, -0.3]), jnp.array([0.8, 0.5]))
    Xm, wm = gaussian_nodes(eta_m, d, meanfield=True, num_nodes=30)
    mean_m, _ = meanfield_from_natural(eta_m, d)
    gm = jnp.einsum("k,kd->d", wm, jax.vmap(jax.grad(f1))(Xm))
    hd = jnp.einsum("k,kd->d", wm, jax.vmap(lambda x: jnp.diag(jax.hessian(f1)(x)))(Xm))
    mm, vm = meanfield_from_natural(lsvi_map(mfam, jax.vmap(f1)(Xm), Xm, wm), d)
    np.testing.assert_allclose(vm, -1.0 / hd, atol=1e-9)
    np.testing.assert_allclose(mm, mean_m - gm / hd, atol=1e-9)


# ------------------------------------------------------------------ Algorithm 4 and eq. (14)
def test_tempered_residuals_scale_with_eps_squared():
    """Eq. (14): regressing εf + (1−ε)ηᵀs on s gives εφ̂ + (1−ε)η with residuals ε v_i."""
    d = 2
    fam = gaussian_fullcov(d)
    eta = fullcov_to_natural(jnp.zeros(d), jnp.eye(d))
    X = fam.sample(jax.random.key(0), eta, 500)
    S, f = fam.statistic(X), skewed_logdensity(X)
    phi = generic.ols(S, f)
    v = f - S @ phi
    for eps in (0.1, 0.5, 1.0):
        tempered = eps * f + (1 - eps) * S @ eta
        fit = generic.ols(S, tempered)
        np.testing.assert_allclose(fit, eps * phi + (1 - eps) * eta, atol=1e-9)
        np.testing.assert_allclose(tempered - S @ fit, eps * v, atol=1e-9)


def test_algorithm4_backtracks_into_V_and_caps_the_residual():
    d = 1
    fam = gaussian_fullcov(d)
    eta = fullcov_to_natural(jnp.zeros(1), jnp.eye(1))
    bad = eta.at[2].set(3.0)  # positive quadratic coefficient: outside V
    X = fam.sample(jax.random.key(0), eta, 100)
    y = 10.0 * jnp.sin(3 * X[:, 0]) - X[:, 0] ** 2
    eps, info = step_size.control(1.0, jnp.inf, fam, eta, bad, X, y)
    assert info.accepted and int(info.num_halvings) >= 1
    assert fam.is_valid(eps * bad + (1 - eps) * eta)
    # the cap, against Algorithm 4 recomputed independently with numpy: backtracking from the
    # d = 1 validity condition (quadratic coefficient < 0), v̂² the variance of the residuals
    # against the backtracked iterate, then ε = min(ε_bt, u / v̂) when v̂ ≥ u
    e, b, x, yy = np.asarray(eta), np.asarray(bad), np.asarray(X[:, 0]), np.asarray(y)
    eps_bt = 1.0
    while not eps_bt * b[2] + (1 - eps_bt) * e[2] < 0:
        eps_bt /= 2
    assert float(eps) == eps_bt
    v_hat2 = np.var(yy - np.column_stack([np.ones_like(x), x, x**2]) @ (eps_bt * b + (1 - eps_bt) * e))
    for u2 in (0.5, 2.0 * v_hat2):  # capped, not capped
        eps_c, _ = step_size.control(1.0, u2, fam, eta, bad, X, y)
        expected = min(eps_bt, np.sqrt(u2 / v_hat2)) if v_hat2 >= u2 else eps_bt
        assert float(eps_c) == pytest.approx(expected, rel=1e-12)
    assert np.sqrt(0.5 / v_hat2) < eps_bt  # the first u² does cap the step


def test_algorithm4_full_step_residual_bound():
    """With ε' = 1 (no backtracking), the capped step's tempered residuals have sd ≤ u (eq. 14)."""
    d = 2
    fam = gaussian_fullcov(d)
    eta = fullcov_to_natural(jnp.zeros(d), 0.3 * jnp.eye(d))
    X = fam.sample(jax.random.key(1), eta, 2000)
    S, f = fam.statistic(X), skewed_logdensity(X) * 20.0
    phi = generic.ols(S, f)
    for u2 in (0.01, 1.0):
        eps, info = step_size.control(1.0, u2, fam, eta, phi, X, f)
        new = eps * phi + (1 - eps) * eta
        tempered = eps * f + (1 - eps) * S @ eta
        assert np.std(tempered - S @ new) <= np.sqrt(u2) + 1e-9


def test_invalid_target_values_reject_the_step():
    d = 1
    fam = gaussian_fullcov(d)
    step = algorithms.build_kernel("alg1", fam, keyed(lambda X: jnp.where(X[:, 0] > 0, jnp.nan, -X[:, 0] ** 2)), 50)
    eta = fullcov_to_natural(jnp.zeros(1), jnp.eye(1))
    state, info = step(jax.random.key(0), kernel.init(eta), 1.0)
    assert not bool(info.accepted)
    np.testing.assert_array_equal(state.eta, eta)


# ------------------------------------------------------------------ schedules, run, determinism
def test_table3_schedules():
    t = jnp.arange(3)
    s2 = step_size.table3(2)
    np.testing.assert_allclose(s2.eps(t), [1.0, 0.5, 1 / 3])
    assert step_size.table3(1).u2 == 10.0 and np.isinf(step_size.table3(5).u2)
    np.testing.assert_allclose(step_size.table3(6).eps(t), 1e-3)
    np.testing.assert_allclose(step_size.linear(2.0, 0.5).eps(t), [0.5, 1 / 2.5, 1 / 3])
    with pytest.raises(ValueError):
        step_size.table3(7)


def test_run_is_deterministic_and_converges_on_gaussian_target():
    d = 3
    target = fullcov_to_natural(jnp.array([1.0, -1.0, 0.5]), spd(jax.random.key(2), d))
    fam = gaussian_fullcov(d)
    logt = keyed(lambda X: fam.dot(target, X))
    step = algorithms.build_kernel("alg3", gaussian_fullcov(d), logt, 1000, centre=True)
    sched = step_size.table3(2)
    s0 = kernel.init(fullcov_to_natural(jnp.zeros(d), jnp.eye(d)))
    _, trace1, info1 = kernel.run_schedule(jax.random.key(5), step, s0, sched, 25)
    _, trace2, _ = kernel.run_schedule(jax.random.key(5), step, s0, sched, 25)
    np.testing.assert_array_equal(trace1, trace2)
    assert trace1.shape == (26, fam.num_params) and info1.eps.shape == (25,)
    m, c = fullcov_from_natural(trace1[-1], d)
    m_star, c_star = fullcov_from_natural(target, d)
    np.testing.assert_allclose(m, m_star, atol=0.1)
    np.testing.assert_allclose(c, c_star, atol=0.15 * float(jnp.abs(c_star).max()))
    _, traces, infos = kernel.run_repetitions(jax.random.key(6), step, s0, sched, 25, 3)
    assert traces.shape == (3, 26, fam.num_params)
    assert not np.allclose(traces[0, -1], traces[1, -1])


def quartic_skewed_logdensity(X):
    """`skewed_logdensity` with lighter (quartic) tails: small-N regressions then propose steps that Algorithm 4
    must halve."""
    return skewed_logdensity(X) - 0.25 * jnp.sum(X**4, axis=1)


@pytest.mark.parametrize("alg, fam_name, num_samples", [("alg1", "fullcov", 12), ("alg2", "meanfield", 30),
                                                        ("alg3", "fullcov", 30)])
def test_batched_repetitions_equal_the_sequential_runs_seed_by_seed(alg, fam_name, num_samples):
    """`kernel.run_repetitions` (one vmapped, compiled program over R keys) gives, for each key, the trace of
    `kernel.run_sequential` (one compiled run per key, the timed path of Figs 1, 4, 5, 7): batching changes where
    the runs execute, never what a seed computes. Small N on a skewed, light-tailed target from a wide start, with
    schedule 1 (ε = 1, u² = 10): Algorithm 4 halves steps, and one repetition's branch must not leak into another's."""
    d, reps, steps = 2, 4, 12
    fam = gaussian_fullcov(d) if fam_name == "fullcov" else gaussian_meanfield(d)
    eta0 = (fullcov_to_natural(jnp.zeros(d), 9.0 * jnp.eye(d)) if fam_name == "fullcov"
            else meanfield_to_natural(jnp.zeros(d), 9.0 * jnp.ones(d)))
    step = algorithms.build_kernel(alg, fam, keyed(quartic_skewed_logdensity), num_samples)
    sched, s0 = step_size.table3(1), kernel.init(eta0)
    key = jax.random.key(11)
    _, batched, binfo = kernel.run_repetitions(key, step, s0, sched, steps, reps)
    seq = kernel.run_sequential(jax.random.split(key, reps), step, s0, sched, steps)
    assert batched.shape == seq.etas.shape == (reps, steps + 1, fam.num_params)
    np.testing.assert_allclose(np.asarray(batched), seq.etas, rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(np.asarray(binfo.accepted), seq.infos.accepted)
    np.testing.assert_array_equal(np.asarray(binfo.num_halvings), seq.infos.num_halvings)
    assert seq.infos.num_halvings.sum() > 0  # the backtracking branch ran
    assert not np.allclose(seq.etas[0, -1], seq.etas[1, -1])  # the repetitions differ from one another
