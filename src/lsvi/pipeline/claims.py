"""Machine-readable claims: one row per checkable statement of a paper.

Every experiment / theorem notebook collects `Claim` rows and writes them with
`write_claims`; the pipeline aggregates all files into ``results/<scale>/claims.csv``
and ``REPLICATION.md``. A claim is identified by the pair ``(notebook, id)``: two
notebooks may use the same short id for different statements.

A claim has one of three statuses:

* ``PASS`` / ``FAIL``: the criterion, fixed before the run, holds / does not hold. A
  discrepancy is recorded as ``FAIL`` with the measured value, never tuned away, and a
  failing claim never stops the notebook (no ``assert`` on claims).
* ``NOT ASSESSABLE``: the run cannot settle the statement (a log–log slope from two points,
  a 100-step convergence claim at T = 10). It is counted apart in the report and never shown
  as a pass; the note says why. When the measured values already settle the statement (a
  bound that more steps can only widen, a max/min already past its threshold) the status is
  PASS or FAIL: the same rule decides whether a PASS and a FAIL count.

Every row has a ``kind`` (`KINDS`), and the report's headline counts ``paper`` rows only:

* ``paper``: a statement of one of the five papers (quoted in ``paper``; where the text is
  lost, ``paper`` says "reconstructed:" and names the reconstruction's source);
* ``reading``: one row of an as-printed / corrected pair (a typo or an ambiguous formula: the
  literal reading and the one the paper's other parts support, each with its own row);
* ``illustration``: an illustration of a result the papers cite but do not state;
* ``beyond``: a question of ours, beyond the papers;
* ``reference``: a check of a reference or a tool (a model's translation, a gold standard's
  convergence, a library side by side with ours), not a statement of a paper.
"""
from __future__ import annotations

import csv
import os
from collections import Counter
from dataclasses import asdict, dataclass, fields
from pathlib import Path

PASS, FAIL, NOT_ASSESSABLE = "PASS", "FAIL", "NOT ASSESSABLE"
STATUSES = (PASS, FAIL, NOT_ASSESSABLE)
PAPER, READING, ILLUSTRATION, BEYOND, REFERENCE = "paper", "reading", "illustration", "beyond", "reference"
KINDS = (PAPER, READING, ILLUSTRATION, BEYOND, REFERENCE)
COLUMNS = ("notebook", "id", "kind", "source", "paper", "measured", "criterion", "status", "scale", "note")


@dataclass(frozen=True)
class Claim:
    """One checkable statement.

    id:        short identifier, unique within its notebook, e.g. ``"table2-pima-d"``.
    source:    where the paper states it, e.g. ``"Table 2"``, ``"Fig. 1"``, ``"Thm 3.4"``.
    paper:     what the paper states (text or number).
    measured:  what we measured (text or number).
    criterion: the pass/fail rule, e.g. ``"equal"`` or ``"|slope + 1| < 0.2"``.
    status:    ``PASS``, ``FAIL`` or ``NOT ASSESSABLE`` (see the module docstring).
    note:      optional explanation (why a discrepancy is expected, why not assessable).
    kind:      ``paper``, ``reading``, ``illustration``, ``beyond`` or ``reference`` (see the
               module docstring); the report's headline counts ``paper`` rows only.
    """

    id: str
    source: str
    paper: str
    measured: str
    criterion: str
    status: str
    scale: str = ""
    notebook: str = ""
    note: str = ""
    kind: str = PAPER

    def __post_init__(self):
        if self.status not in STATUSES:
            raise ValueError(f"claim {self.id!r}: status must be one of {STATUSES}, got {self.status!r}")
        if self.kind not in KINDS:
            raise ValueError(f"claim {self.id!r}: kind must be one of {KINDS}, got {self.kind!r}")

    @property
    def passed(self) -> bool:
        return self.status == PASS

    @property
    def key(self) -> tuple[str, str]:
        """The identity of a claim in the report: ``(notebook, id)``."""
        return (self.notebook, self.id)


