"""Aggregation of the notebooks' claims into claims.csv and REPLICATION.md (src/lsvi/report.py)."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from lsvi.pipeline import fingerprint as fp
from lsvi.pipeline.claims import FAIL, NOT_ASSESSABLE, PASS, claim, read_claims, write_claims
from lsvi.pipeline.config import load_config
from lsvi.pipeline.paths import repo_root
from lsvi.pipeline.report import OK, check_report, collect, main, rows_origin, source_kind, write_report

CONFIG = """
scale: smoke
scales: {smoke: quick, cpu: reduced}
notebooks:
  10_alpha: {figures: [fig01_alpha]}
  11_beta: {}
  12_gamma: {}
  13_delta: {}
"""
HW = {"platform": "test-os", "cpu": "test-cpu (2 logical cores)", "jax devices": "cpu:cpu"}


def setup_results(tmp_path: Path) -> Path:
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "scales.yaml").write_text(CONFIG)
    res = tmp_path / "results" / "smoke"
    write_claims(res / "10_alpha" / "claims.csv", [
        claim("fig1-slope", "Fig. 1", -1.0, -0.98, "|slope + 1| < 0.2", True),
        claim("table2-pima-d", "Table 2", 9, 9, "equal", True),
    ], scale="smoke", notebook="10_alpha")
    write_claims(res / "11_beta" / "claims.csv", [
        claim("thm34-rate", "Thm 3.4", 0.5, 0.71, "|rate - 0.5| < 0.1", False, note="seed 0"),
        claim("sec5-speed", "Section 5", "faster", "faster", "equal", True),
        claim("translation-x", "Table C.1", "-", "z = 0.3", "|z| < 3", True, kind="reference"),
        # the same id as in 10_alpha: claims are identified by (notebook, id)
        claim("fig1-slope", "Fig. 1", -1.0, -0.5, "|slope + 1| < 0.2 over >= 4 sizes", True,
              assessable=False, note="two sizes only"),
    ], scale="smoke", notebook="11_beta")
    # 12_gamma never ran; 13_delta failed (the pipeline keeps failed.ipynb)
    (res / "13_delta").mkdir(parents=True)
    (res / "13_delta" / "failed.ipynb").write_text("{}")
    return res


def test_aggregate_counts_and_missing(tmp_path):
    res = setup_results(tmp_path)
    n = write_report(res, tmp_path / "config" / "scales.yaml", hardware=HW)
    # the headline counts the papers' statements (kind "paper") only: the reference row is counted apart
    assert n == {"claims": 6, "paper_claims": 5, "pass": 3, "fail": 1, "not_assessable": 1, "ok": 2, "failed": 1,
                 "missing": 1}

    rows = read_claims(res / "claims.csv")
    assert [r.id for r in rows] == ["fig1-slope", "table2-pima-d", "thm34-rate", "sec5-speed", "translation-x",
                                    "fig1-slope", "12_gamma:MISSING", "13_delta:FAILED"]
    assert [r.status for r in rows] == [PASS, PASS, FAIL, PASS, PASS, NOT_ASSESSABLE, FAIL, FAIL]
    assert [r.kind for r in rows].count("reference") == 1
    assert {r.scale for r in rows} == {"smoke"}
    assert rows[2].notebook == "11_beta" and rows[2].note == "seed 0"

    md = (res / "REPLICATION.md").read_text()
    assert "scale `smoke`" in md and "test-cpu (2 logical cores)" in md and "cpu:cpu" in md
    assert ("**5 statements of the papers: 3 PASS, 1 FAIL, 1 NOT ASSESSABLE at this scale.** "
            "Notebooks: 2 OK, 1 FAILED, 1 MISSING (of 4 listed).") in md
    # the rows of every kind, per paper (1x: LSVI)
    assert "| LSVI | 3 / 1 / 1 | 0 / 0 / 0 | 0 / 0 / 0 | 0 / 0 / 0 | 1 / 0 / 0 | 6 |" in md
    assert "`12_gamma` | **MISSING**" in md and "`13_delta` | **FAILED**" in md
    assert "Failing claims: `11_beta:thm34-rate`" in md
    assert "Not assessable at this scale: `11_beta:fig1-slope`" in md
    # the figure of 10_alpha was never written: reported as missing
    assert "figures/smoke/fig01_alpha.pdf" in md
    # grouped by source kind, in this order, each claim once
    heads = [line for line in md.splitlines() if line.startswith("## ")]
    assert heads == ["## Summary", "## Notebooks", "## Figures", "## Tables", "## Theorems", "## Other"]
    assert "### Thm 3.4 (0/1 pass)" in md and "### Fig. 1 (1/2 pass, 1 not assessable)" in md
    assert md.count("`thm34-rate`") == 1  # its table row (the failing list names 11_beta:thm34-rate)
    assert "| 11_beta | `thm34-rate` | paper | 0.5 | 0.71 | \\|rate - 0.5\\| < 0.1 | **FAIL** |" in md
    assert "| 11_beta | `fig1-slope` | paper | -1 | -0.5 |" in md and "_NOT ASSESSABLE_" in md
    assert "| 11_beta | `translation-x` | reference |" in md


def test_rerun_after_fixing_a_failure(tmp_path):
    res = setup_results(tmp_path)
    write_claims(res / "13_delta" / "claims.csv", [claim("d", "Lemma 2", 1, 1, "equal", True)])
    (res / "13_delta" / "failed.ipynb").unlink()
    n = write_report(res, tmp_path / "config" / "scales.yaml", hardware=HW)
    assert (n["ok"], n["failed"], n["missing"], n["claims"]) == (3, 0, 1, 7)


def test_source_kind():
    assert source_kind("Fig. 3") == source_kind("Figure 10") == "Figures"
    assert source_kind("Table 2") == "Tables"
    assert source_kind("Thm 3.4") == source_kind("Proposition 1") == source_kind("Lemma A.2") == "Theorems"
    assert source_kind("Section 5.1") == source_kind("notebook 12_gamma") == "Other"
    # a source may name its paper first (the companion papers' notebooks do)
    assert source_kind("Welandawe et al. (RABVI), Prop. 4.4 eq. 15") == "Theorems"
    assert source_kind("Wu & Gardner (2024), Section 6.1 / Figure 1") == "Other"
    assert source_kind("Wu & Gardner (2024), Theorem 1") == source_kind("Def. 4.2") == "Theorems"


def test_cli_takes_scale_from_directory(tmp_path, capsys):
    res = setup_results(tmp_path)
    assert main([str(res), "--config", str(tmp_path / "config" / "scales.yaml")]) == 0
    assert "6 rows; 5 statements of the papers: 3 PASS, 1 FAIL, 1 NOT ASSESSABLE" in capsys.readouterr().out
    assert (res / "REPLICATION.md").is_file()
    bogus = tmp_path / "results" / "bogus"
    bogus.mkdir()
    assert main([str(bogus), "--config", str(tmp_path / "config" / "scales.yaml")]) == 2
    assert "valid scales: smoke, cpu" in capsys.readouterr().err


def test_a_bad_claims_file_fails_its_notebook_not_the_report(tmp_path):
    res = setup_results(tmp_path)
    cfg = tmp_path / "config" / "scales.yaml"
    bad = res / "12_gamma" / "claims.csv"
    bad.parent.mkdir(parents=True)
    # a duplicate id within one notebook, an unknown status, rows naming another notebook
    header = "notebook,id,source,paper,measured,criterion,status,scale,note,kind\n"
    for body in ("12_gamma,a,Fig. 1,1,1,eq,PASS,smoke,,paper\n12_gamma,a,Fig. 2,1,1,eq,PASS,smoke,,paper\n",
                 "12_gamma,a,Fig. 1,1,1,eq,MAYBE,smoke,,paper\n",
                 "12_gamma,a,Fig. 1,1,1,eq,PASS,smoke,,opinion\n",  # an unknown kind
                 "10_alpha,a,Fig. 1,1,1,eq,PASS,smoke,,paper\n",
                 "not,a,claims,file\n"):
        bad.write_text(header + body if body.count(",") >= 9 else body)
        n = write_report(res, cfg, hardware=HW)
        assert n["failed"] == 2 and n["ok"] == 2
        assert "`12_gamma` | **FAILED**" in (res / "REPLICATION.md").read_text()


def test_claim_needs_a_boolean_outcome():
    with pytest.raises(TypeError):
        claim("x", "Fig. 1", 1, 1, "equal", None)
    assert claim("x", "Fig. 1", 1, 2, "equal", False, assessable=False).status == NOT_ASSESSABLE
    with pytest.raises(ValueError, match="kind"):
        claim("x", "Fig. 1", 1, 1, "equal", True, kind="opinion")
    with pytest.raises(ValueError, match="duplicate"):
        write_claims("/nonexistent/never-written.csv", [claim("x", "F", 1, 1, "eq", True)] * 2, notebook="n")


def _results_dirs():
    """results/<scale>/ of every scale with per-notebook claims (results/whatif/ holds what-if reports, not a scale)."""
    import yaml

    root = repo_root() / "results"
    scales = yaml.safe_load((repo_root() / "config" / "scales.yaml").read_text())["scales"]
    return sorted(p for p in root.glob("*") if p.is_dir() and p.name in scales and any(p.glob("*/claims.csv")))


@pytest.mark.parametrize("results_dir", _results_dirs(), ids=lambda p: p.name)
def test_report_builds_from_every_notebooks_claims(results_dir, tmp_path):
    """The real per-notebook claims of a pipeline run (``make all`` writes them before
    ``make test`` in CI) aggregate without collision and every file is readable."""
    cfg = load_config(repo_root() / "config" / "scales.yaml", {"scale": results_dir.name}, check_notebooks=False)
    results = collect(cfg, results_dir)
    present = [r for r in results if (results_dir / r.stem / "claims.csv").is_file()]
    unreadable = [(r.stem, r.detail) for r in present if r.status != OK and "unreadable" in r.detail]
    assert not unreadable, unreadable
    keys = [c.key for r in results for c in r.claims]
    assert len(keys) == len(set(keys))
    # the aggregate itself is written (to a copy, the pipeline's report is left alone)
    copy = tmp_path / results_dir.name
    shutil.copytree(results_dir, copy, ignore=shutil.ignore_patterns("*.ipynb", "site"))
    n = write_report(copy, cfg, hardware=HW)
    assert n["claims"] == len(keys)
    assert {r.key for r in read_claims(copy / "claims.csv")} >= set(keys)


def test_committed_reports_are_consistent():
    """Every committed report (results/<scale>/claims.csv) has unique (notebook, id) keys,
    known statuses, and a REPLICATION.md whose summary counts equal the CSV's."""
    for csv_path in sorted((repo_root() / "results").glob("*/claims.csv")):
        rows = read_claims(csv_path)
        keys = [r.key for r in rows]
        assert len(keys) == len(set(keys)), csv_path
        md = (csv_path.parent / "REPLICATION.md").read_text()
        real = [r for r in rows if not r.id.endswith((":FAILED", ":MISSING")) and r.kind == "paper"]
        m = re.search(r"\*\*(\d+) statements of the papers: (\d+) PASS, (\d+) FAIL, (\d+) NOT ASSESSABLE", md)
        assert m, f"{csv_path.parent / 'REPLICATION.md'} has no summary line"
        assert tuple(map(int, m.groups())) == (
            len(real), sum(r.status == PASS for r in real), sum(r.status == FAIL for r in real),
            sum(r.status == NOT_ASSESSABLE for r in real)), csv_path


