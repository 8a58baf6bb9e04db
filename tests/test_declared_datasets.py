"""Logistic-regression data sets by declaration (src/lsvi/data/declared_datasets.py, config/datasets/):
a declaration builds the same design as the project's own builder of that table, bad declarations are refused with a
message that names the problem, `lsvi.papers.lsvi.logistic.problem` sets a declared data set up as Appendix C.2 does
the paper's, the fingerprint of a run counts the declaration it reads, and a what-if runs Figure 1's comparison
(notebook 20) on a data set declared outside the repository, at smoke, without touching the committed outputs.
"""
from __future__ import annotations

import hashlib
import json
import os

import numpy as np
import pytest
import yaml

from lsvi.data import datasets, declared_datasets as dd
from lsvi.papers.lsvi import logistic
from lsvi.pipeline import fingerprint as fp
from lsvi.pipeline.claims import read_claims
from lsvi.pipeline.config import load_config
from lsvi.pipeline.paths import repo_root
from lsvi.pipeline.whatif import main as whatif_main, whatif_config

ROOT = repo_root()
EXAMPLE = ROOT / "config" / "datasets" / "breast_cancer.yaml"


def declaration(tmp_path, **changes):
    """The committed example with ``changes``, written to ``tmp_path/<name>.yaml``; returns the path."""
    d = {**yaml.safe_load(EXAMPLE.read_text()), **changes}
    p = tmp_path / f"{d['name']}.yaml"
    p.write_text(yaml.safe_dump(d))
    return p


def test_the_example_builds_the_table_as_the_projects_own_builder():
    """config/datasets/breast_cancer.yaml against `datasets.build_breast` (written by hand for notebook 52)."""
    decl = dd.read("breast_cancer")
    ds, ref = dd.build(decl), datasets.build("breast")
    assert ds.X.shape == (569, 31) and ds.columns[0] == "intercept"
    np.testing.assert_array_equal(ds.X, ref.X)
    np.testing.assert_array_equal(ds.y, ref.y)
    assert ds.meta["declaration_sha256"] == hashlib.sha256(EXAMPLE.read_bytes()).hexdigest()
    assert "breast_cancer" in dd.available()


@pytest.mark.parametrize("changes, match", [
    ({"family": "diagonal"}, "family 'diagonal' not among"),
    ({"preprocessing": "zscore"}, "preprocessing 'zscore' not among"),
    ({"colour": "red"}, r"unknown key\(s\) \['colour'\]"),
    ({"response": {"column": -1}}, "response must be"),
    ({"source": {"package": "scikit-learn", "path": "x.csv", "sha256": "0" * 64}}, "source must be"),
    ({"source": {"file": "x.csv", "sha256": "abc"}}, "64 hex digits"),
    ({"predictors": []}, "predictors must be"),
    ({"init_var": -1.0}, "init_var must be a positive number"),
    ({"batch_size": 0}, "batch_size must be null or a positive integer"),
    ({"table": {"sep": ","}}, r"table option\(s\) \['sep'\]"),
])
def test_malformed_declarations_are_refused_with_the_reason(tmp_path, changes, match):
    with pytest.raises(dd.DeclarationError, match=match):
        dd.read(str(declaration(tmp_path, **changes)))


def test_missing_keys_and_unknown_names_are_refused(tmp_path):
    p = tmp_path / "bare.yaml"
    p.write_text("name: bare\nfamily: fullcov\n")
    with pytest.raises(dd.DeclarationError, match=r"missing key\(s\) \['licence', 'source', 'response'\]"):
        dd.read(str(p))
    with pytest.raises(dd.DeclarationError, match="no data-set declaration 'no_such_table'.*breast_cancer"):
        dd.read("no_such_table")
    with pytest.raises(ValueError, match="unknown logistic-regression data set 'no_such_table'.*pima.*breast_cancer"):
        logistic.problem("no_such_table")
    with pytest.raises(ValueError, match="has no Appendix C.2 set-up"):
        logistic.problem("breast")  # a table of `datasets` without a set-up: declare it