def _fmt(v) -> str:
    return f"{v:.4g}" if isinstance(v, float) else str(v)


def claim(id, source, paper, measured, criterion, passed, note="", assessable=True, kind=PAPER, **kw) -> Claim:
    """Build a `Claim`, converting values to strings (floats with 4 significant digits).

    ``passed`` is the outcome of the criterion (a bool; numpy bools are accepted). With
    ``assessable=False`` the status is ``NOT ASSESSABLE`` whatever ``passed`` says: use it
    when the run cannot settle the statement (say why in ``note``), and only then: the same
    rule must decide whether a PASS and a FAIL count. ``kind``: see `KINDS`.
    """
    if passed is None or not hasattr(passed, "__bool__"):
        raise TypeError(f"claim {id!r}: passed must be a bool, got {passed!r}")
    status = NOT_ASSESSABLE if not assessable else (PASS if bool(passed) else FAIL)
    return Claim(id, source, _fmt(paper), _fmt(measured), criterion, status, note=note, kind=kind, **kw)


def duplicate_keys(claims: list[Claim]) -> list[tuple[str, str]]:
    """The ``(notebook, id)`` pairs that occur more than once."""
    counts = Counter(c.key for c in claims)
    return sorted(k for k, n in counts.items() if n > 1)


def write_claims(path: str | os.PathLike, claims: list[Claim], scale: str = "", notebook: str = "") -> Path:
    """Write claims as CSV atomically (write to a temporary file, then rename).

    ``scale`` and ``notebook`` fill the corresponding columns when the rows leave them empty.
    Two rows with the same ``(notebook, id)`` are an error: each statement is checked once.
    """
    rows = [
        Claim(**{**asdict(c), "scale": c.scale or scale, "notebook": c.notebook or notebook}) for c in claims
    ]
    dup = duplicate_keys(rows)
    if dup:
        raise ValueError(f"duplicate claims (notebook, id): {dup}")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    with open(tmp, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=COLUMNS)
        w.writeheader()
        for c in rows:
            w.writerow(asdict(c))
    os.replace(tmp, path)
    return path


def read_claims(path: str | os.PathLike) -> list[Claim]:
    """Read a claims CSV written by `write_claims`; raises ValueError on a malformed file."""
    names = {f.name for f in fields(Claim)}
    with open(path, newline="") as fh:
        reader = csv.DictReader(fh)
        missing = names - set(reader.fieldnames or ()) - {"kind"}  # a file from before kinds: every row "paper"
        if missing:
            raise ValueError(f"{path}: claims file lacks columns {sorted(missing)}")
        rows = list(reader)
    out = []
    for i, r in enumerate(rows, start=2):
        if None in r or any(r.get(k, "") is None for k in names):
            raise ValueError(f"{path}, line {i}: wrong number of fields")
        r = {k: r.get(k, PAPER) if k == "kind" else r[k] for k in names}
        if r["status"] not in STATUSES:
            raise ValueError(f"{path}, line {i}: unknown status {r['status']!r} (expected one of {STATUSES})")
        if r["kind"] not in KINDS:
            raise ValueError(f"{path}, line {i}: unknown kind {r['kind']!r} (expected one of {KINDS})")
        out.append(Claim(**r))
    return out


def counts(claims: list[Claim], kind: str | None = None) -> dict[str, int]:
    """``{"PASS": n, "FAIL": n, "NOT ASSESSABLE": n}``, of the rows of ``kind`` only when given."""
    c = Counter(x.status for x in claims if kind is None or x.kind == kind)
    return {s: c.get(s, 0) for s in STATUSES}


def counts_by_kind(claims: list[Claim]) -> dict[str, dict[str, int]]:
    """``{kind: counts}`` for every kind in `KINDS` (zeros included)."""
    return {k: counts(claims, k) for k in KINDS}