def test_check_flags_incomplete_runs(tmp_path, capsys):
    res = setup_results(tmp_path)
    cfg = str(tmp_path / "config" / "scales.yaml")
    assert main([str(res), "--check"]) == 1  # nothing aggregated yet
    main([str(res), "--config", cfg])
    assert main([str(res), "--check"]) == 1
    assert "notebook 13_delta: FAILED" in capsys.readouterr().err
    write_claims(res / "12_gamma" / "claims.csv", [claim("g", "Fig. 2", 1, 1, "equal", True)])
    write_claims(res / "13_delta" / "claims.csv", [claim("d", "Lemma 2", 1, 1, "equal", True)])
    (res / "13_delta" / "failed.ipynb").unlink()
    main([str(res), "--config", cfg])
    # complete, but no notebook recorded its inputs: none can be shown current
    assert main([str(res), "--check", "--config", cfg]) == 1
    assert "STALE (inputs changed since its run: no fingerprint recorded" in capsys.readouterr().err
    conf = load_config(cfg, {"scale": "smoke"}, check_notebooks=False)
    nb = tmp_path / "notebooks"
    nb.mkdir()
    for stem in conf.notebooks:  # what the pipeline does before each notebook's run
        (nb / f"{stem}.ipynb").write_text('{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}')
        fp.write(res / stem, conf, stem, "smoke")
    main([str(res), "--config", cfg])
    assert main([str(res), "--check", "--config", cfg]) == 0
    assert check_report(res, conf) == []
    # narrative edited after the run (a markdown cell, metadata): no result depends on it, nothing is STALE
    (nb / "11_beta.ipynb").write_text('{"cells": [{"cell_type": "markdown", "metadata": {}, "source": ["a corrected '
                                      'sentence"]}], "metadata": {"edited": 1}, "nbformat": 4, "nbformat_minor": 5}')
    assert check_report(res, conf) == []
    # code edited after the run: that notebook, and only it, is STALE
    (nb / "11_beta.ipynb").write_text('{"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "source": '
                                      '["x = 1"]}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}')
    assert check_report(res, conf) == [
        "notebook 11_beta: STALE (inputs changed since its run: notebooks/11_beta.ipynb)"]
    # a scale parameter changed: every notebook whose parameters changed is STALE
    (tmp_path / "config" / "scales.yaml").write_text(CONFIG.replace("12_gamma: {}", "12_gamma: {params: {smoke: {n: 2}}}"))
    conf = load_config(cfg, {"scale": "smoke"}, check_notebooks=False)
    assert [p.split(":")[0] for p in check_report(res, conf)] == ["notebook 11_beta", "notebook 12_gamma"]
    assert "params" in check_report(res, conf)[1]


