"""Unit tests of lsvi.exact.rates (helpers of notebooks 12–13: Theorem 3.4, Theorems 4.1 / D.2)."""
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from lsvi.core import kernel
from lsvi.core import quadrature as exact
from lsvi.core.algorithms import lsvi_generic as generic
from lsvi.exact import rates
from lsvi.core.families import gaussian_fullcov, gaussian_meanfield
from lsvi.core.families.gaussian import fullcov_from_natural, fullcov_to_natural, meanfield_to_natural
from lsvi.core.step_size import constant

FAM1 = gaussian_fullcov(1)


# ------------------------------------------------------------------ Theorem 3.4 weights
@pytest.mark.parametrize("factor, expected", [(2.0, "decreasing"), (1.0, "constant"), (0.5, "increasing")])
def test_theorem_weights_regimes(factor, expected):
    mu, L = 0.3, 1.5
    eps = rates.linear_steps(L, factor * mu, 2000)
    c = rates.theorem_weights(eps, mu)
    assert c[0] == 1.0
    # the recursion of Theorem 3.4
    np.testing.assert_allclose(c[1:], c[:-1] / eps[:-1] / (1.0 / eps[1:] - mu), rtol=1e-12)
    assert rates.monotonicity(c) == expected
    C = rates.cumulative_weights(c)
    np.testing.assert_allclose(C, np.cumsum(c))
    # C_k ≍ k^{μ/α}: the descent term decays with exponent μ/α
    bound = rates.descent_bound(eps[0], mu, 1.0, C)
    k = np.arange(1, 2001)
    slope = rates.loglog_fit(k[1000:], bound[1000:]).slope
    assert abs(slope + 1.0 / factor) < 0.05
    assert rates.rate_exponents(factor * mu, mu) == pytest.approx((1 / factor, 2 / factor))


def test_theorem_weights_reject_large_steps():
    with pytest.raises(ValueError):
        rates.theorem_weights(np.array([1.0, 1.0]), 1.5)


def test_weighted_average_constant_weights_is_running_mean():
    om = np.arange(12.0).reshape(2, 6, 1) * np.ones((1, 1, 3))  # (batch, K + 1, m)
    bar = np.asarray(rates.weighted_average(om, np.ones(5)))
    assert bar.shape == (2, 5, 3)
    expected = np.cumsum(om[:, 1:], axis=1) / np.arange(1, 6)[None, :, None]  # ω̂_0 gets no weight
    np.testing.assert_allclose(bar, expected)


# ------------------------------------------------------------------ exact objective and moments
def test_moments_roundtrip_and_definition():
    fam = gaussian_fullcov(2)

    @jax.jit
    def go(mean, cov):
        eta = fullcov_to_natural(mean, cov).at[0].add(0.7)
        om = rates.natural_to_moments(fam, eta)
        X, w = rates.nodes(fam, eta, 6)
        return eta, om, rates.moments_to_natural(fam, om), math.exp(0.7) * (w @ fam.statistic(X))

    eta, om, back, direct = go(jnp.array([0.3, -1.0]), jnp.array([[1.0, 0.4], [0.4, 0.7]]))
    np.testing.assert_allclose(back, eta, atol=1e-12)
    np.testing.assert_allclose(om, direct, rtol=1e-12)  # ω = Z E[s]


def test_objective_vanishes_in_family_and_matches_ukl_between():
    eta_pi = fullcov_to_natural(jnp.array([0.5]), jnp.array([[2.0]])).at[0].add(0.3)
    f = lambda X: FAM1.dot(eta_pi, X)
    log_z = float(rates.log_mass(FAM1, eta_pi))
    assert abs(float(rates.objective(FAM1, f, eta_pi, log_z_target=log_z))) < 1e-12
    eta = fullcov_to_natural(jnp.array([-0.5]), jnp.array([[0.5]]))
    np.testing.assert_allclose(rates.objective(FAM1, f, eta, log_z_target=log_z), rates.ukl_between(FAM1, eta, eta_pi),
                               rtol=1e-12)
    # normalised KL ≥ 0 and = 0 at q = π̄
    assert float(rates.kl(FAM1, f, eta, log_z)) > 0
    assert abs(float(rates.kl(FAM1, f, eta_pi, log_z))) < 1e-12


