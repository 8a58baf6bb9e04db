"""lsvi.papers.rabvi.checks.theory, lsvi.papers.rabvi.claims and the notebook 40 figures."""
import numpy as np
import pytest

from lsvi.papers.rabvi.checks import theory as rt
from lsvi.core.bbvi.faso import chi


def test_w2_closed_form_in_one_dimension_and_commuting_case():
    # 1-d: W_2² = (m0 − m1)² + (s0 − s1)²
    assert rt.w2_gaussian(np.array([1.0]), np.array([[4.0]]), np.array([0.0]), np.array([[1.0]])) == pytest.approx(
        np.sqrt(1 + 1))
    S0, S1 = np.diag([1.0, 9.0]), np.diag([4.0, 1.0])
    assert rt.w2_gaussian(np.zeros(2), S0, np.zeros(2), S1) == pytest.approx(np.sqrt(1 + 4))


@pytest.mark.parametrize("d", [1, 3, 6])
def test_cstar_numeric_equals_closed_form(d):
    assert rt.cstar_numeric(d) == pytest.approx(rt.cstar(), abs=1e-7)
    assert rt.cstar() == pytest.approx(1.7788, abs=1e-4)


def test_bounds_hold_on_random_pairs():
    pairs = rt.random_gaussian_pairs(3, 300)
    p41, p43, p51 = rt.prop41(pairs), rt.prop43(pairs), rt.prop51(3, 300)
    assert np.all(p41["mean_lhs"] <= p41["eps"] * (1 + 1e-12))
    assert np.all(p41["covw_lhs"] < p41["covw_rhs"])
    assert np.all(p43["lhs"] <= p43["rhs"])
    assert np.all(p51["sigma_ratio"] <= 1.5) and np.all(p51["tau_ratio"] <= 1.75)
    assert np.max(p51["tau_ratio"]) > 1.5  # the boundary cases come close to the bound


def test_eq10_as_printed_has_counterexamples():
    """The non-symmetric Σ⁻¹(Σ_η − Σ_ζ) of eq. 10 can exceed 2ε(ϱ + ε) (notebook 40 reports it)."""
    p41 = rt.prop41(rt.random_gaussian_pairs(0, 1000))
    assert np.any(p41["cov_lhs"] >= p41["cov_rhs"])


def test_prop52_argmin_g_and_schedule():
    for r in (0.0, 0.3, 5.0):
        x, v = rt.chi_argmin_numeric(r)
        assert x == pytest.approx(chi(r), abs=1e-6)
        assert v / (1 + r) == pytest.approx(float(rt.g(r)), rel=1e-9)
        assert np.all(rt.check_schedule_cost(r, chi(r), np.logspace(0, 3, 300)) <= rt.g(r) + 1e-12)
    assert rt.g(0.0) == 4.0
    # the doubling rule approaches the factor 4 when r → 0
    assert rt.check_schedule_cost(1e-6, 2.0, np.logspace(0, 3, 300)).max() > 3.9


def test_stationary_psi_bias_is_negative_and_shrinks_with_gamma():
    V = np.array([[1.0, 0.5], [0.5, 2.0]])
    s = rt.stationary_study(V, "sgd", [0.2, 0.05], num_chains=40, num_steps=2000, burn_in=500)
    bias = s["mean"][:, 2:] - s["lam_star"][2:]
    assert np.all(bias < 0)  # Jensen: E e^{2ψ} = e^{2ψ*} at stationarity
    assert np.all(np.abs(bias[1]) < np.abs(bias[0]) / 2)
    assert np.all(np.abs(s["mean"][:, :2]) < 0.02)  # τ̄ is unbiased on a Gaussian target
    assert rt.successive_skl(s).shape == (1,) and rt.skl_noise_floor(s).shape == (2,)


def test_figures_and_claims(tmp_path):
    from lsvi.papers.rabvi import claims as rc
    from lsvi.papers.rabvi.plotting import gaussian as plotting

    V = np.array([[1.0, 0.5], [0.5, 2.0]])
    study = rt.stationary_study(V, "sgd", [0.2, 0.1, 0.05], 8, 600, 200)
    summ = {n: rt.stationary_summary(study) for n in plotting.LABELS}  # one study stands in for every optimiser
    floors = {n: rt.skl_noise_floor(study) for n in plotting.LABELS}
    r = np.logspace(-2, 2, 5)
    p52 = {"r": r, "chi": chi(r), "chi_num": np.array([rt.chi_argmin_numeric(x)[0] for x in r]),
           "min_num": np.array([rt.chi_argmin_numeric(x)[1] for x in r]), "g": rt.g(r),
           "worst_chi": np.array([rt.check_schedule_cost(x, chi(x), [1, 3, 10]).max() for x in r]),
           "worst_two": np.array([rt.check_schedule_cost(x, 2.0, [1, 3, 10]).max() for x in r])}
    fig = plotting.thm_rabvi_theory(summ, floors, {"a": np.array([0.5, 0.9])}, p52)
    fig.savefig(tmp_path / "a.png")
    ax = fig.axes
    np.testing.assert_allclose(ax[0].lines[0].get_ydata(), summ["sgd"]["bias"])  # panel (a): the measured bias
    np.testing.assert_allclose(ax[3].lines[0].get_ydata(), rt.g(r))  # panel (d): g(r) and the simulated worst cases
    np.testing.assert_allclose(ax[3].lines[1].get_ydata(), p52["worst_chi"])
    stat = rc.stationary_claims(summ, stat_assessable=False)
    assert len(stat) == 2 + 3 + 2 * 3 and all(not row["assessable"] for row in stat)
    assert all(row["passed"] for row in rc.prop52_claims(p52))