def test_benchmark_times_appear_in_the_report(tmp_path):
    res = setup_results(tmp_path)
    (res / "10_alpha" / "benchmark.tsv").write_text("s\th:m:s\tmax_rss\n125.5\t0:02:05\t2048.0\n")
    (res / "11_beta" / "benchmark.tsv").write_text("not a benchmark\n")
    write_report(res, tmp_path / "config" / "scales.yaml", hardware=HW)
    md = (res / "REPLICATION.md").read_text()
    assert "| 2.1 min | 2.00 GiB |" in md and "add up to 2.1 min" in md
    assert md.count("| - | - |") >= 3  # 11_beta (unreadable), 12_gamma, 13_delta


def test_carried_over_notebooks_keep_their_rows_and_are_named_in_the_report(tmp_path):
    res = setup_results(tmp_path)
    cfg = tmp_path / "config" / "scales.yaml"
    conf = load_config(cfg, {"scale": "smoke"}, check_notebooks=False)
    for stem in ("10_alpha", "11_beta"):
        fp.write(res / stem, conf, stem, "smoke")
    write_report(res, cfg, hardware=HW)
    before = {(c.notebook, c.id): c for c in read_claims(res / "claims.csv")}
    shutil.rmtree(res / "10_alpha")
    shutil.rmtree(res / "11_beta")
    # only 11_beta is carried over: 10_alpha is then MISSING, as it would be without the option
    assert main([str(res), "--config", str(cfg), "--carry-over", "11_beta"]) == 0
    after = {(c.notebook, c.id): c for c in read_claims(res / "claims.csv")}
    assert {k: v for k, v in after.items() if k[0] == "11_beta"} == {k: v for k, v in before.items() if k[0] == "11_beta"}
    assert ("10_alpha", "10_alpha:MISSING") in after
    md = (res / "REPLICATION.md").read_text()
    assert "**1 of 4 notebooks were not rerun for this report**" in md and "`11_beta`" in md
    # the origin is generated, never typed: outside git the detail says the rows cannot be dated
    assert "carried over from the committed smoke report (no git history" in md
    assert fp.read(res / "11_beta" / fp.FINGERPRINT) is not None  # carried with its rows
    # a notebook whose inputs changed since the committed run cannot be carried over
    (tmp_path / "config" / "scales.yaml").write_text(CONFIG.replace("11_beta: {}", "11_beta: {params: {smoke: {n: 2}}}"))
    with pytest.raises(ValueError, match="STALE"):
        main([str(res), "--config", str(cfg), "--carry-over", "11_beta"])
    # a notebook the report does not hold cannot be carried over
    with pytest.raises(ValueError, match="cannot carry it over"):
        main([str(res), "--config", str(cfg), "--carry-over", "12_gamma"])