def test_loggamma_fixed_point_closed_form_and_curvature():
    opt = rates.loggamma_optimum(1.0)
    f = rates.as_f(rates.loggamma_target(1.0))
    eta0 = fullcov_to_natural(jnp.array([0.0]), jnp.array([[1.0]]))
    eta_star, res = rates.fixed_point(FAM1, f, eta0, eps=0.4, num_iter=300)
    assert float(res) < 1e-10
    mean, cov = fullcov_from_natural(eta_star, 1)
    assert float(mean[0]) == pytest.approx(opt.mean, abs=1e-10)
    assert float(cov[0, 0]) == pytest.approx(opt.var, abs=1e-10)
    l_star = float(rates.objective(FAM1, f, eta_star, log_z_target=opt.log_z_target))
    assert l_star == pytest.approx(opt.ukl, abs=1e-10)
    assert float(rates.kl(FAM1, f, eta_star, opt.log_z_target)) == pytest.approx(opt.kl, abs=1e-10)
    J = rates.map_jacobian(FAM1, f, eta_star)
    np.testing.assert_allclose(rates.relative_curvature(J), [0.5, 1.0, 2.0], atol=1e-8)


def test_sin_target_quadrature_and_normaliser():
    f = rates.as_f(rates.sin_target(1.0, 2.0))
    eta = fullcov_to_natural(jnp.array([-1.0]), jnp.array([[4.0]]))
    X, w = rates.nodes(FAM1, eta, 40)
    assert abs(float(w @ f(X)) - float(rates.sin_target_mean(1.0, 2.0, -1.0, 4.0))) < 1e-13
    assert rates.log_normaliser_1d(lambda X: -0.5 * X[:, 0] ** 2) == pytest.approx(0.5 * math.log(2 * math.pi), abs=1e-11)


def test_contraction_mu_recovers_rate():
    t = np.arange(40)
    assert rates.contraction_mu(t, 3.0 * (1 - 0.5 * 0.3) ** (2 * t), 0.5)[0] == pytest.approx(0.3, rel=1e-10)


def test_stationary_floor_constant_scalar():
    H, J, V, eps = 2.0, 0.4, 3.0, 0.5
    a = 1 - eps * (1 - J)
    expected = 0.5 * H * eps**2 * V / (1 - a**2)
    assert rates.stationary_floor_constant([[H]], [[J]], [[V]], eps) == pytest.approx(expected)


# ------------------------------------------------------------------ fits
def test_loglog_fit_exact_and_noisy():
    x = np.array([10.0, 100.0, 1000.0, 10000.0])
    fit = rates.loglog_fit(x, 3.0 * x**-1.0)
    assert fit.slope == pytest.approx(-1.0) and fit.intercept == pytest.approx(math.log(3.0))
    rng = np.random.default_rng(0)
    y = 3.0 * x**-1.0 * np.exp(0.05 * rng.normal(size=4))
    fit = rates.loglog_fit(x, y, sigma=np.full(4, 0.05))
    assert fit.lo < -1.0 < fit.hi
    Y = (2.0 / x) * rng.exponential(size=(400, 4))  # repetitions with mean 2/x
    boot = rates.bootstrap_loglog_slope(x, Y, num_boot=300, seed=1)
    assert boot.lo < boot.slope < boot.hi and boot.lo < -1.0 < boot.hi


