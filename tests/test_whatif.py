"""What-if runs (src/lsvi/pipeline/whatif.py, ``make whatif``): parameters parsed as YAML and checked against the
notebook's parameters cell, the output paths (never the committed results/<scale> or figures/<scale>), the report
and site marked as a what-if, and one real what-if of notebook 43 at the smoke scale with one parameter changed.

Everything is written under a temporary ``$LSVI_OUTPUT_ROOT``; the test checks that the committed
``results/smoke`` and ``figures/smoke`` are byte-for-byte and mtime-for-mtime untouched.
"""
from __future__ import annotations

import json
import subprocess

import pytest
from bs4 import BeautifulSoup

from lsvi.pipeline import fingerprint as fp
from lsvi.pipeline.claims import PASS, Claim, read_claims, write_claims
from lsvi.pipeline.config import STANDARD_PARAMS, load_config
from lsvi.pipeline.paths import repo_root
from lsvi.pipeline.whatif import (WhatIfError, check_name, check_params, default_name, main, parse_assignments,
                                  resolve_stem, run_whatif, split_params, whatif_config, whatif_paths)

ROOT = repo_root()
STEM = "43_rabvi_detection_ablations"  # the fastest notebook at smoke (about 15 s)


@pytest.fixture(scope="module")
def cfg():
    return load_config(ROOT / "config" / "scales.yaml", {"scale": "smoke"})


@pytest.fixture
def out_root(tmp_path, monkeypatch):
    monkeypatch.setenv("LSVI_OUTPUT_ROOT", str(tmp_path))
    return tmp_path


# --------------------------------------------------------------------------- parameters


def test_values_are_yaml():
    got = parse_assignments(split_params("reps=5 datasets=[pima,sonar] alphas=[0.5, 1.0] d={a: 1, b: [x, y]} "
                                         "lr=1e-3 on=true off=no none=null name=abc s='two words' empty="))
    assert got == {"reps": 5, "datasets": ["pima", "sonar"], "alphas": [0.5, 1.0], "d": {"a": 1, "b": ["x", "y"]},
                   "lr": 0.001, "on": True, "off": False, "none": None, "name": "abc", "s": "two words", "empty": ""}
    assert type(got["reps"]) is int and type(got["lr"]) is float
    assert parse_assignments(["g=[1e-3, 2]"]) == {"g": [0.001, 2]}
    assert list(got) == ["reps", "datasets", "alphas", "d", "lr", "on", "off", "none", "name", "s", "empty"]


@pytest.mark.parametrize("tokens, match", [
    (["reps"], "expected <name>=<value>"),
    (["=5"], "not a parameter name"),
    (["9x=5"], "not a parameter name"),
    (["reps=5", "reps=6"], "given twice"),
    (["reps=[1,"], "not valid YAML"),
    (["d={a: 1"], "not valid YAML"),
])
def test_bad_syntax_is_refused(tokens, match):
    with pytest.raises(WhatIfError, match=match):
        parse_assignments(tokens)


def test_unbalanced_quotes_are_refused():
    with pytest.raises(WhatIfError, match="cannot split PARAMS"):
        split_params("s='abc")


def test_unknown_and_standard_parameters_are_refused(cfg):
    with pytest.raises(WhatIfError, match=r"has no parameter 'bogus'.*declares: .*detection_steps"):
        check_params(cfg, STEM, {"detection_steps": 800, "bogus": 1})
    for p in STANDARD_PARAMS:
        with pytest.raises(WhatIfError, match="set by the what-if itself"):
            check_params(cfg, STEM, {p: "x"})
    assert check_params(cfg, STEM, {"detection_steps": 800, "detection_step_size": 1}) == []  # int for a float: fine
    (w,) = check_params(cfg, STEM, {"detection_steps": "many"})
    assert "detection_steps='many' is a str" in w


def test_notebook_by_stem_path_or_number(cfg):
    for nb in (STEM, f"notebooks/{STEM}.ipynb", f"{STEM}.ipynb", "43"):
        assert resolve_stem(cfg, nb) == STEM
    with pytest.raises(WhatIfError, match="unknown notebook '99_nothing'"):
        resolve_stem(cfg, "99_nothing")