def _git(cwd, *args):
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True,
                          env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                               "GIT_COMMITTER_EMAIL": "t@t"}).stdout.strip()


def test_carried_over_origin_is_the_commit_that_first_recorded_the_rows(tmp_path):
    """`rows_origin` dates carried rows from git: the oldest commit of the unbroken stretch of history in which
    the notebook's rows are the carried ones (a later commit with the same rows does not move it; a commit with
    other rows ends the stretch)."""
    res = setup_results(tmp_path)
    cfg = tmp_path / "config" / "scales.yaml"
    write_report(res, cfg, hardware=HW)
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "commit", "-qm", "first run")
    rows = [c for c in read_claims(res / "claims.csv") if c.notebook == "11_beta"]
    first = _git(tmp_path, "rev-parse", "--short=7", "HEAD")
    assert f"at {first} (" in rows_origin(res, "11_beta", rows)
    # a later commit that leaves 11_beta's rows alone (10_alpha's change) keeps the origin
    (res / "10_alpha" / "claims.csv").write_text((res / "10_alpha" / "claims.csv").read_text().replace("PASS", "FAIL"))
    write_report(res, cfg, hardware=HW)
    _git(tmp_path, "commit", "-qam", "10_alpha rerun")
    assert f"at {first} (" in rows_origin(res, "11_beta", rows)
    # rows that the history never held are not dated by it
    changed = [replace(c, measured=c.measured + " (other run)") for c in rows]
    assert "not in the committed history" in rows_origin(res, "11_beta", changed)


