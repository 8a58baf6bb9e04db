"""Tests of the Figs C.4 / C.5 / C.11 pieces of notebook 42 (RABVI): the eq. 21 posterior, q_* by sample-average ELBO,
and the claim builders driven to PASS, FAIL and NOT ASSESSABLE with synthetic inputs."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from lsvi.papers.rabvi import trigger_claims as tc
from lsvi.papers.rabvi import trigger_diagnostics as td
from lsvi.papers.rabvi.posteriordb_study import Curve

jax.config.update("jax_enable_x64", True)


def test_skl_posterior_centres_on_the_data():
    # δ_t = C (1/ρ − 1)² γ² exactly with C = 4: √C = 2; the interval contains it and narrows with more points
    g = 0.3 * 0.5 ** np.arange(1, 6)
    d = 4.0 * (1 / 0.5 - 1) ** 2 * g ** 2 * np.exp(np.array([0.1, -0.1, 0.05, -0.05, 0.0]))
    med, lo, hi = td.skl_posterior(g, d)
    assert lo < 2.0 < hi and abs(med - 2.0) < 0.3
    _, lo2, hi2 = td.skl_posterior(g[:2], d[:2])
    assert hi2 / lo2 > hi / lo


def test_optimal_meanfield_gaussian_target():
    # Gaussian target N(m, diag s²): the mean-field optimum is the target itself
    m, s = jnp.array([1.0, -2.0]), jnp.array([0.5, 3.0])

    class M:
        dim = 2

        @staticmethod
        def logdensity(x):
            return -0.5 * jnp.sum(((x - m) / s) ** 2)

    lam = td.optimal_meanfield(M, jax.random.PRNGKey(0), 4000)
    assert np.allclose(lam[:2], m, atol=0.1 * s.max())
    assert np.allclose(np.exp(lam[2:]), s, rtol=0.05)


def _study(short, real, est, err=0.01, trigger=True):
    row = {"gamma": 0.075, "iterations": 5000, "I_hat": 2.0, "real_sqrt_skl": real, "est_sqrt_skl": est,
           "lo": est / 10, "hi": est * 10, "trigger": trigger}
    return {"short": short, "qstar_error": err, "rows": [row]}


def test_trigger_claims_pass_fail_na():
    ok = {n: _study(n, 0.1, 0.12) for n in "abc"}
    a, b = tc.trigger_claims(ok)
    assert a["assessable"] and a["passed"] and b["assessable"] and b["passed"]
    bad = {n: _study(n, 0.5, 0.05) for n in "abc"}
    a, b = tc.trigger_claims(bad)
    assert a["assessable"] and not a["passed"] and b["assessable"] and not b["passed"]
    # q_* too inaccurate or no trigger: left out, fewer than 3 -> NOT ASSESSABLE
    na = {"a": _study("a", 0.1, 0.1), "b": _study("b", 0.1, 0.1, err=0.2), "c": _study("c", 0.1, 0.1, trigger=False)}
    a, b = tc.trigger_claims(na)
    assert not a["assessable"] and not b["assessable"] and "left out" in a["measured"]


def _curve(label, errs, stop_err):
    its = np.arange(1, len(errs) + 1) * 1000
    return Curve(label, its, np.asarray(errs, float), np.asarray(errs, float), 3000, stop_err, stop_err)


def _runs(rms_path, avgrms, avgadam, n_seeds=5, n_post=2):
    """avgAdam fires at 3000 (the third average); the alternatives' errors there: rms_path[2], avgrms."""
    rng = np.random.default_rng(0)
    out = {}
    for p in range(n_post):
        curves = {"RMSProp": [], "avgRMSProp": [], "avgAdam": []}
        for _ in range(n_seeds):
            e = np.exp(0.05 * rng.standard_normal(3))
            curves["RMSProp"].append(_curve("RMSProp", np.array(rms_path) * e[0], np.nan))
            curves["avgRMSProp"].append(_curve("avgRMSProp", np.array([1, 0.5, avgrms, avgrms]) * e[1], np.nan))
            curves["avgAdam"].append(_curve("avgAdam", [1, 0.5, avgadam * e[2], 0.1], avgadam * e[2]))
        out[p] = {"short": f"p{p}", "curves": curves}
    return out


def test_optimizer_claims_pass():
    choice, rms = tc.optimizer_claims(_runs([1.0, 0.5, 0.4, 0.35], 0.2, 0.1))
    assert choice["assessable"] and choice["passed"]
    assert rms["assessable"] and rms["passed"]


def test_optimizer_claims_fail():
    choice, rms = tc.optimizer_claims(_runs([1.0, 0.5, 0.05, 0.01], 0.2, 0.1))
    assert choice["assessable"] and not choice["passed"]
    assert rms["assessable"] and not rms["passed"]


def test_optimizer_claims_not_assessable():
    choice, rms = tc.optimizer_claims(_runs([1, 0.5, 0.4, 0.35], 0.2, 0.1, n_seeds=3))
    assert not choice["assessable"] and not rms["assessable"]
    # equal errors: every interval contains 0 -> the seeds cannot order them; RMSProp's ratio straddling log 0.5
    choice, rms = tc.optimizer_claims(_runs([1, 0.5, 0.1, 0.05], 0.1, 0.1))
    assert not choice["assessable"] and "contains 0" in choice["note"]
    # one posterior only
    choice, _ = tc.optimizer_claims(_runs([1, 0.5, 0.4, 0.35], 0.2, 0.1, n_post=1))
    assert not choice["assessable"]
