"""RABVI vs HMC at equal cost (lsvi.experiments.rabvi_hmc_flows), NUTS cost paths, claims and figures."""
import jax
import jax.numpy as jnp
import matplotlib
import numpy as np
import pandas as pd

from lsvi.baselines import nuts
from lsvi.core.bbvi import families, kernel, optimizers
from lsvi.experiments import approximation_metrics as metrics
from lsvi.experiments import posteriordb_models as pm
from lsvi.experiments import rabvi_hmc_flows as hf
from lsvi.experiments import rabvi_hmc_flows_claims as hc
from lsvi.experiments import rabvi_posteriordb as rp
from lsvi.experiments.plotting import rabvi_hmc_flows as plotting

matplotlib.use("Agg")
jax.config.update("jax_enable_x64", True)


def _gauss_reference(mu, sd, n=4000, seed=0):
    x = np.random.default_rng(seed).normal(mu, sd, size=(n, len(mu)))
    s = x.std(0, ddof=1)
    return hf.Reference(x, x.mean(0), s, metrics.median_bandwidth(x, s))


def _logdensity(x):
    return -0.5 * jnp.sum(x**2 / jnp.array([1.0, 4.0]))


def test_nuts_path_costs_and_draws_are_samples():
    p = nuts.path(_logdensity, 2, 150, 300, seed=3)
    r = nuts.sample(_logdensity, 2, num_chains=1, num_warmup=150, num_draws=300, seed=3)
    assert p.positions.shape == (450, 2) and p.num_warmup == 150
    np.testing.assert_array_equal(p.positions[150:], r.positions[0])  # `sample`'s draws, unchanged
    assert p.cost[-1] - p.cost[149] == r.grad_evals  # sampling-phase leapfrog steps
    assert np.all(np.diff(p.cost) >= 1) and p.cost[0] >= 1  # every NUTS iteration takes ≥ 1 gradient


def test_hmc_estimate_at_a_cost_uses_post_warmup_draws_made_by_then():
    ref = _gauss_reference([0.0, 0.0], [1.0, 2.0])
    p = nuts.path(_logdensity, 2, 150, 300, seed=3)
    e, warm = hf.hmc_errors_at(p, p.cost[-1], ref)
    assert not warm and e == hf.draws_errors(p.positions[150:], ref)
    c = p.cost[150 + 99]  # after 100 draws
    e100, _ = hf.hmc_errors_at(p, c, ref, mmd=False)
    assert e100.mean_err == hf.draws_errors(p.positions[150:250], ref, mmd=False).mean_err
    _, warm = hf.hmc_errors_at(p, p.cost[100], ref, mmd=False)
    assert warm


def test_gaussian_errors_exact_moments_agree_with_draws():
    ref = _gauss_reference([1.0, -1.0], [1.0, 0.5])
    fam = families.meanfield(2)
    lam = fam.init(jnp.array([1.2, -1.0]), jnp.diag(jnp.array([0.5, 0.25]) ** 2))  # sds half the target's
    z = jax.random.normal(jax.random.PRNGKey(0), (20000, 2))
    exact = hf.vi_errors(fam, lam, z, ref)
    drawn = hf.draws_errors(np.asarray(fam.sample(lam, z)), ref)
    np.testing.assert_allclose(exact[:3], drawn[:3], atol=0.02)
    np.testing.assert_allclose(exact.sd_err, np.sqrt(2) * 0.5, atol=0.03)  # ‖σ̂/σ − 1‖ = √2 · ½
    # half-width 95 % intervals: coverage Φ(1.18) − Φ(−0.78) ≈ 0.66 (shifted by 0.2 sd) and ≈ 0.68: mean ≈ 0.28
    assert 0.25 < exact.undercoverage < 0.32
    same = hf.draws_errors(ref.draws, ref, mmd=False)
    assert same.mean_err < 1e-12 and same.sd_err < 1e-12 and same.undercoverage < 0.002


def test_rabvi_averages_are_notebook_42s_run():
    model = pm.build("gp_regr")
    ref = rp.unconstrained_reference(model)
    fam = families.meanfield(model.dim)
    bb = kernel.build(fam, model.logdensity, optimizers.get("avg_adam"), 10)
    warm = kernel.build(fam, model.logdensity, optimizers.get("rmsprop"), 10)
    key, lam0 = jax.random.PRNGKey(0), jnp.zeros(fam.num_params)
    curve = rp.rabvi_curve("RABVI MF", bb, fam, lam0, key, ref, k_max=800, warm_start=warm)
    its, lams, j = rp.rabvi_averages(bb, fam, lam0, key, k_max=800, warm_start=warm)
    np.testing.assert_array_equal(its, curve.iterations)
    me, se = rp.relative_errors(fam, lams, ref)
    np.testing.assert_allclose(me, curve.mean_err, rtol=1e-10)
    assert (None if j is None else its[j]) == curve.stop