def test_readme_headline_counts_are_the_committed_reports():
    """The README's "What replicates" counts are those of the committed reports' `paper` rows (no hand-written
    number can drift from the report)."""
    readme = (repo_root() / "README.md").read_text()
    for scale in ("cpu", "smoke"):
        rows = [r for r in read_claims(repo_root() / "results" / scale / "claims.csv")
                if r.kind == "paper" and not r.id.endswith((":FAILED", ":MISSING"))]
        n = (len(rows), sum(r.status == PASS for r in rows), sum(r.status == FAIL for r in rows),
             sum(r.status == NOT_ASSESSABLE for r in rows))
        m = re.search(rf"\*\*{scale} scale\*\*.*?(\d+) statements of the papers: (\d+) PASS, (\d+) FAIL, (\d+) NOT ASSESSABLE",
                      readme, re.S)
        assert m, f"README has no {scale} headline"
        assert tuple(map(int, m.groups())) == n, scale


def test_readme_companion_table_counts_are_the_committed_report():
    """The cpu column of the README's companion-papers table is each notebook's `paper` rows in the committed cpu report
    (and its rows of other kinds), so a rerun cannot leave it behind."""
    from collections import Counter

    readme = (repo_root() / "README.md").read_text()
    table = readme[readme.index("| notebook | paper | what is checked | cpu (`paper` rows) |"):]
    table = table[:table.index("\n\n")]
    rows = read_claims(repo_root() / "results" / "cpu" / "claims.csv")
    seen = 0
    for line in table.splitlines()[2:]:
        stem = line.split("|")[1].strip().strip("`")
        mine = [r for r in rows if r.notebook == stem]
        k = Counter(r.status for r in mine if r.kind == "paper")
        other = sum(r.kind != "paper" for r in mine)
        want = (f"{k[PASS]} PASS, {k[FAIL]} FAIL, {k[NOT_ASSESSABLE]} N.A."
                + (f" (+ {other} rows of other kinds)" if other else ""))
        assert line.split("|")[-2].strip() == want, stem
        cells = [c.strip() for c in line.split("|")[1:-1]]
        # each row names its paper and what it checks (a script updating the wall-time table once overwrote
        # four rows here with wall times)
        assert len(cells) == 4 and not re.fullmatch(r"\d+ min \d+ s", cells[1]) and len(cells[2]) > 20, stem
        seen += 1
    assert seen >= 9


def test_backfill_adds_missing_inputs_as_at_the_run_commit(tmp_path):
    """`fingerprint.backfill` adds the library inputs a record lacks, hashed at the given commit, and
    changes no recorded input; an input that changed since that commit then shows the notebook STALE."""
    import json
    import subprocess

    root = repo_root()
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, check=True).stdout.strip()
    cfg = load_config(root / "config" / "scales.yaml", {"scale": "cpu"}, check_notebooks=False)
    stem = "24_lr_tables"
    current = fp.inputs(cfg, stem, "cpu", root)
    lib = sorted(k for k in current if k.startswith("src/lsvi/baselines/"))
    assert lib, "24_lr_tables runs the baselines"
    rec = dict(current)
    for k in lib:
        del rec[k]
    rec["params"] = "recorded-params"  # a recorded input that backfill must leave alone
    res = tmp_path / "cpu"
    res.mkdir()
    (res / fp.FINGERPRINTS).write_text(json.dumps({stem: fp.record(rec)}))
    added = fp.backfill(res, head, cfg)
    assert added == {stem: lib}
    out = json.loads((res / fp.FINGERPRINTS).read_text())[stem]
    for k in lib:
        shown = subprocess.run(["git", "show", f"{head}:{k}"], cwd=root, capture_output=True, check=True).stdout
        assert out["inputs"][k] == fp._sha256(shown)
    assert out["inputs"]["params"] == "recorded-params"
    assert out["digest"] == fp.digest(out["inputs"])
    assert fp.backfill(res, head, cfg) == {}  # nothing more to add
    with pytest.raises(subprocess.CalledProcessError):
        fp.backfill(res, "0" * 40, cfg)