def test_cli_errors_before_anything_runs(out_root, capsys):
    assert main([STEM, "bogus=1"]) == 2
    assert "has no parameter 'bogus'" in capsys.readouterr().err
    assert main([STEM, "--params", "detection_steps"]) == 2
    assert "expected <name>=<value>" in capsys.readouterr().err
    assert main([STEM, "--scale", "bogus"]) == 2
    assert "unknown scale 'bogus'" in capsys.readouterr().err
    assert main([STEM, "--name", "../smoke"]) == 2
    assert not any(out_root.iterdir())


# --------------------------------------------------------------------------- names and paths


def test_default_name_and_paths(cfg):
    p = parse_assignments(["detection_steps=800", "ablations={gamma0: [0.1, 0.5]}"])
    name = default_name(STEM, "smoke", p)
    assert name == f"{STEM}--smoke--detection_steps-800--ablations-gamma0_0.1_0.5"
    check_name(name)
    long = default_name(STEM, "cpu", {"detection_targets": ["identity", "diagonal", "uniform", "banded"] * 5})
    assert len(long) <= 100 and long != default_name(STEM, "cpu", {"detection_targets": ["identity"] * 20})
    for bad in ("../smoke", "a/b", "", ".hidden"):
        with pytest.raises(WhatIfError):
            check_name(bad)

    paths = whatif_paths("v1", STEM)
    assert paths == {"report": "results/whatif/v1", "results_dir": f"results/whatif/v1/{STEM}",
                     "figures_dir": "figures/whatif/v1"}
    w = whatif_config(cfg, STEM, "v1", p)
    assert list(w.notebooks) == [STEM]
    params = w.params(STEM)
    assert params == {**cfg.params(STEM), "results_dir": f"results/whatif/v1/{STEM}", "figures_dir": "figures/whatif/v1",
                      "detection_steps": 800, "ablations": {"gamma0": [0.1, 0.5]}}
    out = w.outputs(STEM)
    assert out["claims"] == f"results/whatif/v1/{STEM}/claims.csv"
    assert all(f.startswith("figures/whatif/v1/smoke/") for f in out["figures"]) and out["figures"]
    # the fingerprint records the what-if's parameters, not the scale's
    assert fp.inputs(w, STEM, "smoke")["params"] != fp.inputs(cfg, STEM, "smoke")["params"]
    assert {k: v for k, v in fp.inputs(w, STEM, "smoke").items() if k != "params"} == \
        {k: v for k, v in fp.inputs(cfg, STEM, "smoke").items() if k != "params"}


def test_whatif_dirs_are_git_ignored():
    for p in ("results/whatif/x/REPLICATION.md", f"results/whatif/x/{STEM}/claims.csv", "figures/whatif/x/smoke/a.png"):
        r = subprocess.run(["git", "check-ignore", "-q", "--no-index", p], cwd=ROOT)
        assert r.returncode == 0, f"{p} is not git-ignored"


def test_report_of_existing_rows_is_marked(cfg, out_root):
    """The report and site of a what-if, from rows already written (no notebook run)."""
    name = "fake"
    d = out_root / whatif_paths(name, STEM)["results_dir"]
    d.mkdir(parents=True)
    write_claims(d / "claims.csv", [Claim(id="x", source="Fig. 6", paper="p", measured="m", criterion="c", status=PASS,
                                          scale="smoke", notebook=STEM)])
    w = whatif_config(cfg, STEM, name, {"detection_steps": 800})
    fp.write(d, w, STEM, "smoke")
    res = run_whatif(STEM, {"detection_steps": 800}, "smoke", name, execute=False)
    md = res.report.read_text()
    assert md.startswith("# What-if report — scale `smoke`")
    assert f"- **What-if**: notebook `{STEM}` at scale `smoke` with parameters `detection_steps=800`" in md
    assert "make check-report" not in md
    soup = BeautifulSoup(res.site.read_text(), "html.parser")
    assert "detection_steps=800" in soup.find(id="whatif").get_text() and "What-if" in soup.title.get_text()
    assert "STALE" not in soup.find(id="stale").get_text()  # recorded with the what-if's parameters: current


# --------------------------------------------------------------------------- a real what-if


