"""Lemmas D.4, D.6, D.7, D.10 and the μ = 0 rate (notebook 12): the numerical functions of
`lsvi.papers.lsvi.checks.stochastic_lemmas` on small closed-form cases, and the claim builders of
`lsvi.papers.lsvi.lemmas_claims` driven to PASS, FAIL and NOT ASSESSABLE with synthetic inputs."""
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy import stats

from lsvi.exact import rates
from lsvi.papers.lsvi.checks import stochastic_lemmas as sl
from lsvi.exact.statistics import SlopeFit
from lsvi.core.families import bernoulli, gaussian_fullcov
from lsvi.core.families.bernoulli import bernoulli_to_natural
from lsvi.core.families.gaussian import fullcov_to_natural
from lsvi.papers.lsvi import lemmas_claims as lc
from lsvi.pipeline.claims import KINDS, claim


def status(row: dict) -> str:
    assert row["kind"] in KINDS
    return claim(**row).status


def fit(slope, lo, hi):
    return SlopeFit(slope, 0.0, 0.01, lo, hi)


# ------------------------------------------------------------------ Lemma D.6: Legendre transform, MD step
@pytest.mark.parametrize("d", [1, 2])
def test_legendre_is_the_conjugate_of_Z_and_its_gradient_the_mirror_map(d):
    fam = gaussian_fullcov(d)
    mean = jnp.linspace(-0.5, 0.7, d)
    A = jnp.array([[1.3, 0.4], [0.4, 0.8]])[:d, :d]
    eta = fullcov_to_natural(mean, A).at[0].add(0.3)  # mass e^0.3
    omega = rates.natural_to_moments(fam, eta)
    z_eta = math.exp(float(rates.log_mass(fam, eta)))
    assert float(sl.legendre(omega, d)) == pytest.approx(float(eta @ omega) - z_eta, rel=1e-12)
    np.testing.assert_allclose(sl.mirror_map(omega, d), eta, rtol=1e-10, atol=1e-12)


def test_bregman_of_the_conjugate_is_the_ukl():
    fam = gaussian_fullcov(1)
    ea = fullcov_to_natural(jnp.array([0.3]), jnp.array([[0.7]]))
    eb = fullcov_to_natural(jnp.array([-1.0]), jnp.array([[2.0]])).at[0].add(0.5)
    wa, wb = rates.natural_to_moments(fam, ea), rates.natural_to_moments(fam, eb)
    assert float(sl.bregman(wa, wb, 1)) == pytest.approx(float(rates.ukl_between(fam, ea, eb)), rel=1e-10)


@pytest.mark.parametrize("d", [1, 2])
def test_md_step_solves_the_first_order_condition(d):
    """argmin of eq. (74): ∇Z*(ω_new) = η_t − εg, i.e. ω_new = ω(η_t − εg) (eq. 75), by the closed form."""
    fam = gaussian_fullcov(d)
    eta_t = fullcov_to_natural(jnp.zeros(d), 1.5 * jnp.eye(d))
    g = 0.2 * jnp.arange(1.0, fam.num_params + 1) / fam.num_params
    eps = 0.7
    step = sl.md_step(rates.natural_to_moments(fam, eta_t), g, eps, d)
    np.testing.assert_allclose(step.omega, rates.natural_to_moments(fam, eta_t - eps * g), rtol=1e-10)
    assert step.residual < 1e-12


def test_stochastic_gradient_is_eta_minus_the_least_squares_fit():
    S = np.c_[np.ones(6), np.arange(6.0), np.arange(6.0) ** 2]
    beta = np.array([0.5, -1.0, 0.25])
    eta = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(sl.stochastic_gradient(eta, S, S @ beta), eta - beta, atol=1e-12)


def test_md_ngd_equivalence_agrees_and_the_euclidean_step_does_not():
    fam = gaussian_fullcov(1)
    f = rates.as_f(rates.sin_target(1.0, 2.0))
    eta0 = fullcov_to_natural(jnp.array([-1.0]), jnp.array([[4.0]]))
    eq = sl.md_ngd_equivalence(jax.random.PRNGKey(3), fam, f, eta0, 0.8, 40, 3, 1)
    assert eq.max_rel_diff < 1e-10 and eq.invalid == 0
    assert eq.euclidean_rel_diff > 1e-3  # the check can tell a wrong mirror map
    assert eq.omega_lsvi.shape == eq.omega_md.shape == (1, 4, 3)


