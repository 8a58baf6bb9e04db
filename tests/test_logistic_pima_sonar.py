"""What notebooks 20–21 (Pima, Sonar) add to the library: the NUTS reference level
(`lsvi.papers.lsvi.logistic.moment_matched_anchor`), the convergence and blow-up readings of a KL curve,
the authors' residual of Algorithm 4 (`residual="Z"` of `lsvi.core.algorithms.lsvi_fc`), and Figures 1
and 4 (`lsvi.papers.lsvi.plotting.logistic`)."""
import jax
import jax.numpy as jnp
import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from lsvi.core.algorithms import lsvi_fc as fc  # noqa: E402
from lsvi.papers.lsvi import logistic
from lsvi.papers.lsvi.plotting import logistic as plotting
from lsvi.core import algorithms, kernel, step_size  # noqa: E402
from lsvi.core.families import gaussian_fullcov, gaussian_meanfield  # noqa: E402
from lsvi.core.families.gaussian import fullcov_precision_cholesky, fullcov_to_natural, meanfield_to_natural  # noqa: E402

M, S = jnp.array([1.0, -2.0, 0.5]), jnp.array([[2.0, 0.3, 0.0], [0.3, 1.0, 0.2], [0.0, 0.2, 0.5]])


def gaussian_problem(family=None):
    """Target N(M, S) unnormalised by log Z = 1.5, so that L(π) = −1.5 (a `logistic.Problem`)."""
    fam = family or gaussian_fullcov(3)
    eta = fullcov_to_natural(M, S)
    target = lambda key, X: gaussian_fullcov(3).dot(eta, X) + 1.5
    return logistic.Problem("gauss", jnp.zeros((1, 3)), jnp.ones(3), fam, eta, target, None, None)


# ------------------------------------------------------------------ the reference level L°
def test_anchor_of_exact_draws_is_the_minimum_within_its_resolution():
    """Moment-matching 4·10⁴ exact posterior draws gives q° ≈ π: L° − L(π) is the Wilks
    excess, about (m − 1)/(2n) = 9/(8·10⁴) ≈ 1e-4, never a visible fraction of a nat; the
    resolution is (m − 1)/(2 ESS)."""
    prob = gaussian_problem()
    draws = jax.random.multivariate_normal(jax.random.PRNGKey(0), M, S, (40_000,))
    a = logistic.moment_matched_anchor(prob, draws, ess=40_000, num_draws=4000, seed=1)
    assert a.resolution == pytest.approx(9 / 80_000)
    assert -1.5 - 1e-3 < a.value < -1.5 + 2e-3
    # a biased sample (a shifted mean) gives a level above the minimum by ½ δᵀS⁻¹δ, up to its MC error
    shifted = logistic.moment_matched_anchor(prob, draws + jnp.array([0.5, 0.0, 0.0]), 40_000, 4000, seed=1)
    expected = 0.5 * 0.25 * np.linalg.inv(np.asarray(S))[0, 0]
    assert abs(shifted.value + 1.5 - expected) < 4 * shifted.se and shifted.se < 0.01


def test_moment_matched_eta_of_a_meanfield_family_uses_the_marginal_variances():
    draws = np.random.default_rng(0).normal([1.0, -1.0], [2.0, 0.5], size=(5000, 2))
    eta = logistic.moment_matched_eta(gaussian_meanfield(2), draws)
    np.testing.assert_allclose(eta, meanfield_to_natural(jnp.asarray(draws.mean(0)), jnp.asarray(draws.var(0, ddof=1))))


# ------------------------------------------------------------------ readings of a KL curve
def test_converged_at_is_the_first_t_from_which_the_curve_stays_in_the_band():
    curve = [10.0, 5.0, 1.0, 0.04, 0.06, 0.03, 0.02]
    assert logistic.converged_at(curve, 0.0, 0.05) == 5  # t = 4 leaves the band again
    assert logistic.converged_at(curve, 0.0, 0.07) == 3
    assert logistic.converged_at([0.0, -10.0, -1.0], 0.0, 0.05) == 0  # one-sided: below the anchor is in
    assert logistic.converged_at([1.0, 0.0, 1.0], 0.0, 0.05) is None  # ends outside
    assert logistic.converged_at([1.0, 0.0, np.nan], 0.0, 0.05) is None


def test_blow_ups_are_repetitions_above_their_start_or_not_finite():
    curves = np.array([[5.0, 4.0, 3.0], [5.0, 6.0, 3.0], [5.0, np.nan, 1.0], [5.0, 5.0, 5.0], [5.0, 1.0, np.inf]])
    np.testing.assert_array_equal(logistic.blow_ups(curves), [False, True, True, False, True])


# ------------------------------------------------------------------ Algorithm 4: s(X) or s(Z)
def _state(d=3):
    """A Gaussian far from N(0, I) and the target it is the fixed point of."""
    eta = fullcov_to_natural(M, S)
    return eta, (lambda key, X: gaussian_fullcov(d).dot(eta, X))


def test_residual_z_evaluates_s_at_the_standard_normal_draws():
    """Same key, same draws: "Z" hands Algorithm 4 Z = Lᵀ(X − μ) instead of X, and the same
    f(X) and OLS η'."""
    eta, f = _state()
    key = jax.random.PRNGKey(4)
    X, yx, ex = fc.regression(gaussian_fullcov(3), f, 500)(key, eta)
    Z, yz, ez = fc.regression(gaussian_fullcov(3), f, 500, residual="Z")(key, eta)
    mean, L = fullcov_precision_cholesky(eta, 3)
    np.testing.assert_allclose(Z, (X - mean) @ L, atol=1e-10)
    np.testing.assert_array_equal(yx, yz)
    np.testing.assert_array_equal(ex, ez)
    with pytest.raises(ValueError, match="residual must be one of"):
        fc.regression(gaussian_fullcov(3), f, 500, residual="W")


