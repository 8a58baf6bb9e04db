"""`lsvi.pipeline.compare`: two runs' claims side by side; a changed status is an error unless allowed."""
from __future__ import annotations

import csv

import pytest

from lsvi.pipeline import compare

FIELDS = ["notebook", "id", "kind", "source", "paper", "measured", "criterion", "status", "scale", "note"]


def _write(path, rows):
    path.mkdir(parents=True, exist_ok=True)
    with open(path / "claims.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, FIELDS)
        w.writeheader()
        for nb, i, kind, status, measured in rows:
            w.writerow(dict(notebook=nb, id=i, kind=kind, source="s", paper="p", measured=measured, criterion="c",
                            status=status, scale="cpu", note=""))


def test_same_statuses_exit_zero(tmp_path, capsys):
    rows = [("20_pima", "a", "paper", "PASS", "1.0"), ("21_sonar", "b", "reading", "FAIL", "2")]
    _write(tmp_path / "A", rows)
    _write(tmp_path / "B", [(*r[:4], "other value") for r in rows])  # measured may differ, statuses may not
    assert compare.main([str(tmp_path / "A"), str(tmp_path / "B")]) == 0
    assert "2 claims with the same status" in capsys.readouterr().out


def test_a_changed_status_is_listed_and_fails_unless_allowed(tmp_path, capsys):
    _write(tmp_path / "A", [("22_mnist", "t", "paper", "PASS", "slope 1.1"), ("22_mnist", "u", "paper", "FAIL", "x")])
    _write(tmp_path / "B", [("22_mnist", "t", "paper", "NOT ASSESSABLE", "slope 1.3"), ("23_census", "v", "paper",
                                                                                        "PASS", "y")])
    cmp = compare.compare(compare.read_claims(tmp_path / "A"), compare.read_claims(tmp_path / "B"))
    assert [(c.id, c.status_a, c.status_b) for c in cmp.changed] == [("t", "PASS", "NOT ASSESSABLE")]
    assert cmp.only_a == [("22_mnist", "u")] and cmp.only_b == [("23_census", "v")]
    assert compare.main([str(tmp_path / "A"), str(tmp_path / "B")]) == 1
    out = capsys.readouterr().out
    assert "CHANGED 22_mnist:t (paper): PASS -> NOT ASSESSABLE" in out and "slope 1.3" in out
    assert compare.main([str(tmp_path / "A"), str(tmp_path / "B"), "--allow", "22_mnist:t"]) == 0
    assert compare.main([str(tmp_path / "A"), str(tmp_path / "B"), "--markdown"]) == 1
    assert "| `22_mnist` | `t` | paper | PASS | NOT ASSESSABLE |" in capsys.readouterr().out


def test_missing_or_malformed_claims_are_clear_errors(tmp_path, capsys):
    assert compare.main([str(tmp_path / "nowhere"), str(tmp_path / "nowhere")]) == 2
    assert "no claims file" in capsys.readouterr().err
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "claims.csv").write_text("notebook,id\nx,y\n")
    with pytest.raises(ValueError, match="lacks the columns"):
        compare.read_claims(tmp_path / "bad")