# ------------------------------------------------------------------ stochastic runs and estimators
def test_run_schedules_uses_the_keys_of_run_and_common_random_numbers():
    log_target = rates.sin_target()
    eta0 = fullcov_to_natural(jnp.array([-1.0]), jnp.array([[4.0]]))
    reg = generic.regression(FAM1, log_target, 20)
    key = jax.random.PRNGKey(3)
    ours = rates.run_schedules(key, FAM1, reg, eta0, np.full((2, 4), 0.6), 2)
    step = kernel.build_kernel(FAM1, reg)
    rep_keys = jax.random.split(key, 2)
    for r in range(2):
        _, trace, _ = kernel.run_schedule(rep_keys[r], step, kernel.init(eta0), constant(0.6), 4)
        np.testing.assert_allclose(ours[0, r], trace, rtol=1e-12)
        np.testing.assert_allclose(ours[1, r], trace, rtol=1e-12)  # common random numbers across rows


def test_trajectory_event_recomputes_the_fisher_each_step_used():
    """With ε = 1 the iterate is the regression's η' = F̂⁻¹ẑ (when valid): the F̂ that `trajectory_event`
    recomputes from the run's keys must reproduce it, and ẑ must come from other draws than F̂."""
    log_target = rates.sin_target()
    eta0 = fullcov_to_natural(jnp.array([0.0]), jnp.array([[1.0]]))
    key, n, T = jax.random.PRNGKey(5), 200, 3
    reg = rates.two_sample_regression(FAM1, log_target, n)
    etas = np.asarray(rates.run_schedules(key, FAM1, reg, eta0, np.ones((1, T)), 2))[0]  # (2, T + 1, m)
    rep_keys = jax.random.split(key, 2)
    for r in range(2):
        for t, k in enumerate(jax.random.split(rep_keys[r], T)):
            X2, y2, F_hat, z_hat = rates.two_sample_moments(FAM1, log_target, k, etas[r, t], n)
            np.testing.assert_allclose(etas[r, t + 1], np.linalg.solve(F_hat, z_hat), rtol=1e-9)
            S2 = FAM1.statistic(X2)
            assert not np.allclose(F_hat, S2.T @ S2 / n)  # two independent sets
    event = rates.trajectory_event(key, FAM1, log_target, etas, n)
    assert event.shape == (2, T) and event.dtype == bool
    # the event is decided on these F̂: large N makes it certain, N = m + 1 draws make it fail often
    big = np.asarray(rates.run_schedules(key, FAM1, rates.two_sample_regression(FAM1, log_target, 20000), eta0,
                                         np.full((1, T), 0.5), 4))[0]
    assert rates.trajectory_event(key, FAM1, log_target, big, 20000).all()
    tiny = np.repeat(np.asarray(eta0)[None, None], 200, axis=0).repeat(T + 1, axis=1)  # (200, T + 1, m) at q_0
    assert rates.trajectory_event(key, FAM1, log_target, tiny, 4).mean() < 0.5


def test_estimator_stats_unbiased_whitened_covariance():
    # Algorithm 3's η̂' is linear in γ̂: unbiased, with covariance exactly V/N; the OLS is biased at small N
    f1 = rates.as_f(rates.sin_target())
    eta1 = fullcov_to_natural(jnp.array([0.4]), jnp.array([[0.5]]))
    phi = rates.exact_map(FAM1, f1, eta1)
    st = rates.estimator_stats(jax.random.PRNGKey(1), FAM1, f1, eta1, phi, 20, 3000)
    assert np.all(np.abs(st.wht_bias / st.wht_se) < 4.5)
    assert np.max(np.abs(st.ols_bias / st.ols_se)) > 5  # Lemma D.9: O(1/N) bias, clearly visible at N = 20
    assert st.dist > 0
    V = np.asarray(rates.alg3_asymptotic_cov(FAM1, f1, eta1))
    np.testing.assert_allclose(st.wht_se * math.sqrt(3000 * 20), np.sqrt(np.diag(V)), rtol=0.08)


# ------------------------------------------------------------------ Theorem 4.1 / D.2
def test_quadrature_map_pair_identity():
    f_single, target = rates.quadratic_sin_target(jnp.eye(2), jnp.array([0.7, -0.4]), 0.2)
    f = rates.as_f(target)
    for fam, eta in ((gaussian_fullcov(2), fullcov_to_natural(jnp.array([0.1, 0.3]), jnp.array([[1.0, 0.4], [0.4, 0.6]]))),
                     (gaussian_meanfield(2), meanfield_to_natural(jnp.array([0.1, 0.3]), jnp.array([1.0, 0.6])))):
        a, b = rates.quadrature_map_pair(fam, f, eta, 8)
        np.testing.assert_allclose(a, b, atol=1e-11)


