"""`lsvi.fit`, the top-level API, and the README example that shows it (run here as printed)."""
import re
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import lsvi

README = Path(__file__).resolve().parents[1] / "README.md"


def readme_example() -> str:
    text = README.read_text()
    m = re.search(r"<!-- fit example: tests/test_api.py runs it -->\s*```python\n(.*?)```", text, re.S)
    assert m, "README lost its fit example"
    return m.group(1)


def test_the_readme_example_runs_and_recovers_its_gaussian_target():
    scope = {}
    exec(readme_example(), scope)  # noqa: S102  (our own README)
    result = scope["result"]
    assert result.algorithm == "alg3" and result.etas.shape[0] == 31
    np.testing.assert_allclose(result.mean, [1.0, -2.0], atol=0.05)
    np.testing.assert_allclose(result.cov, np.diag([1.0, 0.25]), atol=0.05)


def test_fit_mean_field_and_a_generic_family():
    d = 3
    m = jnp.array([0.5, -1.0, 2.0])
    res = lsvi.fit(lambda x: -0.5 * jnp.sum((x - m) ** 2), lsvi.families.gaussian_meanfield(d), 5000, 20, 2)
    assert res.algorithm == "alg2"
    np.testing.assert_allclose(res.mean, m, atol=0.05)
    np.testing.assert_allclose(res.cov, np.ones(d), rtol=0.1)
    # Algorithm 1 on a product of Bernoullis: the target is in the family, so one full step is exact
    fam = lsvi.families.bernoulli(d)
    logit = jnp.array([1.0, -1.0, 0.0])
    res = lsvi.fit(lambda g: g @ logit, fam, 200, 1, 1.0, batched=False,
                   eta0=jnp.concatenate([jnp.zeros(1), jnp.zeros(d)]))
    assert res.algorithm == "alg1"
    np.testing.assert_allclose(res.eta[1:], logit, atol=1e-8)
    with pytest.raises(ValueError, match="pass eta0"):
        lsvi.fit(lambda g: g @ logit, fam, 200, 1, 1.0)
    with pytest.raises(TypeError, match="schedule"):
        lsvi.fit(lambda x: -x @ x, lsvi.families.gaussian_fullcov(2), 100, 1, "harmonic")


def test_same_seed_same_numbers():
    f = lambda x: -0.5 * x @ x - 0.1 * x[0] ** 4
    a = lsvi.fit(f, lsvi.families.gaussian_fullcov(2), 500, 5, 3, seed=7)
    b = lsvi.fit(f, lsvi.families.gaussian_fullcov(2), 500, 5, 3, seed=7)
    c = lsvi.fit(f, lsvi.families.gaussian_fullcov(2), 500, 5, 3, seed=8)
    np.testing.assert_array_equal(a.etas, b.etas)
    assert not np.allclose(a.etas[-1], c.etas[-1])
    assert bool(jax.numpy.all(a.info.accepted))
