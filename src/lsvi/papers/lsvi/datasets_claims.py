"""The claims on the data's dimensions: notebook 00's (the data in hand against the paper's Table 2,
logistic-regression datasets, and Appendix C.3, Concrete, d = 92, 1030 observations) and notebook 21's
``sonar-fim-size`` (Section 5.1's Fisher-information size, which follows from Sonar's d).

Each row compares a number the paper prints with the size of the data we load, so every row is of
kind ``paper``. Criterion: exact equality, except Census's n, which Table 2 prints as "49 000" (read
as approximate: within 2 %). A mismatch is a FAIL with a note, never tuned away (Sonar's printed
(d, n) = (62, 128) cannot be obtained from the UCI file).
"""
from __future__ import annotations

from lsvi.data.datasets import PAPER_TABLE2

CENSUS_N_TOLERANCE = 0.02  # |n − 49 000| / 49 000, "49 000" read as approximate
CONCRETE = {"d": 92, "n": 1030}  # Appendix C.3: "1030 observations", "d = 92"

NOTES = {
    ("sonar", "d"): "UCI Sonar has 60 bands; + intercept = 61. 62 is not obtainable from the data.",
    ("sonar", "n"): "UCI Sonar has 208 rows (97 rocks, 111 mines); 128 is not obtainable from the data.",
    ("census", "d"): "8 variables as in the authors' code, one-hot (drop first), '?' occupation as a level, + intercept.",
    ("census", "n"): "adult.data + adult.test, no row dropped.",
}


def claims(dims: dict) -> list[dict]:
    """Rows (keyword arguments of ``Run.claim``) ``table2-<name>-{d,n}`` for the datasets of
    `PAPER_TABLE2` and ``c3-concrete-{d,n}``, from ``dims`` {name: (d, n)} of the loaded data."""
    rows = []
    for r in PAPER_TABLE2:
        d, n = (int(v) for v in dims[r["name"]])
        rows.append(dict(id=f"table2-{r['name']}-d", source="Table 2", paper=r["d"], measured=d, criterion="equal",
                         passed=d == r["d"], note=NOTES.get((r["name"], "d"), ""), kind="paper"))
        if r["name"] == "census":
            rel = abs(n - r["n"]) / r["n"]
            rows.append(dict(id="table2-census-n", source="Table 2", paper="49 000 (approx.)", measured=n,
                             criterion=f"|n - 49000| / 49000 <= {CENSUS_N_TOLERANCE:g}", passed=rel <= CENSUS_N_TOLERANCE,
                             note=NOTES[("census", "n")], kind="paper"))
        else:
            rows.append(dict(id=f"table2-{r['name']}-n", source="Table 2", paper=r["n"], measured=n, criterion="equal",
                             passed=n == r["n"], note=NOTES.get((r["name"], "n"), ""), kind="paper"))
    d, n = (int(v) for v in dims["concrete"])
    rows += [dict(id="c3-concrete-d", source="App. C.3", paper=CONCRETE["d"], measured=d, criterion="equal",
                  passed=d == CONCRETE["d"], kind="paper"),
             dict(id="c3-concrete-n", source="App. C.3", paper=CONCRETE["n"], measured=n, criterion="equal",
                  passed=n == CONCRETE["n"], kind="paper")]
    return rows


def sonar_fim_size(fim_dim: int) -> dict:
    """Notebook 21's row ``sonar-fim-size``: Section 5.1's "2015 × 2015" Fisher information of the full-covariance
    family on Sonar against our family's m − 1 = d + d(d + 1)/2 for the data's d. Kind ``paper``; it FAILs when the
    data's dimension is not the paper's (Table 2 prints d = 62, the UCI data give 61 with the intercept)."""
    return dict(id="sonar-fim-size", source="Sec. 5.1", paper="FIM of the full-covariance family is 2015 x 2015 for Sonar",
                measured=f"{fim_dim} x {fim_dim}", criterion="equal", passed=fim_dim == 2015, kind="paper",
                note=NOTES[("sonar", "d")] + " 2015 = d + d(d+1)/2 with d = 62.")