def _synthetic_study():
    chain = nuts.ChainPath(np.zeros((30, 2)), np.arange(1, 31) * 100, 10, 0.5, 0.8, 0)
    paths = {"RABVI MF": hf._path("RABVI MF", [500, 1000, 2000], [hf.Errors(3, 3, 0.3, 0.3), hf.Errors(0.2, 1, 0.1, 0.01),
                                                                 hf.Errors(0.1, 1, 0.1, 0.01)], 1000.0),
             "HMC": hf._path("HMC", [100, 3000], [hf.Errors(1, 1, 0, 0)] * 2, 1000.0)}
    return {"name": "x", "short": "x", "dim": 2, "reference": None, "paths": paths, "hmc": chain}


def test_comparison_cost_is_the_first_of_trigger_and_hmc_end():
    s = _synthetic_study()
    assert hf.comparison_cost(s) == (1000.0, "RABVI MF trigger")
    s["paths"]["RABVI MF"] = s["paths"]["RABVI MF"]._replace(stop=5000.0)
    assert hf.comparison_cost(s) == (3000.0, "HMC final")
    s["paths"]["RABVI MF"] = s["paths"]["RABVI MF"]._replace(stop=None)
    assert hf.comparison_cost(s) == (2000.0, "RABVI MF final (no trigger)")


def _table(mf, fr, flow, hmc, post="arK"):
    rows = []
    for m, (me, se, uc, mmd) in zip(hf.METHODS, (mf, fr, flow, hmc)):
        rows.append(dict(posterior=post, d=2, method=m, cost=1e4, cost_set_by="RABVI MF trigger", own_stop=1e4,
                         mean_err=me, sd_err=se, undercoverage=uc, mmd2=mmd, before_first=False, in_warmup=False))
    return pd.DataFrame(rows)


def test_claims_follow_their_fixed_criteria():
    t = pd.concat([_table((0.1, 1, 0.1, 0.02), (0.1, 0.5, 0.05, 0.01), (0.2, 0.3, 0.0, 0.005), (0.1, 0.1, 0.0, 0.0)),
                   _table((0.5, 1, 0.1, 0.02), (0.5, 0.5, 0.05, 0.01), (0.5, 0.3, 0.0, 0.005), (0.1, 0.1, 0.0, 0.0),
                          post="sblrc")])
    rows = {c["id"]: c for c in hc.all_claims(t, assessable=True)}
    assert rows["fig10_mean_arK"]["passed"] and rows["fig10_mean_sblrc"]["passed"]  # sblrc: the exception, ratio 5
    assert not rows["fig10_mean_overall"]["assessable"]  # 1 non-exception posterior < 3
    assert rows["fig10_sd_arK"]["passed"] and rows["c17_mmd_arK"]["passed"]
    assert rows["c18_no_undercover_arK"]["passed"] and rows["c18_undercover_mf"]["passed"]
    t2 = _table((0.2, 1, 0.1, 0.02), (0.1, 0.05, 0.0, -0.001), (0.2, 0.3, 0.05, 0.005), (0.1, 0.1, 0.0, 0.0))
    rows = {c["id"]: c for c in hc.all_claims(t2, assessable=False)}
    assert not rows["fig10_mean_arK"]["passed"]  # ratio 2 > 1.5
    assert not rows["fig10_sd_arK"]["passed"] and not rows["c17_mmd_arK"]["passed"]
    assert not rows["c18_no_undercover_arK"]["passed"] and not rows["c18_undercover_fr"]["passed"]
    assert not any(r["assessable"] for r in rows.values())


def test_figures_draw(tmp_path):
    t = _table((0.1, 1, 0.1, 0.02), (0.1, 0.5, 0.05, 0.01), (0.2, 0.3, 0.0, 0.005), (0.1, 0.1, 0.0, -1e-5))
    fig = plotting.equal_cost_bars(t)
    assert len(fig.axes) == 4 and len(fig.axes[3].patches) == 4 and len(fig.axes[0].lines) >= 4
    fig.savefig(tmp_path / "bars.png")
    fig = plotting.cost_curves({"x": _synthetic_study()})
    fig.savefig(tmp_path / "curves.png")
    assert (tmp_path / "curves.png").stat().st_size > 0
