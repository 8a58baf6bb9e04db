"""RABVI on posteriordb (notebook 42): reference on the unconstrained space, relative errors, RABVI's trigger and
curves, claims logic, figure; Blackjax NUTS's target acceptance."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from lsvi.baselines import nuts
from lsvi.core import targets
from lsvi.core.bbvi import families, kernel, optimizers, rabvi
from lsvi.core.bbvi.rabvi import Epoch, RabviResult
from lsvi.papers.rabvi import posteriordb as pdb
from lsvi.papers.rabvi import posteriordb_models as pm
from lsvi.papers.rabvi import posteriordb_study as rp
from lsvi.papers.rabvi import posteriordb_claims as pc

jax.config.update("jax_enable_x64", True)


def test_relative_errors_are_the_papers_norms():
    fam = families.meanfield(3)
    ref = rp.UReference(np.array([0.0, 1.0, 2.0]), np.array([1.0, 2.0, 0.5]), "test")
    exact = fam.init(ref.mean, np.diag(ref.sd**2))
    shifted = fam.init(ref.mean + np.array([1.0, 0.0, 0.0]), np.diag((ref.sd * np.array([2.0, 1.0, 2.0])) ** 2))
    me, se = rp.relative_errors(fam, jnp.stack([exact, shifted]), ref)
    np.testing.assert_allclose(me, [0.0, 1.0], atol=1e-12)  # one coordinate off by one sd
    np.testing.assert_allclose(se, [0.0, np.sqrt(2.0)], atol=1e-12)  # two sds doubled
    fr = families.fullrank(3)
    me2, se2 = rp.relative_errors(fr, fr.init(ref.mean, np.diag(ref.sd**2))[None], ref)
    np.testing.assert_allclose([me2[0], se2[0]], [0.0, 0.0], atol=1e-12)


def test_unconstrained_reference_maps_every_draw():
    """Against the non-centred program's unconstrained parameters computed by hand from the constrained draws
    (Stan's parameters block: theta_trans[8], mu, tau > 0; theta = mu + tau theta_trans), not by model.unconstrain."""
    m = pm.build("8schools_nc")
    ref = rp.unconstrained_reference(m)
    draws = pdb.load_reference("8schools_nc")
    by = {n: draws.flat[:, j] for j, n in enumerate(draws.names)}
    theta = np.stack([by[f"theta[{j}]"] for j in range(1, 9)], 1)
    u = np.column_stack([(theta - by["mu"][:, None]) / by["tau"][:, None], by["mu"], np.log(by["tau"])])
    np.testing.assert_allclose(ref.mean, u.mean(0), rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(ref.sd, u.std(0, ddof=1), rtol=1e-8)
    assert ref.mean.shape == ref.sd.shape == (m.dim,) and np.all(ref.sd > 0)
    with pytest.raises(LookupError):
        rp.unconstrained_reference(pm.build("dogs"))


def _epoch(gamma, it, rskl, ri, ok=True):
    return Epoch(gamma, 0.1, it, 0, ok, np.nan, np.nan, 1.0, rskl, ri, np.zeros(2))


def test_trigger_epoch_is_the_first_epoch_from_the_third_where_the_rule_fires():
    eps = [_epoch(0.3, 100, np.nan, np.nan), _epoch(0.15, 100, 2.0, np.nan), _epoch(0.075, 100, 0.9, 0.9),
           _epoch(0.0375, 100, 1.2, 1.0), _epoch(0.01875, 100, 3.0, 3.0)]
    res = RabviResult(np.zeros(2), False, True, 500, eps)
    assert rabvi.stop_epoch(res.epochs) == 3
    assert rabvi.stop_epoch(res.epochs, tau=5.0) == 4
    assert rabvi.stop_epoch(res.epochs, tau=100.0) is None


def test_rabvi_curve_on_a_gaussian_target_stops_near_the_truth():
    """π = N(m, diag s²) is in the mean-field family: RABVI (RMSProp warm start, rule off afterwards) must fire and
    be accurate at its trigger; the curve starts with the warm start's average."""
    d = 3
    m, s = np.array([1.0, -2.0, 0.5]), np.array([0.5, 2.0, 1.0])
    fam = families.meanfield(d)
    logp = targets.gaussian_logdensity(jnp.diag(1.0 / s**2), jnp.asarray(m))
    bb = kernel.build(fam, logp, optimizers.get("avg_adam"), 10)
    warm = kernel.build(fam, logp, optimizers.get("rmsprop"), 10)
    c = rp.rabvi_curve("RABVI MF", bb, fam, jnp.zeros(2 * d), jax.random.PRNGKey(0), rp.UReference(m, s, "exact"),
                       k_max=12_000, warm_start=warm)
    assert np.all(np.diff(c.iterations) > 0) and c.iterations[-1] <= 12_000
    assert c.stop is not None and c.stop in c.iterations
    assert c.stop_mean_err < 0.3 and c.stop_sd_err < 0.3


def test_nuts_target_acceptance_is_adapted_to_and_gradient_evaluations_counted():
    logp = targets.gaussian_logdensity(jnp.diag(jnp.array([1.0, 4.0])))
    lo = nuts.sample(logp, 2, num_chains=2, num_warmup=200, num_draws=200, target_accept=0.6)
    hi = nuts.sample(logp, 2, num_chains=2, num_warmup=200, num_draws=200, target_accept=0.95)
    assert lo.acceptance < 0.8 < 0.9 < hi.acceptance
    assert hi.grad_evals > lo.grad_evals >= 2 * 200  # at least one leapfrog step per draw; smaller steps cost more


def _study(short, curves):
    return {"short": short, "dim": 2, "curves": {c.label: c for c in curves}}


def _curve(label, its, me, stop=None, stop_me=np.nan):
    its = np.asarray(its)
    return rp.Curve(label, its, np.asarray(me, float), np.asarray(me, float) * 2, stop, stop_me, 2 * stop_me)


def test_claims_logic():
    st = {k: _study(k, [_curve("RABVI MF", [100, 200, 300], [1.0, 0.5, 0.4], 200, 0.5),
                        _curve("Adam", [100, 200, 300], [b, b, b])]) for k, b in (("a", 1.0), ("b", 0.1), ("c", 1.0))}
    rows = {r["id"]: r for r in pc.fig8_claims(st, ("Adam",), 300)}
    assert rows["fig8_rabvi_stops"]["passed"] and rows["fig8_rabvi_stops"]["assessable"]
    assert rows["fig8_rabvi_vs_adam_baselines"]["passed"]  # 2 of 3 posteriors: RABVI 0.5 <= 1.25 x 1.0
    rows9 = {r["id"]: r for r in pc.fig9_claims(st)}
    assert rows9["fig9_no_improvement_after_trigger"]["passed"]  # 0.5 -> 0.4: less than a factor 2
    assert rows9["fig9_meanfield_sd_worse_than_mean"]["passed"]  # sd error 2x mean error
    assert not rows9["fig9_fullrank_improves_some"]["assessable"]
    xi = _study("dogs", [_curve("RABVI MF ξ=0.2", [100], [1.0], 100, 0.3), _curve("RABVI MF ξ=0.1", [100], [1.0], 50, 0.2)])
    r2 = {r["id"]: r for r in pc.fig2_claims({"dogs": [pc.xi_curves(xi)]})}
    assert not r2["fig2_xi_order_dogs"]["assessable"]  # one seed, two ξ: the ordering needs 5 seeds and 3 ξ
    assert not r2["fig2_xi_order_nes2000"]["assessable"]
    tr = pc.translation_claims({}, documented={})
    assert len(tr) == 18 and not any(r["assessable"] for r in tr)
    assert "no reference" in next(r for r in tr if r["id"] == "translation_dogs")["measured"]


def test_accuracy_figure_plots_the_curves(tmp_path):
    from lsvi.papers.rabvi.plotting import posteriordb as plotting

    st = {"a": _study("a", [_curve("RABVI MF", [100, 200], [1.0, 0.5], 200, 0.5), _curve("Adam", [100, 200], [2.0, 1e5]),
                            _curve("RABVI FR", [100, 200], [3.0, 3.0], 100, 3.0)])}
    fig = plotting.accuracy_curves(st, "test", skip="RABVI FR")
    fig.savefig(tmp_path / "f.png")
    assert len(fig.axes) == 2
    top, bottom = fig.axes
    lines = {ln.get_label(): ln for ln in top.lines}
    assert "RABVI FR" not in lines  # skipped
    np.testing.assert_allclose(lines["RABVI MF"].get_xdata(), [100, 200])
    np.testing.assert_allclose(lines["RABVI MF"].get_ydata(), [1.0, 0.5])  # relative mean errors
    np.testing.assert_allclose(lines["Adam"].get_ydata(), [2.0, np.nan])  # 1e5 is above the clip: not a curve value
    marks = [ln for ln in top.lines if ln.get_marker() == "^" and len(ln.get_xdata())]
    assert len(marks) == 1 and list(marks[0].get_xdata()) == [200] and list(marks[0].get_ydata()) == [1e3]  # ▲ at 1e3
    assert any("(1 point)" in t.get_text() for t in top.get_legend().get_texts())  # counted in the legend
    np.testing.assert_allclose({ln.get_label(): ln for ln in bottom.lines}["RABVI MF"].get_ydata(), [2.0, 1.0])  # sd
    stop = [ln for ln in top.lines if ln.get_color() == "red"]
    assert len(stop) == 1 and stop[0].get_xdata()[0] == 200 and stop[0].get_ydata()[0] == 0.5  # the trigger dot
    vlines = [ln for ln in top.lines if list(ln.get_xdata()) == [200, 200]]
    assert vlines  # RABVI's stopping line


def test_reference_keeps_two_disjoint_subsets_of_its_draws():
    m = pm.build("8schools_nc")
    ref = rp.unconstrained_reference(m, max_draws=300, seed=1)
    u = np.asarray(jax.vmap(m.unconstrain)(jnp.asarray(pdb.load_reference("8schools_nc").flat)))
    assert ref.draws.shape == ref.holdout.shape == (300, m.dim)
    rows = {tuple(r) for r in u}
    assert all(tuple(r) in rows for r in ref.draws) and all(tuple(r) in rows for r in ref.holdout)
    assert not {tuple(r) for r in ref.draws} & {tuple(r) for r in ref.holdout}
    assert 0.1 < ref.bandwidth < 10.0  # median heuristic on standardised draws: of order sqrt(d)
    assert rp.unconstrained_reference(m).draws is None


def test_mmd_path_is_near_its_floor_at_the_target_and_grows_with_the_shift():
    """Reference: exact draws of π = N(m, diag s²). q_λ = π gives an MMD² at the noise level of held-out exact draws;
    shifting q's mean by 0.5, 1 and 2 sds in every coordinate gives clearly larger, increasing MMD²."""
    d, n = 3, 400
    m, s = np.array([1.0, -2.0, 0.5]), np.array([0.5, 2.0, 1.0])
    u = m + s * np.random.default_rng(0).standard_normal((2 * n, d))
    ref = rp._with_draws(m, s, "exact", u, n, 0)
    fam = families.meanfield(d)
    lams = jnp.stack([fam.init(m + k * s, np.diag(s**2)) for k in (0.0, 0.5, 1.0, 2.0)])
    mmd = rp.mmd_path(fam, lams, ref, jax.random.PRNGKey(3), n)
    floor = rp.mmd_floor(ref, n)
    assert abs(mmd[0]) < 0.02 and abs(floor) < 0.02
    assert np.all(np.diff(mmd) > 0) and mmd[1] > 10 * max(abs(mmd[0]), abs(floor))
    fr = families.fullrank(d)
    np.testing.assert_allclose(rp.mmd_path(fr, fr.init(m, np.diag(s**2))[None], ref, jax.random.PRNGKey(3), n),
                               mmd[:1], atol=1e-10)  # same z, same q: the same MMD² in either parameterisation


def test_mmd_claim_logic_and_figure_row(tmp_path):
    from lsvi.papers.rabvi.plotting import posteriordb as plotting

    def study(short, mmd, floor=1e-4):
        c = _curve("RABVI MF", [100, 200, 300], [1.0, 0.5, 0.4], 200, 0.5)._replace(
            mmd=np.asarray(mmd, float), stop_mmd=float(mmd[1]))
        return dict(_study(short, [c]), mmd_floor=floor)

    flat = {k: study(k, [0.5, 0.1, 0.08]) for k in "abc"}
    row = pc.figc14_claims(flat, 1000)[0]
    assert row["passed"] and row["assessable"]
    drops = {k: study(k, [0.5, 0.1, 0.01]) for k in "abc"}  # a factor 10 in MMD² after the trigger: improvement
    assert not pc.figc14_claims(drops, 1000)[0]["passed"]
    noisy = {k: study(k, [0.5, 0.003, 0.0]) for k in "abc"}  # the drop is within 4 x noise (1/n = 1e-3)
    assert not pc.figc14_claims(noisy, 1000)[0]["assessable"]  # no pair above the noise: nothing to decide on
    assert not pc.figc14_claims({"a": flat["a"]}, 1000)[0]["assessable"]
    fig = plotting.accuracy_curves(flat, "test", mmd=True)
    fig.savefig(tmp_path / "f.png")
    assert len(fig.axes) == 9 and fig.axes[6].get_ylabel().startswith("MMD")  # row-major: row 3, column 1
    mmd_lines = {ln.get_label(): ln for ln in fig.axes[6].lines}
    np.testing.assert_allclose(mmd_lines["RABVI MF"].get_ydata(), [0.5, 0.1, 0.08])  # the MMD² path
    np.testing.assert_allclose(mmd_lines["|MMD²| of held-out reference draws"].get_ydata(), [1e-4, 1e-4])  # floor


def test_xi_repeats_reproduces_the_study_runs_at_the_same_seed():
    """Fig. 2's extra seeds (rabvi_posteriordb_xi): seed s gives the curves study_posterior gives at seed s; another
    seed gives other runs."""
    from lsvi.papers.rabvi import posteriordb_xi as rx

    st = rp.study_posterior("gp_regr", num_steps=200, k_max=600, baselines=[], xis=[0.2, 0.1], faso_gamma=None, seed=0)
    (same, other), xi = rx.xi_repeats("gp_regr", st["reference"], [0.2, 0.1], [0, 1], k_max=600), pc.xi_curves(st)
    assert rx.xi_repeats("gp_regr", st["reference"], [0.2, 0.1], [], k_max=600) == []
    for x in (0.2, 0.1):
        np.testing.assert_allclose(same[x].mean_err, xi[x].mean_err)
        np.testing.assert_array_equal(same[x].iterations, xi[x].iterations)
    assert not np.allclose(other[0.1].mean_err[:1], same[0.1].mean_err[:1])