def test_a_committed_file_source_is_checked_and_read(tmp_path):
    """A table given as a file (as one committed to data/): read with its options, sha256 checked; a response with
    one class, or a response column outside the table, is refused."""
    rng = np.random.default_rng(0)
    table = np.column_stack([rng.normal(size=(40, 3)), rng.integers(0, 2, 40), (rng.random(40) < 0.5).astype(int)])
    csv = tmp_path / "t.csv"
    np.savetxt(csv, table, delimiter=";", header="a;b;c;flag;label", comments="")
    sha = datasets.sha256_file(csv)
    p = declaration(tmp_path, name="tiny", source={"file": str(csv), "sha256": sha},
                    table={"delimiter": ";", "skiprows": 1}, response={"column": 4, "positive": 1})
    ds = dd.build(dd.read(str(p)))
    assert ds.X.shape == (40, 5)  # intercept + 4 predictors
    np.testing.assert_array_equal(ds.y, np.where(table[:, 4] == 1, 1.0, -1.0))
    # App. C.2 rescaling: the binary predictor centred with range 1, the others sd 0.5
    Xu = ds.X_unflipped
    assert np.allclose(Xu[:, 1:4].std(axis=0), 0.5) and np.isclose(np.ptp(Xu[:, 4]), 1.0)
    assert np.allclose(Xu[:, 1:].mean(axis=0), 0.0)

    bad = declaration(tmp_path, name="tiny_sha", source={"file": str(csv), "sha256": "0" * 64},
                      table={"delimiter": ";", "skiprows": 1}, response={"column": 4, "positive": 1})
    with pytest.raises(dd.DeclarationError, match="checksum mismatch"):
        dd.build(dd.read(str(bad)))
    one = declaration(tmp_path, name="tiny_one", source={"file": str(csv), "sha256": sha},
                      table={"delimiter": ";", "skiprows": 1}, response={"column": 4, "positive": 7})
    with pytest.raises(dd.DeclarationError, match="both classes are needed"):
        dd.build(dd.read(str(one)))
    out = declaration(tmp_path, name="tiny_col", source={"file": str(csv), "sha256": sha},
                      table={"delimiter": ";", "skiprows": 1}, response={"column": 9, "positive": 1})
    with pytest.raises(dd.DeclarationError, match="outside the table's 5 columns"):
        dd.build(dd.read(str(out)))
    # predictors: an index outside -5..4 is refused, never wrapped onto another column (99 % 5 == 4 would be the
    # response; 6 % 5 == 1 a real column), nor a repeated or negative-aliased column, nor the response itself
    for preds in ([0, 1, 6], [0, 1, 99], [0, -6], [0, 0], [0, -5], [0, 4]):
        p = declaration(tmp_path, name="tiny_preds", source={"file": str(csv), "sha256": sha},
                        table={"delimiter": ";", "skiprows": 1}, response={"column": 4, "positive": 1},
                        predictors=preds)
        with pytest.raises(dd.DeclarationError, match=r"must be distinct columns of the table \(-5..4\)"):
            dd.build(dd.read(str(p)))
    ok = declaration(tmp_path, name="tiny_neg", source={"file": str(csv), "sha256": sha},
                     table={"delimiter": ";", "skiprows": 1}, response={"column": 4, "positive": 1},
                     predictors=[0, -2])  # -2 is column 3 (the binary flag)
    assert dd.build(dd.read(str(ok))).columns[1:] == ("column00", "column03")


def test_problem_sets_a_declared_data_set_up_as_appendix_c2(tmp_path):
    prob = logistic.problem("breast_cancer", family="fullcov")
    assert prob.d == 31 and prob.family.num_params == 1 + 31 + 31 * 32 // 2
    np.testing.assert_array_equal(np.asarray(prob.prior_var), [400.0] + [25.0] * 30)
    beta = np.linspace(-0.1, 0.1, 31)
    ref = datasets.build("breast").X
    v = np.asarray(prob.prior_var)
    expected = -np.logaddexp(0.0, -ref @ beta).sum() - 0.5 * np.sum(beta ** 2 / v + np.log(2 * np.pi * v))
    assert np.isclose(float(prob.logdensity(beta)), expected, rtol=1e-12)
    with pytest.raises(ValueError, match="set up with the fullcov family.*runs meanfield methods"):
        logistic.problem("breast_cancer", family="meanfield")
    mf = declaration(tmp_path, name="breast_mf", family="meanfield", init_var=0.5)
    prob = logistic.problem(str(mf), family="meanfield")
    assert prob.name == "breast_mf" and prob.meanfield and prob.family.num_params == 1 + 2 * 31


def test_a_runs_fingerprint_counts_the_declaration_it_reads(tmp_path):
    cfg = load_config(ROOT / "config" / "scales.yaml", {"scale": "smoke"})
    stem = "20_pima"
    assert not any(k.startswith("config/datasets/") for k in fp.inputs(cfg, stem, "smoke"))
    w = whatif_config(cfg, stem, "v", {"dataset": "breast_cancer"})
    inp = fp.inputs(w, stem, "smoke")
    assert inp["config/datasets/breast_cancer.yaml"] == hashlib.sha256(EXAMPLE.read_bytes()).hexdigest()
    p = declaration(tmp_path, name="mine")
    inp = fp.inputs(whatif_config(cfg, stem, "v", {"dataset": str(p)}), stem, "smoke")
    assert inp[os.path.relpath(p, ROOT)] == hashlib.sha256(p.read_bytes()).hexdigest()


def test_figure_1_on_a_data_set_declared_outside_the_repository(tmp_path, monkeypatch, snapshot):
    """The issue's acceptance test: a user declares scikit-learn's breast-cancer table in a file of their own and
    runs notebook 20 (Figure 1's comparison) on it through the what-if command, at smoke; the what-if report holds
    the notebook's rows and figure, and results/smoke, figures/smoke are untouched."""
    out_root = tmp_path / "out"
    monkeypatch.setenv("LSVI_OUTPUT_ROOT", str(out_root))
    decl = declaration(tmp_path, name="my_breast_cancer")
    committed = snapshot(ROOT / "results" / "smoke", ROOT / "figures" / "smoke")
    name = "breast_fig1"
    assert whatif_main(["20_pima", f"dataset={decl}", "--name", name]) == 0
    assert snapshot(ROOT / "results" / "smoke", ROOT / "figures" / "smoke") == committed

    report = out_root / "results" / "whatif" / name
    md = (report / "REPLICATION.md").read_text()
    assert md.startswith("# What-if report") and f"dataset={decl}" in md
    executed = (report / "20_pima" / "executed.ipynb").read_text()
    assert "my_breast_cancer: n = 569, d = 31" in executed
    rows = read_claims(report / "claims.csv")
    assert rows and {c.notebook for c in rows} == {"20_pima"}
    assert not any(c.id.endswith((":FAILED", ":MISSING")) for c in rows)
    assert (out_root / "figures" / "whatif" / name / "smoke" / "fig01_pima.png").is_file()
    rec = json.loads((report / "whatif.json").read_text())
    assert rec["parameters"] == {"dataset": str(decl)}
    inputs = fp.read(report / "20_pima" / fp.FINGERPRINT)["inputs"]
    assert inputs[os.path.relpath(decl, ROOT)] == hashlib.sha256(decl.read_bytes()).hexdigest()