def test_current_run_is_the_executed_notebook_only_while_its_inputs_are_unchanged(tmp_path):
    """`current_run` (what lets CI's nbval skip a notebook `make all` just ran) names the executed
    notebook only when the run succeeded and every recorded input equals the working tree's."""
    import json

    from lsvi.pipeline.current_run import current_run

    root = repo_root()
    cfg = load_config(root / "config" / "scales.yaml", {"scale": "smoke"}, check_notebooks=False)
    stem = "53_tempered_vi"
    res = tmp_path / "smoke"
    d = res / stem
    assert current_run(res, stem, cfg) is None  # never ran
    fp.write(d, cfg, stem, "smoke")
    assert current_run(res, stem, cfg) is None  # inputs recorded, but no executed notebook
    (d / "executed.ipynb").write_text("{}")
    assert current_run(res, stem, cfg) == d / "executed.ipynb"
    (d / "failed.ipynb").write_text("{}")  # the last attempt failed
    assert current_run(res, stem, cfg) is None
    (d / "failed.ipynb").unlink()
    rec = json.loads((d / fp.FINGERPRINT).read_text())
    lib = next(k for k in rec["inputs"] if k.startswith("src/lsvi/"))
    rec["inputs"][lib] = "0" * 64  # a library file changed since the run
    (d / fp.FINGERPRINT).write_text(json.dumps(rec))
    assert current_run(res, stem, cfg) is None


def test_ci_skips_under_nbval_only_the_notebooks_the_pipeline_ran_with_identical_inputs(tmp_path):
    """With LSVI_NBVAL_SKIP_EXECUTED=1 (.ci/run, after `make all`), nbval skips a notebook whose smoke run is
    current, naming that run, and executes one edited since its run. Checked on a clone of the repository, in which
    the edited notebook keeps only its parameters cell (so that executing it takes a second)."""
    import json

    root = repo_root()
    copy = tmp_path / "repo"
    subprocess.run(["git", "clone", "-q", "--shared", str(root), str(copy)], check=True)
    shutil.copy(root / "conftest.py", copy / "conftest.py")  # the working tree's versions
    shutil.copytree(root / "src" / "lsvi" / "pipeline", copy / "src" / "lsvi" / "pipeline", dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("__pycache__"))
    env = dict(os.environ, LSVI_NBVAL_SKIP_EXECUTED="1", PYTHONPATH=str(copy / "src"))
    ran, edited = "53_tempered_vi", "52_alquier_online_vi"
    nb = copy / "notebooks" / f"{edited}.ipynb"
    doc = json.loads(nb.read_text())
    doc["cells"] = [c for c in doc["cells"] if "parameters" in c.get("metadata", {}).get("tags", [])]
    for stem in (ran, edited):  # what the pipeline records before each run, by the clone's own code
        d = copy / "results" / "smoke" / stem
        subprocess.run([sys.executable, "-m", "lsvi.pipeline.fingerprint", "write", str(d)], cwd=copy, env=env,
                       check=True, capture_output=True)
        (d / "executed.ipynb").write_text("{}")
    nb.write_text(json.dumps(doc))  # edited after its run

    r = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--nbval-lax", "--nbval-current-env",
                        "-rs", f"notebooks/{ran}.ipynb", f"notebooks/{edited}.ipynb"],
                       cwd=copy, env=env, capture_output=True, text=True)
    out = r.stdout
    n_ran = sum(c["cell_type"] == "code" for c in json.loads((copy / "notebooks" / f"{ran}.ipynb").read_text())["cells"])
    assert r.returncode == 0, out[-3000:]
    assert f"SKIPPED [{n_ran}]" in out and f"identical inputs: results/smoke/{ran}/executed.ipynb" in out, out[-3000:]
    assert "1 passed" in out and f"{n_ran} skipped" in out, out[-3000:]


