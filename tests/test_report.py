"""Aggregation of the notebooks' claims into claims.csv and REPLICATION.md (src/lsvi/report.py)."""
from __future__ import annotations

from pathlib import Path

from lsvi.claims import claim, read_claims, write_claims
from lsvi.report import main, source_kind, write_report

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
    ], scale="smoke", notebook="11_beta")
    # 12_gamma never ran; 13_delta failed (the pipeline keeps failed.ipynb)
    (res / "13_delta").mkdir(parents=True)
    (res / "13_delta" / "failed.ipynb").write_text("{}")
    return res


def test_aggregate_counts_and_missing(tmp_path):
    res = setup_results(tmp_path)
    n = write_report(res, tmp_path / "config" / "scales.yaml", hardware=HW)
    assert n == {"claims": 4, "pass": 3, "fail": 1, "ok": 2, "failed": 1, "missing": 1}

    rows = read_claims(res / "claims.csv")
    assert [r.id for r in rows] == ["fig1-slope", "table2-pima-d", "thm34-rate", "sec5-speed",
                                    "12_gamma:MISSING", "13_delta:FAILED"]
    assert [r.passed for r in rows] == [True, True, False, True, False, False]
    assert {r.scale for r in rows} == {"smoke"}
    assert rows[2].notebook == "11_beta" and rows[2].note == "seed 0"

    md = (res / "REPLICATION.md").read_text()
    assert "scale `smoke`" in md and "test-cpu (2 logical cores)" in md and "cpu:cpu" in md
    assert "**4 claims: 3 PASS, 1 FAIL.** Notebooks: 2 OK, 1 FAILED, 1 MISSING (of 4 listed)." in md
    assert "`12_gamma` | **MISSING**" in md and "`13_delta` | **FAILED**" in md
    assert "Failing claims: `thm34-rate`" in md
    # the figure of 10_alpha was never written: reported as missing
    assert "figures/smoke/fig01_alpha.pdf" in md
    # grouped by source kind, in this order, each claim once
    heads = [line for line in md.splitlines() if line.startswith("## ")]
    assert heads == ["## Summary", "## Notebooks", "## Figures", "## Tables", "## Theorems", "## Other"]
    assert "### Thm 3.4 (0/1 pass)" in md and "### Fig. 1 (1/1 pass)" in md
    assert md.count("`thm34-rate`") == 2  # failing list + its table row
    assert "| `thm34-rate` | 0.5 | 0.71 | \\|rate - 0.5\\| < 0.1 | **FAIL** |" in md


def test_rerun_after_fixing_a_failure(tmp_path):
    res = setup_results(tmp_path)
    write_claims(res / "13_delta" / "claims.csv", [claim("d", "Lemma 2", 1, 1, "equal", True)])
    (res / "13_delta" / "failed.ipynb").unlink()
    n = write_report(res, tmp_path / "config" / "scales.yaml", hardware=HW)
    assert (n["ok"], n["failed"], n["missing"], n["claims"]) == (3, 0, 1, 5)


def test_source_kind():
    assert source_kind("Fig. 3") == source_kind("Figure 10") == "Figures"
    assert source_kind("Table 2") == "Tables"
    assert source_kind("Thm 3.4") == source_kind("Proposition 1") == source_kind("Lemma A.2") == "Theorems"
    assert source_kind("Section 5.1") == source_kind("notebook 12_gamma") == "Other"


def test_cli_takes_scale_from_directory(tmp_path, capsys):
    res = setup_results(tmp_path)
    assert main([str(res), "--config", str(tmp_path / "config" / "scales.yaml")]) == 0
    assert "4 claims, 3 PASS, 1 FAIL" in capsys.readouterr().out
    assert (res / "REPLICATION.md").is_file()
    bogus = tmp_path / "results" / "bogus"
    bogus.mkdir()
    assert main([str(bogus), "--config", str(tmp_path / "config" / "scales.yaml")]) == 2
    assert "valid scales: smoke, cpu" in capsys.readouterr().err