# ------------------------------------------------------------------ Lemmas D.7 and D.10
def test_sigma2_estimate_is_the_cross_covariance_and_its_printed_sign_is_opposite():
    rng = np.random.default_rng(0)
    beta = rng.normal(size=(500, 3))
    om = 2.0 * beta + 0.1 * rng.normal(size=(500, 3))
    ok = np.ones(500, bool)
    draws = sl.SigmaDraws(beta, om, ok, ok)
    s = sl.sigma2_estimate(draws, 0.5)
    expected = np.trace(np.cov(beta.T, om.T)[:3, 3:]) / 0.5
    assert s.value == pytest.approx(expected, rel=1e-12) and s.printed == -s.value and s.kept == 500
    # masks: the event and validity select repetitions
    ev = np.arange(500) < 300
    s2 = sl.sigma2_estimate(sl.SigmaDraws(beta, om, ev, ok), 0.5, condition_on_event=True)
    assert s2.kept == 300 and s2.fraction == pytest.approx(0.6)
    assert sl.sigma2_estimate(sl.SigmaDraws(beta, om, ev, ok), 0.5, condition_on_event=False).kept == 500


def test_sigma2_vanishes_when_the_target_is_in_the_family():
    """f = −x²/2: the OLS is exact for any N ≥ m, so F̂⁻¹ẑ has no noise and σ² = 0 (and so does the prediction)."""
    fam = gaussian_fullcov(1)
    f = lambda X: -0.5 * X[:, 0] ** 2
    eta = fullcov_to_natural(jnp.array([0.4]), jnp.array([[0.6]]))
    draws = sl.sigma2_draws(jax.random.PRNGKey(0), fam, f, eta, 0.5, 50, 64)
    s = sl.sigma2_estimate(draws, 0.5, condition_on_event=False)
    assert abs(s.value) < 1e-16 and s.kept == 64
    assert abs(sl.sigma2_prediction(fam, f, eta)) < 1e-16


def test_ols_bias_leading_closed_form_and_monte_carlo():
    """f = x³ under N(0, 1), s = (1, x, x²): φ = (0, 3, 0), r = x³ − 3x, sᵀF⁻¹s = 3/2 + x⁴/2 and
    b = −F⁻¹E[s(sᵀF⁻¹s)r] = (0, −30, 0): E[β̂₁] ≈ 3 − 30/N."""
    fam = gaussian_fullcov(1)
    f = lambda X: X[:, 0] ** 3
    eta = fullcov_to_natural(jnp.zeros(1), jnp.eye(1))
    np.testing.assert_allclose(sl.ols_bias_leading(fam, f, eta), [0.0, -30.0, 0.0], atol=1e-9)
    assert sl.ols_bias_leading(fam, f, jnp.stack([eta, eta])).shape == (2, 3)
    N, R = 200, 5000
    X = jax.random.normal(jax.random.PRNGKey(1), (R, N, 1))
    beta1 = jax.vmap(lambda x: jnp.linalg.solve(fam.statistic(x).T @ fam.statistic(x), fam.statistic(x).T @ f(x))[1])(X)
    mc, se = float(beta1.mean()) - 3.0, float(beta1.std()) / math.sqrt(R)
    assert abs(mc - (-30.0 / N)) < 4 * se + 0.15 * 30.0 / N