def test_a_comment_edited_after_the_run_leaves_the_notebook_current(tmp_path):
    """`notebook_code` hashes the code cells without their comments: a corrected comment changes no result and makes
    nothing STALE; a changed value on the same line does. The comment-free text keeps every other character."""
    def nb(source):
        p = tmp_path / "a.ipynb"
        p.write_text(json.dumps({"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "source": source}],
                                 "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
        return fp.notebook_code(p)

    first = nb("n = 3  # repetitions (paper: 100)\ns = '# kept'\n")
    assert nb("n = 3   # repetitions (paper: 100, cpu: 5)\ns = '# kept'\n") == first
    assert nb("n = 3\ns = '# kept'\n") == first
    assert nb("n = 4  # repetitions (paper: 100)\ns = '# kept'\n") != first
    assert nb("n = 3  # repetitions (paper: 100)\ns = '# edited'\n") != first  # a '#' inside a string is code
    assert fp.without_comments("x = 1  # a = b\n# alone\ny = 2\n") == "x = 1\n\ny = 2\n"


def test_rehash_migrates_only_notebooks_whose_code_is_unchanged(tmp_path):
    """The one-off migration to the comment-free rule re-records a notebook's hash only where its code cells are
    byte-identical to those recorded under the earlier rule; an edited notebook stays STALE."""
    import hashlib

    def write_nb(path, source):
        path.write_text(json.dumps({"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "source": source}],
                                    "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))

    def earlier_rule(source):
        return hashlib.sha256(json.dumps([source]).encode()).hexdigest()

    (tmp_path / "notebooks").mkdir()
    res = tmp_path / "results" / "smoke"
    res.mkdir(parents=True)
    write_nb(tmp_path / "notebooks" / "10_same.ipynb", "x = 1  # comment\n")
    write_nb(tmp_path / "notebooks" / "11_edited.ipynb", "x = 2  # comment\n")
    recorded = {stem: fp.record({f"notebooks/{stem}.ipynb": earlier_rule("x = 1  # comment\n"), "params": "p"})
                for stem in ("10_same", "11_edited")}
    (res / fp.FINGERPRINTS).write_text(json.dumps(recorded))
    assert fp.rehash_notebooks_without_comments(res) == ["10_same"]
    after = json.loads((res / fp.FINGERPRINTS).read_text())
    assert after["10_same"]["inputs"]["notebooks/10_same.ipynb"] == hashlib.sha256(
        fp.notebook_code(tmp_path / "notebooks" / "10_same.ipynb")).hexdigest()
    assert after["10_same"]["digest"] == fp.digest(after["10_same"]["inputs"])
    assert after["11_edited"] == recorded["11_edited"]


def test_a_notebooks_reference_files_are_inputs_of_that_notebook_alone(tmp_path):
    """A committed file under ``data/references/<stem>/`` (a reference computed once by a script) is an input of
    notebook <stem>, and of no other; a file in a data folder with no declared reader is an input of every notebook,
    one in posteriordb's of the notebooks that read posteriordb (`fingerprint.committed_data`)."""
    import shutil

    root = repo_root()
    copy = tmp_path / "repo"
    for d in ("notebooks", "src", "config", "requirements"):
        shutil.copytree(root / d, copy / d)
    cfg = load_config(root / "config" / "scales.yaml", {"scale": "cpu"}, check_notebooks=False)
    ref = copy / fp.REFERENCES_DIR / "31_bsl_toads" / "draws.npz"
    ref.parent.mkdir(parents=True)
    ref.write_bytes(b"reference draws")
    shared = copy / "data" / "other" / "extra.json"
    pdb = copy / "data" / "posteriordb" / "extra.json"
    for f in (shared, pdb):
        f.parent.mkdir(parents=True)
        f.write_text("{}")
    mine, other = fp.inputs(cfg, "31_bsl_toads", "cpu", copy), fp.inputs(cfg, "30_variable_selection", "cpu", copy)
    reader = fp.inputs(cfg, "42_rabvi_posteriordb", "cpu", copy)
    rel_ref, rel_shared, rel_pdb = (str(f.relative_to(copy)) for f in (ref, shared, pdb))
    assert mine[rel_ref] == fp._sha256(b"reference draws") and rel_ref not in other
    assert rel_shared in mine and rel_shared in other and rel_shared in reader
    assert rel_pdb in reader and rel_pdb not in mine and rel_pdb not in other
    before = fp.digest(mine)
    ref.write_bytes(b"other draws")
    assert fp.digest(fp.inputs(cfg, "31_bsl_toads", "cpu", copy)) != before


def test_committed_data_counts_posteriordb_only_for_its_readers(tmp_path):
    """`fingerprint.committed_data`: ``data/posteriordb/`` is an input of a notebook that executes its reader and
    of no other; a folder with no declared reader counts for every notebook; files directly under ``data/``
    (its README), ``data/processed/`` and ``data/references/`` never count."""
    root = tmp_path
    for rel in ("data/README.md", "data/posteriordb/a.json", "data/posteriordb/sub/b.json", "data/processed/x.npz",
                "data/references/31_bsl_toads/r.npz", "data/other/c.csv", fp.DATA_READERS["posteriordb"]):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(rel)
    reader = root / fp.DATA_READERS["posteriordb"]
    rel = lambda paths: [str(p.relative_to(root)) for p in paths]
    assert rel(fp.committed_data(root, [])) == ["data/other/c.csv"]
    assert rel(fp.committed_data(root, [reader])) == ["data/other/c.csv", "data/posteriordb/a.json",
                                                      "data/posteriordb/sub/b.json"]
    assert fp.committed_data(tmp_path / "no-repo", []) == []


def test_the_repository_notebooks_count_posteriordb_as_their_imports_say():
    """On the repository: the notebooks that import the posteriordb reader (42, 43, 45) have its files among their
    inputs; a theorem check and a logistic-regression notebook have none, and no notebook counts data/README.md."""
    root = repo_root()
    cfg = load_config(root / "config" / "scales.yaml", {"scale": "cpu"}, check_notebooks=False)
    for stem in cfg.notebooks:
        inp = fp.inputs(cfg, stem, "cpu", root)
        assert "data/README.md" not in inp, stem
        reads = fp.DATA_READERS["posteriordb"] in inp
        assert reads == any(k.startswith("data/posteriordb/") for k in inp), stem
        if stem.startswith(("42_", "43_", "45_")):
            assert reads, stem
        if stem.startswith(("12_", "20_")):
            assert not reads, stem


def test_narrow_data_drops_only_data_files_the_rule_no_longer_counts(tmp_path):
    """`fingerprint.narrow_data` moves a record made when every notebook counted all of ``data/`` to the current rule
    (the notebook is current again, recorded hashes kept); it never hides a changed input (the notebook stays STALE)
    and leaves a record that lacks an input the rule counts as it is."""
    import json

    root = repo_root()
    cfg = load_config(root / "config" / "scales.yaml", {"scale": "cpu"}, check_notebooks=False)
    now = {s: fp.inputs(cfg, s, "cpu", root) for s in ("20_pima", "53_tempered_vi", "52_alquier_online_vi")}
    extra = {"data/README.md": "a" * 64, "data/posteriordb/x.json": "b" * 64}
    wide = dict(now["20_pima"], **extra)
    edited = dict(now["53_tempered_vi"], **extra)
    lib = next(k for k in edited if k.startswith("src/"))
    edited[lib] = "0" * 64  # a library file changed since that run: narrowing must not hide it
    lacking = dict(now["52_alquier_online_vi"], **extra)
    del lacking[lib]
    res = tmp_path / "cpu"
    (res / "20_pima").mkdir(parents=True)
    (res / fp.FINGERPRINTS).write_text(json.dumps({"20_pima": fp.record(wide), "53_tempered_vi": fp.record(edited),
                                                   "52_alquier_online_vi": fp.record(lacking)}))
    (res / "20_pima" / fp.FINGERPRINT).write_text(json.dumps(fp.record(wide)))
    dropped = fp.narrow_data(res, cfg)
    assert dropped == {"20_pima": sorted(extra), "53_tempered_vi": sorted(extra)}
    out = json.loads((res / fp.FINGERPRINTS).read_text())
    assert out["20_pima"] == fp.record(now["20_pima"])
    assert fp.read(res / "20_pima" / fp.FINGERPRINT) == fp.record(now["20_pima"])
    assert out["53_tempered_vi"]["inputs"][lib] == "0" * 64
    assert out["52_alquier_online_vi"] == fp.record(lacking)  # left as it is
    assert fp.changed(out["20_pima"], now["20_pima"]) == []  # current again
    assert fp.changed(out["53_tempered_vi"], now["53_tempered_vi"]) == [lib]  # still STALE, for the right reason
    assert lib in fp.changed(out["52_alquier_online_vi"], now["52_alquier_online_vi"])
    assert fp.narrow_data(res, cfg) == {}


def test_every_module_naming_posteriordbs_folder_executes_its_declared_reader():
    """`fingerprint.DATA_READERS` is safe only if no library module reads ``data/posteriordb/`` behind its reader's
    back: every module naming the folder is the reader or imports it, except the declared-posterior loader, whose files
    are pinned by the sha256 in the declaration (itself a fingerprinted input)."""
    from lsvi.pipeline.config import code_dependencies

    root = repo_root()
    reader = root / fp.DATA_READERS["posteriordb"]
    pinned = {root / "src/lsvi/papers/rabvi/declared_posteriors.py"}
    for path in sorted((root / "src").rglob("*.py")):
        if "data/posteriordb" not in path.read_text() or path in pinned | {reader, root / "src/lsvi/pipeline/fingerprint.py"}:
            continue
        deps = {p.resolve() for p in code_dependencies([path.read_text()], root / "src")}
        assert reader.resolve() in deps, path