def test_a_real_whatif_at_smoke(cfg, out_root, capsys, snapshot):
    committed = snapshot(ROOT / "results" / "smoke", ROOT / "figures" / "smoke")
    assert committed
    name = "t43"
    assert main([STEM, "detection_steps=800", "--name", name]) == 0
    assert snapshot(ROOT / "results" / "smoke", ROOT / "figures" / "smoke") == committed
    assert not (ROOT / "results" / "whatif" / name).exists() and not (ROOT / "figures" / "whatif" / name).exists()

    report = out_root / "results" / "whatif" / name
    nb_dir = report / STEM
    md = (report / "REPLICATION.md").read_text()
    assert md.startswith("# What-if report")
    assert f"- **What-if**: notebook `{STEM}` at scale `smoke` with parameters `detection_steps=800`" in md
    assert "Notebooks: 1 OK, 0 FAILED, 0 MISSING (of 1 listed)" in md
    executed = (nb_dir / "executed.ipynb").read_text()
    assert "detection_steps = 800" in executed  # papermill's injected parameters
    assert f'results_dir = \\"results/whatif/{name}/{STEM}\\"' in executed

    rows = read_claims(report / "claims.csv")
    own = read_claims(nb_dir / "claims.csv")
    assert rows and {c.notebook for c in rows} == {STEM} and {c.scale for c in rows} == {"smoke"}
    assert [c.id for c in rows] == [c.id for c in own] and len({c.id for c in rows}) == len(rows)
    assert not any(c.id.endswith((":FAILED", ":MISSING")) for c in rows)
    # detection_steps changes no claim id: where the committed smoke report of this notebook is current (its
    # recorded inputs, parameters aside, are the working tree's), the what-if has the same ids
    committed_fp = json.loads((ROOT / "results" / "smoke" / fp.FINGERPRINTS).read_text()).get(STEM) \
        if (ROOT / "results" / "smoke" / fp.FINGERPRINTS).is_file() else None
    if committed_fp and fp.changed(committed_fp, fp.inputs(cfg, STEM, "smoke")) == []:
        assert {c.id for c in rows} == {c.id for c in read_claims(ROOT / "results" / "smoke" / "claims.csv")
                                        if c.notebook == STEM}

    # the pipeline's records: fingerprint (with the what-if's parameters), figures, benchmark, whatif.json
    w = whatif_config(cfg, STEM, name, {"detection_steps": 800})
    assert fp.read(nb_dir / fp.FINGERPRINT)["inputs"] == fp.inputs(w, STEM, "smoke")
    assert STEM in json.loads((report / fp.FINGERPRINTS).read_text())
    for f in cfg.notebooks[STEM].figures:
        assert (out_root / "figures" / "whatif" / name / "smoke" / f"{f}.png").is_file()
    rec = json.loads((report / "whatif.json").read_text())
    assert rec["notebook"] == STEM and rec["parameters"] == {"detection_steps": 800} and rec["scale"] == "smoke"
    assert not (nb_dir / "failed.ipynb").exists() and not (nb_dir / "executed.tmp.ipynb").exists()

    soup = BeautifulSoup((report / "site" / "index.html").read_text(), "html.parser")
    assert "detection_steps=800" in soup.find(id="whatif").get_text()
    assert soup.find(id=f"nb-{STEM}") is not None and (report / "site" / "notebooks" / f"{STEM}.html").is_file()
    assert "STALE" not in soup.find(id="stale").get_text()

    # a failing notebook: a clear error, failed.ipynb kept, the report lists it FAILED
    capsys.readouterr()
    assert main([STEM, "detection_targets=[no_such_target]", "--name", "t43_fail"]) == 1
    err = capsys.readouterr().err
    assert f"FAILED: notebooks/{STEM}.ipynb failed: " in err and "failed.ipynb" in err
    bad = out_root / "results" / "whatif" / "t43_fail"
    assert (bad / STEM / "failed.ipynb").is_file() and not (bad / STEM / "executed.ipynb").exists()
    assert not (bad / STEM / "fingerprint.json").exists()
    assert "**FAILED**" in (bad / "REPLICATION.md").read_text()
    assert snapshot(ROOT / "results" / "smoke", ROOT / "figures" / "smoke") == committed
