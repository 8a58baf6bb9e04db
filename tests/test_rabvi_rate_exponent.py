"""δ_t and κ̂ against the learning rate (RABVI Figs 3a, C.6, C.7; `lsvi.papers.rabvi.rate_exponent`): the Bayesian
eq. 21 by quadrature recovers κ from synthetic δ_t, the rule-off run keeps converged epochs only, and the claim
builder reaches PASS, FAIL and NOT ASSESSABLE as documented."""
import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from lsvi.papers.rabvi import rate_exponent as rx  # noqa: E402
from lsvi.papers.rabvi import rate_exponent_claims as rxc  # noqa: E402

GAMMAS = 0.3 * 0.5 ** np.arange(1, 8)


def _deltas(kappa, C=2.0, noise=0.05, seed=0, gammas=GAMMAS):
    rng = np.random.default_rng(seed)
    return C * (1 / 0.5 ** kappa - 1) ** 2 * gammas ** (2 * kappa) * np.exp(noise * rng.normal(size=gammas.size))


@pytest.mark.parametrize("kappa", [0.3, 0.5, 0.9])
def test_kappa_posterior_recovers_kappa_and_widens_with_fewer_points(kappa):
    med, lo, hi = rx.kappa_posterior(GAMMAS, _deltas(kappa))
    assert lo < kappa < hi and abs(med - kappa) < 0.1 and hi - lo < 0.3
    m3, lo3, hi3 = rx.kappa_posterior(GAMMAS[:2], _deltas(kappa)[:2])
    assert hi3 - lo3 > 2 * (hi - lo)  # two points: the prior Unif(0, 1) dominates
    with pytest.raises(ValueError, match="at least 2"):
        rx.kappa_posterior(GAMMAS[:1], _deltas(kappa)[:1])


def test_rule_off_run_keeps_converged_epochs_and_the_path_follows():
    run = rx.rule_off_run("banded", 3, "adam", k_max=4000, seed=0)
    assert run.gamma.size == run.delta.size >= 2 and np.all(np.isfinite(run.delta))
    assert np.all(np.diff(run.gamma) < 0) and run.iterations <= 4000
    path = rx.kappa_path(run)
    assert path.shape == (run.gamma.size - 1, 4) and np.all((path[:, 2] <= path[:, 1]) & (path[:, 1] <= path[:, 3]))


def _run(name, opt, kappa, n=7, noise=0.05):
    g = GAMMAS[:n]
    return rx.RuleOffRun(name, opt, 0, g, _deltas(kappa, noise=noise, gammas=g), np.full(n, kappa), np.ones(n), 1000)


def _claims(kappas, opt="rmsprop", n=7):
    runs = [_run(t, opt, k, n) for t, k in kappas.items()]
    final = {(opt, r.name): rx.kappa_posterior(r.gamma, r.delta) for r in runs if r.gamma.size >= 2}
    return {c["id"]: c for c in rxc.rate_exponent_claims(runs, final)}


def test_kappa_rows_pass_fail_and_not_assessable():
    c = _claims({"identity": 0.5, "uniform": 0.5, "banded": 0.5})["figC6_kappa_rmsprop_about_half"]
    assert c["passed"] and c["assessable"] and c["kind"] == "paper"
    c = _claims({"identity": 0.95, "uniform": 0.95, "banded": 0.5})["figC6_kappa_rmsprop_about_half"]
    assert not c["passed"] and c["assessable"]  # two of three intervals miss [0.4, 0.6]
    c = _claims({"identity": 0.95, "uniform": 0.5, "banded": 0.5})["figC6_kappa_rmsprop_about_half"]
    assert not c["assessable"]  # one of three disagrees: not settled
    c = _claims({"identity": 0.5, "uniform": 0.5})["figC6_kappa_rmsprop_about_half"]
    assert not c["assessable"]  # two targets < 3
    adam = _claims({"identity": 0.6, "uniform": 0.6, "banded": 0.6}, opt="adam")
    assert adam["figC7_kappa_adam_about_0p6"]["passed"] and adam["figC7_kappa_adam_below_0p8"]["passed"]
    adam = _claims({"identity": 0.95, "uniform": 0.95, "banded": 0.95}, opt="adam")
    assert not adam["figC7_kappa_adam_below_0p8"]["passed"] and adam["figC7_kappa_adam_below_0p8"]["assessable"]
    assert "figC6_kappa_rmsprop_about_half" not in adam  # no RMSProp runs: no row


def test_slope_row_pass_fail():
    ok = {c["id"]: c for c in rxc.rate_exponent_claims([_run(t, "avg_adam", 1.0) for t in ("a", "b", "c")], {})}
    assert ok["fig3a_delta_slope2_avgadam"]["passed"] and ok["fig3a_delta_slope2_avgadam"]["assessable"]
    bad = {c["id"]: c for c in rxc.rate_exponent_claims([_run(t, "avg_adam", 0.6) for t in ("a", "b", "c")], {})}
    assert not bad["fig3a_delta_slope2_avgadam"]["passed"] and bad["fig3a_delta_slope2_avgadam"]["assessable"]
    few = {c["id"]: c for c in rxc.rate_exponent_claims([_run(t, "avg_adam", 1.0, n=2) for t in ("a", "b", "c")], {})}
    assert not few["fig3a_delta_slope2_avgadam"]["assessable"]  # 2 points per target: no slope


def test_figure_draws_every_run(tmp_path):
    from lsvi.papers.rabvi.plotting.rate_exponent import rate_exponent_figure

    runs = [_run(t, o, k) for t in ("identity", "banded") for o, k in (("avg_adam", 1.0), ("rmsprop", 0.5),
                                                                      ("adam", 0.6))]
    paths = {(r.optimizer, r.name): rx.kappa_path(r) for r in runs if r.optimizer != "avg_adam"}
    fig = rate_exponent_figure(runs, paths, {"identity": "identity", "banded": "banded"})
    fig.savefig(tmp_path / "f.png")
    assert len(fig.axes) == 3 and len(fig.axes[0].lines) == 4  # two targets: points and fit line each
