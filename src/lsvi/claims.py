"""Machine-readable claims: one row per checkable statement of a paper.

Every experiment / theorem notebook collects `Claim` rows and writes them with
`write_claims`; the pipeline aggregates all files into ``results/<scale>/claims.csv``
and ``REPLICATION.md``. A discrepancy is recorded as ``passed=False`` with the measured
value, never tuned away.
"""
from __future__ import annotations

import csv
import os
from dataclasses import asdict, dataclass, fields
from pathlib import Path

COLUMNS = ("id", "source", "paper", "measured", "criterion", "passed", "scale", "notebook", "note")


@dataclass(frozen=True)
class Claim:
    """One checkable statement.

    id:        short unique identifier, e.g. ``"table2-pima-d"``.
    source:    where the paper states it, e.g. ``"Table 2"``, ``"Fig. 1"``, ``"Thm 3.4"``.
    paper:     what the paper states (text or number).
    measured:  what we measured (text or number).
    criterion: the pass/fail rule, e.g. ``"equal"`` or ``"|slope + 1| < 0.2"``.
    passed:    outcome of the criterion.
    note:      optional explanation (e.g. why a discrepancy is expected).
    """

    id: str
    source: str
    paper: str
    measured: str
    criterion: str
    passed: bool
    scale: str = ""
    notebook: str = ""
    note: str = ""


def claim(id, source, paper, measured, criterion, passed, note="", **kw) -> Claim:
    """Build a `Claim`, converting values to strings (numbers with 4 significant digits)."""
    fmt = lambda v: f"{v:.4g}" if isinstance(v, float) else str(v)
    return Claim(id, source, fmt(paper), fmt(measured), criterion, bool(passed), note=note, **kw)


def write_claims(path: str | os.PathLike, claims: list[Claim], scale: str = "", notebook: str = "") -> Path:
    """Write claims as CSV atomically (write to a temporary file, then rename).

    ``scale`` and ``notebook`` fill the corresponding columns when the rows leave them empty.
    Duplicate ids are an error: each statement is checked once.
    """
    ids = [c.id for c in claims]
    dup = {i for i in ids if ids.count(i) > 1}
    if dup:
        raise ValueError(f"duplicate claim ids: {sorted(dup)}")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    with open(tmp, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=COLUMNS)
        w.writeheader()
        for c in claims:
            row = asdict(c)
            row["scale"] = row["scale"] or scale
            row["notebook"] = row["notebook"] or notebook
            w.writerow(row)
    os.replace(tmp, path)
    return path


def read_claims(path: str | os.PathLike) -> list[Claim]:
    """Read a claims CSV written by `write_claims`."""
    names = {f.name for f in fields(Claim)}
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    out = []
    for r in rows:
        missing = names - set(r)
        if missing:
            raise ValueError(f"{path}: claims file lacks columns {sorted(missing)}")
        r = {k: r[k] for k in names}
        r["passed"] = r["passed"] == "True"
        out.append(Claim(**r))
    return out
