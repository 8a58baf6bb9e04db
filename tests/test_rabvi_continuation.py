"""The learning rate after RABVI's stop (`next_epoch_after_stop`) is the epoch the rule-off run (τ = ∞) makes there:
the continuation behind the stop-quality rows of notebooks 40 and 41."""
import warnings

import jax
import jax.numpy as jnp
import numpy as np

from lsvi.core import targets
from lsvi.core.bbvi import families, kernel, optimizers, rabvi
from lsvi.papers.rabvi import gaussian as rg


def test_next_epoch_equals_the_rule_off_run():
    d = 3
    V = rg.covariance("banded", d)
    fam = families.meanfield(d)
    bb = kernel.build(fam, targets.gaussian_logdensity(jnp.asarray(np.linalg.inv(V))), optimizers.avg_adam(), 10)
    key = jax.random.PRNGKey(4)
    res = rabvi.rabvi(bb, fam, jnp.zeros(2 * d), key, r=1.0, k_max=40_000)
    assert res.terminated
    nxt = rg.next_epoch_after_stop(bb, fam, res, key, k_max=40_000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        off = rabvi.rabvi(bb, fam, jnp.zeros(2 * d), key, r=1.0, tau=np.inf, k_max=res.iterations + nxt.iterations)
    t = len(res.epochs)
    for a, b in zip(res.epochs, off.epochs):  # the rule-off run is the same run up to the stop ...
        np.testing.assert_array_equal(a.position, b.position)
    assert off.epochs[t].iterations == nxt.iterations and nxt.success  # ... and its next epoch is the continuation
    np.testing.assert_allclose(off.epochs[t].position, nxt.position, rtol=0, atol=0)
    s = rg.next_summary(nxt, fam, rg.q_star(fam, V))
    assert s["success"] and s["iterations"] == nxt.iterations and 0 < s["sqrt_skl"] < 1


def test_no_continuation_without_a_stop():
    res = rabvi.RabviResult(np.zeros(2), False, True, 100, [])
    assert rg.next_epoch_after_stop(None, families.meanfield(1), res, jax.random.PRNGKey(0), k_max=10) is None
    assert rg.next_summary(None, None, None) is None