def test_d7_sides_on_runs_sitting_at_the_optimum():
    """Iterates equal to η* from t = 1 on: the left side and the bias term vanish, the right side is the descent term
    plus σ²Σc_tε_t/C_k, both closed forms of the weights."""
    fam = gaussian_fullcov(1)
    f = rates.as_f(rates.sin_target(1.0, 2.0))
    eta0 = fullcov_to_natural(jnp.array([-1.0]), jnp.array([[4.0]]))
    eta_s, _ = rates.fixed_point(fam, f, eta0, 0.5, 300, 40)
    l_star = float(rates.objective(fam, f, eta_s, 40))
    T, eps, mu, d0, s2 = 6, 0.8, 0.3, 2.0, 0.01
    tr = np.broadcast_to(np.asarray(eta_s), (3, T + 1, 3)).copy()
    tr[:, 0] = np.asarray(eta0)
    sd = sl.d7_sides(fam, f, tr, eta_s, l_star, np.full(T, eps), mu, d0, s2, 0.5 * s2, 2 * s2, 100, [2, 6])
    c = rates.theorem_weights(np.full(T, eps), mu)
    C = np.cumsum(c)
    np.testing.assert_allclose(sd.lhs, 0.0, atol=1e-12)
    np.testing.assert_allclose(sd.bias[1:], 0.0, atol=1e-12)  # ω* − ω̂_{t+1} = 0 for all t
    np.testing.assert_allclose(sd.descent, (1 / eps - mu) * d0 / C[[1, 5]], rtol=1e-12)
    np.testing.assert_allclose(sd.noise, s2 * eps, rtol=1e-12)  # constant ε: Σc_tε/C_k = ε
    assert np.all(sd.rhs_lo <= sd.rhs) and np.all(sd.rhs <= sd.rhs_hi)


# ------------------------------------------------------------------ Lemma D.4
def test_bernstein_threshold_formula():
    assert sl.bernstein_threshold(3.0, 0.2, 3, 0.1) == pytest.approx(3 * (0.8 / 3 + 6) / 0.04 * math.log(60))


def test_bernoulli_cells_and_counts_reproduce_the_sample_fisher_matrix():
    fam = bernoulli(2)
    eta = bernoulli_to_natural(jnp.array([0.3, 0.6]))
    cells = sl.bernoulli_cells(fam, eta)
    assert cells.probs.sum() == pytest.approx(1.0) and cells.F[0, 1] == pytest.approx(0.3)
    assert cells.F[1, 2] == pytest.approx(0.18) and cells.r == pytest.approx(np.linalg.eigvalsh(cells.F).min())
    X = np.asarray(fam.sample(jax.random.PRNGKey(0), eta, 50))
    counts = np.array([[np.sum(np.all(X == p, axis=1)) for p in cells.points]])
    S = np.asarray(fam.statistic(jnp.asarray(X)))
    np.testing.assert_allclose(sl.fisher_from_counts(cells, counts, 50)[0], S.T @ S / 50, atol=1e-14)


def _exact_bias_d1(p, N):
    """E[F̂⁻¹ − F⁻¹ | A] for one Bernoulli(p) (s = (1, γ)) by summing over k ~ Binomial(N, p)."""
    fam = bernoulli(1)
    cells = sl.bernoulli_cells(fam, bernoulli_to_natural(jnp.array([p])))
    k = np.arange(N + 1)
    ph = k / N
    Fh = np.stack([np.stack([np.ones_like(ph), ph], -1), np.stack([ph, ph], -1)], -2)
    inside = sl.well_conditioned(cells, Fh)
    w = stats.binom.pmf(k, N, p) * inside
    Finv = np.linalg.inv(cells.F)
    diff = np.linalg.inv(np.where(inside[:, None, None], Fh, cells.F)) - Finv
    return cells, np.einsum("k,kij->ij", w, diff) / w.sum(), w.sum()


def test_inverse_bias_matches_the_binomial_sum_and_its_leading_term():
    cells, exact_b, p_a = _exact_bias_d1(0.3, 40)
    est = sl.inverse_bias(np.random.default_rng(0), cells, 40, 200000)
    assert est.p_event == pytest.approx(p_a, abs=0.01)
    assert np.all(np.abs(est.bias - exact_b) < 4 * est.se + 1e-12)
    cells, exact_big, _ = _exact_bias_d1(0.3, 20000)
    np.testing.assert_allclose(20000 * exact_big, sl.inverse_bias_leading(cells), rtol=2e-3)


def test_clopper_pearson_matches_scipy():
    for k, n in ((0, 50), (17, 50), (50, 50)):
        ci = stats.binomtest(k, n).proportion_ci(method="exact")
        assert sl.clopper_pearson(k, n) == pytest.approx((ci.low, ci.high), abs=1e-10)