def test_eq18_printed_vs_corrected():
    f = rates.as_f(rates.quadratic_sin_target(jnp.eye(2), jnp.array([0.7, -0.4]), 0.2)[1])
    Z, w = exact.gauss_hermite(2, 8)
    mean = jnp.array([0.1, 0.3])
    for cov, printed_ok in ((jnp.array([[1.0, 0.4], [0.4, 0.6]]), False), (jnp.diag(jnp.array([1.0, 0.6])), True)):
        X = mean + Z @ jnp.linalg.cholesky(cov).T
        ref = exact.lsvi_map(gaussian_fullcov(2), f(X), X, w)
        v = rates.fullcov_map_variants(Z, w, f(X), mean, cov)
        np.testing.assert_allclose(v["corrected"], ref, atol=1e-11)
        assert (float(jnp.max(jnp.abs(v["printed"] - ref))) < 1e-11) == printed_ok


def test_stein_forms_exact_for_polynomial_target():
    # LSVI map (OLS on quadrature nodes) = eq. (19) and eq. (44); exact for a polynomial f
    f_single = lambda x: -0.5 * (2.0 * x[0] ** 2 + x[0] * x[1] + x[1] ** 2) + 0.3 * x[0] - 0.1 * x[0] ** 3 * x[1] ** 0
    errs = rates.stein_discrepancy(f_single, jnp.array([0.2, 0.1]), jnp.array([[0.3, 0.1], [0.1, 0.2]]), 6)
    assert set(errs) == {"fc mean", "fc cov", "mf mean", "mf var"}
    assert max(errs.values()) < 1e-10


def test_time_call_calls_warmup_plus_repeats():
    calls = []

    def fn(x):
        calls.append(1)
        return x + 1

    t = rates.median_time(fn, jnp.ones(3), repeats=4, warmup=2)
    assert len(calls) == 6 and isinstance(t, float) and np.isfinite(t)
    calls.clear()
    t_min = rates.time_call(fn, jnp.ones(3), repeats=3, warmup=1)
    assert len(calls) == 4 and np.isfinite(t_min)
    with pytest.raises(ValueError):
        rates.time_call(fn, jnp.ones(3), statistic="mean")
    calls.clear()
    other = []
    t = rates.interleaved_times([(fn, (jnp.ones(2),)), (lambda x: other.append(1) or x, (jnp.ones(2),))], repeats=3, warmup=2)
    assert t.shape == (2,) and np.all(np.isfinite(t)) and len(calls) == len(other) == 5
    with pytest.raises(ValueError):
        rates.step_time("alg1", 4, 10)  # Algorithm 1 needs N > m


def test_regime_fit_excludes_fixed_cost_and_needs_four_sizes():
    n = 2.0 ** np.arange(1, 10)  # 2 … 512
    t0 = 1e-3
    times = t0 + 1e-6 * n**3  # fixed cost + cubic work
    r = rates.regime_fit(n, times, reference_time=t0, factor=100.0)
    np.testing.assert_array_equal(r.in_regime, n >= 64)  # time ≥ 100 t0
    assert r.assessable and abs(r.fit.slope - 3.0) < 0.02  # fixed cost ≤ 1 % in the regime: the order shows
    assert rates.loglog_fit(n, times).slope < 2.5  # fitted over every size, the fixed cost flattens the slope
    few = rates.regime_fit(n[:7], times[:7], reference_time=t0, factor=100.0)  # only n = 64, 128 in the regime
    assert not few.assessable and few.fit is None and few.in_regime.sum() == 2


