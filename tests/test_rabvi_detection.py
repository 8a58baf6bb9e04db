"""Stationarity detectors of Fig. 6 (lsvi.core.bbvi.detection): each fires after the change from a drift to iid
noise and not before; the adaptive rule reproduces FASO's detection."""
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from lsvi.core import targets
from lsvi.core.bbvi import detection, faso, families, kernel, optimizers
from test_chain_diagnostics import arviz_statistics


def drift_then_noise(change=1000, total=4000, p=6, slope=0.01, seed=0):
    """(total, p): a linear drift of `slope` per iteration up to `change`, then iid N(0, 1) around the end point."""
    rng = np.random.default_rng(seed)
    k = np.arange(total)[:, None]
    return np.minimum(k, change) * slope * np.ones((1, p)) + rng.standard_normal((total, p))


def arviz_split_rhat(window):
    """ArviZ's split-R̂ of each column: the reference of `chain_diagnostics.split_rhat` (its tests' helper)."""
    return arviz_statistics(window)[0]


def test_fixed_rhat_fires_after_the_change_and_its_window_passes_arviz():
    x = drift_then_noise()
    t = detection.fixed_rhat(x, window=800)
    assert t.k is not None and 1000 < t.k <= 2500 and t.window == 800
    assert np.max(arviz_split_rhat(x[t.k - 800:t.k])) <= 1.1  # ArviZ on that window agrees
    assert np.max(arviz_split_rhat(x[t.k - 900:t.k - 100])) > 1.1  # and the previous check did not pass
    assert detection.fixed_rhat(x[:1000], window=800).k is None  # the drift alone never passes


def test_adaptive_rhat_fires_after_the_change_with_a_mostly_stationary_window():
    x = drift_then_noise()
    t = detection.adaptive_rhat(x, w_min=200)
    assert t.k is not None and t.k > 1000
    assert t.k - t.window >= 800  # at most a fifth of the drift inside the window
    assert detection.adaptive_rhat(x[:1000], w_min=200).k is None


def test_adaptive_rhat_reproduces_faso_detection():
    d = 3
    fam = families.meanfield(d)
    bb = kernel.build(fam, targets.gaussian_logdensity(jnp.eye(d)), optimizers.get("avg_adam"), 10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        res = faso.faso(bb, jnp.full(2 * d, 2.0), 0.1, jax.random.PRNGKey(0), r=1.0, k_max=3000, meanfield_dim=d)
    assert res.k_conv is not None
    t = detection.adaptive_rhat(res.trace, w_min=200)
    assert t.k - t.window == res.k_conv


def sgd_quadratic(gamma=0.01, start=30.0, total=6000, seed=0):
    """SGD on ½‖λ‖² with N(0, 1) gradient noise: positions (total + 1, 2)."""
    rng = np.random.default_rng(seed)
    lam = np.empty((total + 1, 2))
    lam[0] = start
    for k in range(total):
        lam[k + 1] = lam[k] - gamma * (lam[k] + rng.standard_normal(2))
    return lam


def test_sasa_statistic_is_centred_at_stationarity_and_positive_in_the_transient():
    lam = sgd_quadratic()
    delta = detection.sasa_statistic(lam, 0.01)
    assert delta.shape == (6000,)
    assert delta[:200].mean() > 100  # 2⟨λ, λ⟩ ≫ 0 far from the optimum
    tail = delta[2000:]
    assert abs(tail.mean()) < 4 * tail.std() / np.sqrt(detection._ess(tail))


def test_adaptive_sasa_fires_after_the_transient():
    lam = sgd_quadratic()
    t = detection.adaptive_sasa(detection.sasa_statistic(lam, 0.01), n_min=100)
    assert t.k is not None and 400 <= t.k <= 5000  # |λ_400| ≈ 30·0.99^400 ≈ 0.5 ≫ stationary sd 0.07


def test_delta_elbo_follows_stans_buffer_rule():
    elbo = np.array([-1000, -900, -800, -700, -600] + [-500] * 20, float)
    # Stan's buffer: 1 (from ELBO_{-1} = 0), 0.111, 0.125, 0.143, 0.167, 0.2, then zeros; size 10: the median first
    # drops below 0.01 at j = 11 (6 zeros), the mean is still 0.063 there
    assert detection.delta_elbo(elbo, eval_every=100).k == 1200
    assert detection.delta_elbo(-1000 * 0.8 ** np.arange(30.0)).k is None  # 20 % changes forever


def test_distance_rule_fires_in_the_first_flat_geometric_interval():
    k = np.arange(4001)
    lam = np.minimum(k, 1000)[:, None] * np.ones((1, 3)) * 0.01
    lam[1001:] += 1e-4 * np.random.default_rng(0).standard_normal((3000, 3))
    t = detection.distance_rule(lam)
    assert t.k == int(np.ceil(1.5 ** 18))  # interval [985, 1478]: the first whose end is past the change
    assert detection.distance_rule(lam[:1001]).k is None  # Ω ∝ k²: slope 2 throughout the drift