# ------------------------------------------------------------------ Section 2.2, μ = 0
def test_cusp_target_has_a_degenerate_optimum_and_a_neighbour_does_not():
    fam = gaussian_fullcov(1)
    opt = sl.cusp_optimum(fam, rates.as_f(sl.cusp_target()))
    assert opt.residual < 1e-12
    np.testing.assert_allclose(opt.eigenvalues, [0.0, 1.0, 1.0], atol=1e-8)
    # the check that μ̂ = 0 can fail: a = 0.6 (same b) has a nondegenerate fixed point N(0, v(a))
    f = rates.as_f(sl.cusp_target(a=0.6))
    eta, _ = rates.fixed_point(fam, f, fullcov_to_natural(jnp.zeros(1), jnp.full((1, 1), 0.5)), 0.5, 200)
    assert rates.relative_curvature(rates.map_jacobian(fam, f, eta))[0] > 0.1


def test_hr_step_sizes():
    np.testing.assert_allclose(sl.hr_step_sizes(2.0, 0.5, [1, 4, 100], 1.0), [1.0, 1.0, math.sqrt(4.0 / 100)])


# ------------------------------------------------------------------ claim builders
def _eq(diff, res=1e-15, invalid=0):
    om = np.ones((2, 4, 3))
    return sl.Equivalence(om, om, diff, res, 8, 0.1, invalid)


def test_d6_claims():
    assert status(lc.d6_claims(_eq(1e-14), 100)[0]) == "PASS"
    assert status(lc.d6_claims(_eq(1e-4), 100)[0]) == "FAIL"
    assert status(lc.d6_claims(_eq(1e-14, res=1e-6), 100)[0]) == "NOT ASSESSABLE"
    assert status(lc.d6_claims(_eq(1e-14, invalid=1), 100)[0]) == "NOT ASSESSABLE"
    assert lc.d6_claims(_eq(1e-14), 100)[0]["kind"] == "paper"


def _sides(lhs, lo, hi, rhs, rlo, rhi):
    a = lambda v: np.atleast_1d(np.asarray(v, float))
    return sl.D7Sides(np.array([10]), a(lhs), a(lo), a(hi), a(0.5 * rhs), a(0.5 * rhs), a(0.0), a(rhs), a(rlo), a(rhi))


def _d7(sides, reps=30, excluded=None):
    sig = {n: {"value": 1e-3, "lo": 8e-4, "hi": 1.2e-3, "t": 5, "max_rel_se": 0.05} for n in sides}
    return sl.LemmaD7(sides, sig, excluded or {}, reps, "")


def test_d7_claims():
    good = {1000: _sides(1.0, 0.9, 1.1, 2.0, 1.8, 2.2)}
    bad = {1000: _sides(3.0, 2.9, 3.1, 2.0, 1.8, 2.2)}
    mixed = {1000: _sides(2.0, 1.7, 2.3, 2.0, 1.8, 2.2)}
    r = lc.d7_claims(_d7(good))[0]
    assert status(r) == "PASS" and r["kind"] == "reading"
    assert status(lc.d7_claims(_d7({**good, 3000: bad[1000]}))[0]) == "FAIL"
    assert status(lc.d7_claims(_d7(mixed))[0]) == "NOT ASSESSABLE"
    assert status(lc.d7_claims(_d7({}, excluded={30: "σ² not resolved"}))[0]) == "NOT ASSESSABLE"
    assert status(lc.d7_claims(_d7(good, reps=3))[0]) == "NOT ASSESSABLE"


def _d10(fits, printed, se=0.01):
    n = np.array([1000, 3000, 10000, 30000])
    val = -np.asarray(printed, float) * np.ones((2, 4))
    return sl.LemmaD10(n, ("a", "b"), val, se * np.ones((2, 4)), -val, np.ones((2, 4)), np.ones(2), np.ones(2),
                       {"a": fits[0], "b": fits[1]}, 1000, "")


def test_d10_claims():
    n4 = np.array([1000, 3000, 10000, 30000])
    ok, hi, straddle = fit(-1.0, -1.03, -0.97), fit(-0.7, -0.75, -0.65), fit(-0.9, -0.95, -0.85)
    rate, sign = lc.d10_claims(_d10([(ok, n4), (ok, n4)], 0.1 * (-1)))
    assert status(rate) == "PASS" and status(sign) == "PASS" and sign["kind"] == "reading" and rate["kind"] == "paper"
    rate, sign = lc.d10_claims(_d10([(ok, n4), (hi, n4)], +0.1))  # printed positive
    assert status(rate) == "FAIL" and status(sign) == "FAIL"
    rate, sign = lc.d10_claims(_d10([(ok, n4), (straddle, n4)], 0.0))  # printed 0 ± se
    assert status(rate) == "NOT ASSESSABLE" and status(sign) == "NOT ASSESSABLE"
    rate, _ = lc.d10_claims(_d10([(ok, n4[:2]), (ok, n4)], -0.1))  # 2 values of N at one point
    assert status(rate) == "NOT ASSESSABLE"