def test_three_estimates_in_family_and_exact_fim_is_algorithm3():
    fam = gaussian_fullcov(2)
    eta = fullcov_to_natural(jnp.array([0.3, -0.5]), jnp.array([[1.0, 0.3], [0.3, 0.6]]))
    eta_pi = fullcov_to_natural(jnp.array([1.0, 0.0]), jnp.array([[0.5, -0.1], [-0.1, 0.8]])).at[0].add(0.4)
    f_in = lambda X: fam.dot(eta_pi, X)
    Xq, wq = rates.nodes(fam, eta, 6)
    F, _ = exact.fisher(fam, Xq, wq)
    k1, k2 = jax.random.split(jax.random.PRNGKey(0))
    X, X2 = fam.sample(k1, eta, 200), fam.sample(k2, eta, 200)
    ols, two, exf = rates.three_estimates(fam, f_in, X, X2, F)
    # π in the family: the OLS interpolates (Section 2.1); the other two do not
    assert float(jnp.max(jnp.abs(ols - eta_pi))) < 1e-9
    assert float(jnp.max(jnp.abs(two - eta_pi))) > 1e-3 and float(jnp.max(jnp.abs(exf - eta_pi))) > 1e-3
    # F⁻¹ẑ with the exact F is Algorithm 3's whitened estimate (eq. 20 + eq. 18) on the same draws
    f = rates.as_f(rates.quadratic_sin_target(jnp.eye(2), jnp.array([0.7, -0.4]), 0.2)[1])
    Z = jax.random.normal(k1, (200, 2))
    X = fam.sample(k1, eta, 200)  # the same Z: family.sample draws normal(k1, (N, d)) and maps it like paired_estimates
    _, whitened = rates.paired_estimates(fam, f, eta, Z)
    np.testing.assert_allclose(rates.three_estimates(fam, f, X, X, F)[2], whitened, rtol=1e-9, atol=1e-9)


def test_estimator_errors_and_ratio_of_means():
    f = rates.as_f(rates.sin_target())
    eta = fullcov_to_natural(jnp.array([0.4]), jnp.array([[0.5]]))
    phi = rates.exact_map(FAM1, f, eta)
    e = rates.estimator_errors(jax.random.PRNGKey(2), FAM1, f, eta, phi, 50, 300)
    assert e.ols.shape == e.two_sample.shape == e.exact_fim.shape == (300,)
    assert np.all(e.ols >= 0) and np.all(np.isfinite(e.two_sample))
    den = np.random.default_rng(0).exponential(size=500)
    r, lo, hi = rates.ratio_of_means(2.0 * den, den, num_boot=200)
    assert r == pytest.approx(2.0) and lo == pytest.approx(2.0) and hi == pytest.approx(2.0)  # paired resampling
    r, lo, hi = rates.ratio_of_means(den[::-1].copy(), den, num_boot=500)
    assert lo < 1.0 < hi  # same distribution, unpaired values: the interval covers 1
    with pytest.raises(ValueError):
        rates.ratio_of_means(den, den[:10])


def test_last_decade_slope():
    k = np.arange(1, 10001)
    assert rates.last_decade_slope(k, 3.0 * k**-2.0) == pytest.approx(-2.0)
    y = np.where(k < 50, k**-1.0, 0.0)  # at the floor after k = 50: the last decade above it is k ∈ [5, 49]
    assert rates.last_decade_slope(k, y, floor=1e-12) == pytest.approx(-1.0)
    assert np.isnan(rates.last_decade_slope(k, np.where(k < 5, 1.0 / k, 0.0), floor=1e-12))


def test_cost_call_kinds():
    for kind in ("alg1", "alg2", "alg3", "map alg1", "map alg3", "normals"):
        fn, args = rates.cost_call(kind, 2, 200)
        out = jax.block_until_ready(fn(*args))
        assert out is not None
    fn, args = rates.cost_call("map alg1", 3, 0)
    assert args[0].shape == (10, 10)  # m = 1 + 3 + 6: the m × m solve
    fn, args = rates.cost_call("normals", 5, 7)
    assert fn(*args).shape == (7, 5)
    with pytest.raises(ValueError):
        rates.cost_call("alg4", 2, 200)