def test_residual_z_at_a_fixed_point_has_the_variance_of_the_docstring():
    """At q = π = N(μ, Σ), the paper's residual f(X) − ηᵀs(X) is 0; the authors' f(X) − ηᵀs(Z)
    has variance ‖Σ⁻¹μ‖² + ½‖Σ⁻¹ − I‖²_F (`lsvi.core.step_size`), so with u² = 10 it caps ε
    at u/v̂ < 1 although the iteration is at its fixed point."""
    eta, f = _state()
    fam = gaussian_fullcov(3)
    P = np.linalg.inv(np.asarray(S))
    expected = np.sum((P @ np.asarray(M)) ** 2) + 0.5 * np.sum((P - np.eye(3)) ** 2)
    key = jax.random.PRNGKey(5)
    X, y, _ = fc.regression(gaussian_fullcov(3), f, 200_000)(key, eta)
    Z, _, _ = fc.regression(gaussian_fullcov(3), f, 200_000, residual="Z")(key, eta)
    eps_x, info_x = step_size.control(1.0, 10.0, fam, eta, eta, X, y)
    eps_z, info_z = step_size.control(1.0, 10.0, fam, eta, eta, Z, y)
    assert float(info_x.residual_var) < 1e-12 and float(eps_x) == 1.0
    assert float(info_z.residual_var) == pytest.approx(expected, rel=0.03)
    assert float(eps_z) == pytest.approx(np.sqrt(10.0 / float(info_z.residual_var)))


def test_residual_z_agrees_with_x_at_the_standard_normal_start():
    """μ = 0, C = I (the N(0, I) start of Pima and Sonar): X = Z, so both kernels take the same
    first step; afterwards they differ only through the cap."""
    d = 2
    target = lambda key, X: -0.5 * jnp.sum((X - 3.0) ** 2 / 0.04, axis=1)  # far from N(0, I): the cap binds
    eta0 = fullcov_to_natural(jnp.zeros(d), jnp.eye(d))
    sch = step_size.table3(1)
    fam = gaussian_fullcov(d)
    kx = algorithms.build_kernel("alg3", fam, target, 400)
    kz = algorithms.build_kernel("alg3", fam, target, 400, residual="Z")
    key = jax.random.PRNGKey(6)
    sx, ix = kx(key, kernel.init(eta0), 1.0, sch.u2)
    sz, iz = kz(key, kernel.init(eta0), 1.0, sch.u2)
    np.testing.assert_allclose(sx.eta, sz.eta, atol=1e-12)
    assert float(ix.eps) == float(iz.eps) < 1.0  # the same capped step
    k2 = jax.random.PRNGKey(7)
    assert float(kx(k2, sx, 1.0, sch.u2)[1].residual_var) != pytest.approx(
        float(kz(k2, sz, 1.0, sch.u2)[1].residual_var), rel=1e-3)


def test_the_residual_option_applies_to_algorithms_2_and_3_only():
    prob = logistic.problem("pima")
    logistic.kernel(prob, "alg3", 100, residual="Z")
    for name in ("alg1", "ngd"):
        with pytest.raises(ValueError, match=f"do not apply to {name}"):
            logistic.kernel(prob, name, 100, residual="Z")


# ------------------------------------------------------------------ Figures 1 and 4
T = np.arange(6)
Y = np.array([[700.0, 30.0, 0.5, 0.02, 0.01, 0.01], [700.0, 90.0, 1.5, 0.04, 0.01, 0.012]]) + 390.0


def test_fig01_keeps_every_mean_curve_in_both_panels():
    blow = Y.copy()
    blow[:, 3] += 5e3  # an excursion of 5000 nats stays inside the (symlog) panel
    curves = {"lsvi": (T, Y), "fc": (T, blow), "ngd": (T, Y + 0.2)}
    fig = plotting.fig01_pima(curves, ref=390.0, focus=["lsvi", "ngd"])
    axl, axr = fig.axes
    assert axl.get_yscale() == axr.get_yscale() == "symlog"
    for ax, labels in ((axl, ["lsvi", "fc", "ngd"]), (axr, ["lsvi", "ngd"])):
        lo, hi = ax.get_ylim()
        lines = {ln.get_label(): ln for ln in ax.get_lines()}
        for lab in labels:
            y = lines[lab].get_ydata()
            assert lo <= y.min() and y.max() <= hi, lab
            np.testing.assert_allclose(y, dict(curves)[lab][1][:, 1:].mean(0) - 390.0)  # t >= 1, minus ref
        assert lo < 0 < hi  # the reference level is inside
    assert [t.get_text() for t in fig.legends[0].get_texts()][:3] == ["lsvi", "fc", "ngd"]
    plt.close(fig)


def test_fig04_cost_panel_is_log_log_with_two_sd_bars():
    N = np.array([1e4, 3e4, 1e5])
    sec = np.outer(N * 1e-5, [1.0, 1.2, 0.8])
    fig = plotting.fig04_sonar({"fc": (N, sec)}, {"fc": (T, Y)}, ref=390.0)
    axl, axr = fig.axes
    assert axl.get_xscale() == axl.get_yscale() == "log" and axr.get_yscale() == "symlog"
    np.testing.assert_allclose(axl.get_lines()[0].get_ydata(), sec.mean(1))
    seg = axl.collections[0].get_segments()[0]  # the error bar at N = 1e4: mean ± 2 sd
    np.testing.assert_allclose(sorted(seg[:, 1]), [0.1 - 2 * sec[0].std(), 0.1 + 2 * sec[0].std()])
    plt.close(fig)