def _d4(cp, slope_fit, n_grid=(300, 1000, 3000, 10000, 30000)):
    cells = sl.Cells(np.zeros((4, 2)), np.full(4, 0.25), np.ones((4, 3)), np.eye(3), 0.15)
    bias = [sl.InverseBias(np.eye(3), np.eye(3), 19.5 / n, 0.1 / n, 1.0) for n in n_grid]
    deltas = np.array([0.5, 0.1, 0.01])
    return sl.LemmaD4(cells, 3.0, deltas, np.array([2000.0, 3300, 5200]), np.ones(3), np.asarray(cp, float),
                      np.array([51.0, 139, 373]), np.asarray(n_grid), bias, slope_fit, 19.5, 200000, "")


def test_d4_claims():
    ok_cp = [[0.9999, 1.0]] * 3
    thr, slope = lc.d4_claims(_d4(ok_cp, fit(-1.0, -1.01, -0.99)))
    assert status(thr) == "PASS" and status(slope) == "PASS"
    thr, slope = lc.d4_claims(_d4([[0.9999, 1.0], [0.9999, 1.0], [0.9, 0.95]], fit(-0.5, -0.55, -0.45)))
    assert status(thr) == "FAIL" and status(slope) == "FAIL"
    thr, slope = lc.d4_claims(_d4([[0.9999, 1.0], [0.9999, 1.0], [0.985, 0.995]], fit(-0.9, -0.95, -0.85)))
    assert status(thr) == "NOT ASSESSABLE" and status(slope) == "NOT ASSESSABLE"
    _, slope = lc.d4_claims(_d4(ok_cp, fit(-1.0, -1.01, -0.99), n_grid=(300, 3000)))
    assert status(slope) == "NOT ASSESSABLE"


def _mu0(lhs_fit, horizons=(100, 300, 1000, 3000, 10000), mu_hat=0.0, in_regime=True, diverged=0, reps=16):
    K = np.asarray(horizons)
    runs = sl.Mu0Runs(K, np.full(K.size, 0.1), np.ones((reps, K.size)), np.ones((reps, K.size)),
                      np.ones((reps, K.size)), diverged)
    opt = sl.CuspOptimum(np.zeros(3), 1e-16, np.array([mu_hat, 1.0, 1.0]), 0.0)
    fits = {"lhs": lhs_fit, "averaged": fit(-1.0, -1.1, -0.9), "last": fit(-0.5, -0.7, -0.3)}
    return sl.Mu0Rate(opt, 100, "alg3", 1.2, 0.1, runs, fits, in_regime, "")


def test_mu0_claims():
    rate, tight = lc.mu0_claims(_mu0(fit(-0.5, -0.52, -0.48)))
    assert (status(rate), status(tight)) == ("PASS", "PASS") and (rate["kind"], tight["kind"]) == ("reading", "beyond")
    rate, tight = lc.mu0_claims(_mu0(fit(-0.2, -0.25, -0.15)))  # slower than 1/√K
    assert (status(rate), status(tight)) == ("FAIL", "PASS")
    rate, tight = lc.mu0_claims(_mu0(fit(-1.0, -1.05, -0.95)))  # faster: the bound holds, tightness fails
    assert (status(rate), status(tight)) == ("PASS", "FAIL")
    for kw in ({"horizons": (30, 100, 300, 1000)}, {"mu_hat": 0.1}, {"in_regime": False}, {"diverged": 1}, {"reps": 3}):
        rate, tight = lc.mu0_claims(_mu0(fit(-0.5, -0.52, -0.48), **kw))
        assert status(rate) == status(tight) == "NOT ASSESSABLE", kw


def test_lemma_claims_collects_the_parts():
    rows = lc.lemma_claims(d6=_eq(1e-14), d6_samples=100, mu0=_mu0(fit(-0.5, -0.52, -0.48)))
    assert [r["id"] for r in rows] == ["lemma-d6-md-equals-ngd", "md-mu0-rate", "md-mu0-rate-tight"]
