"""Posteriors by declaration (lsvi.papers.rabvi.declared_posteriors; issue 30, item 2): the committed example equals
Table C.1's built-in entry; a user's own model ("package.module:function") with its own data and reference runs
through the same functions; bad declarations are refused with the reason; a declaration a parameter names is a
fingerprinted input."""
import dataclasses
import hashlib
import json
import sys
import textwrap

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from lsvi.papers.rabvi import declared_posteriors as dp
from lsvi.papers.rabvi import posteriordb as pdb
from lsvi.papers.rabvi import posteriordb_models as pm
from lsvi.pipeline.config import load_config
from lsvi.pipeline.fingerprint import inputs
from lsvi.pipeline.paths import repo_root

EXAMPLE = "eight_schools_nc_declared"


def test_the_committed_example_equals_table_c1s_entry():
    p = pdb.posterior(EXAMPLE)
    assert p.declaration is not None and p.reference_kind == "draws" and p.table_dim == 10
    ours, builtin = pm.build(EXAMPLE), pm.build("8schools_nc")
    assert ours.dim == builtin.dim == 10 and ours.names == builtin.names
    theta = jax.random.normal(jax.random.PRNGKey(0), (5, ours.dim))
    np.testing.assert_array_equal(jax.vmap(ours.logdensity)(theta), jax.vmap(builtin.logdensity)(theta))
    a, b = pdb.reference_moments(EXAMPLE), pdb.reference_moments("8schools_nc")
    assert a.names == b.names
    np.testing.assert_array_equal(a.mean, b.mean)
    np.testing.assert_array_equal(a.sd, b.sd)


def _user_posterior(tmp_path, monkeypatch, *, reference=True, model="user_model_mod:build"):
    """A user's own posterior: y_i ~ N(mu, 1), mu ~ N(0, 10²), in a module on sys.path, data and draws in tmp_path."""
    (tmp_path / "user_model_mod.py").write_text(textwrap.dedent('''
        import jax.numpy as jnp

        def build(data):
            y = jnp.asarray(data["y"], float)
            def logdensity(theta):
                return -0.5 * jnp.sum((y - theta[0]) ** 2) - 0.5 * (theta[0] / 10.0) ** 2
            return 1, ["mu"], logdensity, lambda t: t, lambda x: jnp.asarray(x, float)
    '''))
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("user_model_mod", None)
    y = np.random.default_rng(0).normal(1.0, 1.0, 20)
    (tmp_path / "data.json").write_text(json.dumps({"N": 20, "y": y.tolist()}))
    post_mean, post_sd = y.sum() / (20 + 0.01), 1 / np.sqrt(20 + 0.01)
    draws = np.random.default_rng(1).normal(post_mean, post_sd, (2, 500))
    (tmp_path / "draws.json").write_text(json.dumps([{"mu": c.tolist()} for c in draws]))
    sha = lambda f: hashlib.sha256((tmp_path / f).read_bytes()).hexdigest()  # noqa: E731
    ref = (f"reference:\n  draws: {{file: {tmp_path / 'draws.json'}, sha256: {sha('draws.json')}}}\n"
           if reference else "")
    decl = tmp_path / "normal_mean.yaml"
    decl.write_text(f"name: normal_mean\nlicence: CC0\nmodel: {model}\n"
                    f"data: {{file: {tmp_path / 'data.json'}, sha256: {sha('data.json')}}}\n" + ref)
    return decl, post_mean, post_sd


def test_a_users_own_model_data_and_reference(tmp_path, monkeypatch):
    decl, post_mean, post_sd = _user_posterior(tmp_path, monkeypatch)
    m = pm.build(str(decl))
    assert m.dim == 1 and m.names == ["mu"]
    g = jax.grad(m.logdensity)(jnp.array([post_mean]))
    assert abs(float(g[0])) < 1e-9  # the posterior mode of the conjugate model
    mom = pdb.reference_moments(str(decl))
    assert mom.source == "draws" and abs(mom.mean[0] - post_mean) < 4 * post_sd / np.sqrt(1000) * 3
    assert pdb.posterior(str(decl)).short == "normal_mean"


def test_without_a_reference_the_posterior_has_none(tmp_path, monkeypatch):
    decl, *_ = _user_posterior(tmp_path, monkeypatch, reference=False)
    assert not pdb.has_reference_draws(str(decl))
    with pytest.raises(LookupError, match="no reference"):
        pdb.load_reference(str(decl))


@pytest.mark.parametrize("change, message", [
    (lambda s: s.replace("licence: CC0\n", ""), r"missing key\(s\) \['licence'\]"),
    (lambda s: s + "colour: blue\n", r"unknown key\(s\) \['colour'\]"),
    (lambda s: s.replace("sha256: ", "sha256: 12", 1), "64 hex digits"),
    (lambda s: s.replace("user_model_mod:build", "user_model_mod:nothing"), "cannot import model"),
    (lambda s: s.replace("user_model_mod:build", "not_a_translation"), "neither a translated posteriordb model"),
])
def test_bad_declarations_are_refused_with_the_reason(tmp_path, monkeypatch, change, message):
    decl, *_ = _user_posterior(tmp_path, monkeypatch)
    decl.write_text(change(decl.read_text()))
    with pytest.raises((dp.PosteriorDeclarationError, ValueError), match=message):
        pm.build(str(decl))


def test_a_changed_data_file_is_refused(tmp_path, monkeypatch):
    decl, *_ = _user_posterior(tmp_path, monkeypatch)
    (tmp_path / "data.json").write_text(json.dumps({"N": 1, "y": [0.0]}))
    with pytest.raises(ValueError, match="checksum mismatch"):
        pm.build(str(decl))


def test_an_unknown_name_lists_table_c1_and_the_declarations():
    with pytest.raises(KeyError, match=f"neither one of Table C.1's posteriors.*{EXAMPLE}"):
        pdb.posterior("no_such_posterior")


def test_a_declaration_a_parameter_names_is_a_fingerprinted_input():
    cfg = load_config()
    stem = "42_rabvi_posteriordb"
    base = inputs(cfg, stem, "smoke")
    nb = cfg.notebooks[stem]
    params = {**nb.params, "smoke": {**nb.params.get("smoke", {}), "fig8_models": [EXAMPLE]}}
    cfg = dataclasses.replace(cfg, notebooks={**cfg.notebooks, stem: dataclasses.replace(nb, params=params)})
    with_decl = inputs(cfg, stem, "smoke")
    key = f"config/posteriors/{EXAMPLE}.yaml"
    assert key not in base and key in with_decl
    assert with_decl[key] == hashlib.sha256((repo_root() / key).read_bytes()).hexdigest()
