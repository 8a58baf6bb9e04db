"""Two runs of the pipeline side by side: which claims changed status.

``python -m lsvi.pipeline.compare A B`` reads ``A/claims.csv`` and ``B/claims.csv`` (aggregated reports,
`lsvi.pipeline.report`; e.g. the committed ``results/cpu`` and a rerun of the same commit elsewhere) and lists

* every claim (notebook, id) whose status differs, with both measured values;
* claims present in one run only;
* a count per kind of the claims whose status is the same.

"Same commit, same verdicts": two runs of one commit must give the same status to every claim. The exit status
is 1 when a status differs (``--allow ID`` or ``--allow NOTEBOOK:ID`` excuses named rows, for instance timing rows
whose run-to-run spread is reported), 0 otherwise. ``--markdown`` prints a table for a note or the README.
"""
from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path
from typing import NamedTuple


class Change(NamedTuple):
    notebook: str
    id: str
    kind: str
    status_a: str
    status_b: str
    measured_a: str
    measured_b: str


class Comparison(NamedTuple):
    changed: list[Change]
    only_a: list[tuple[str, str]]
    only_b: list[tuple[str, str]]
    same: dict[str, int]  # kind -> count of claims with the same status in both runs


def read_claims(path: str | Path) -> dict[tuple[str, str], dict]:
    """{(notebook, id): row} of an aggregated ``claims.csv`` (a results directory or the file itself)."""
    p = Path(path)
    p = p / "claims.csv" if p.is_dir() else p
    if not p.is_file():
        raise FileNotFoundError(f"no claims file at {p}: run the pipeline (or `python -m lsvi.pipeline.report`) first")
    with open(p, newline="") as fh:
        rows = list(csv.DictReader(fh))
    missing = {"notebook", "id", "kind", "status"} - set(rows[0] if rows else {})
    if rows and missing:
        raise ValueError(f"{p} lacks the columns {sorted(missing)}")
    return {(r["notebook"], r["id"]): r for r in rows}


def compare(a: dict, b: dict) -> Comparison:
    """Compare two `read_claims` results, key by key, in the order of ``a`` then ``b``."""
    changed, same = [], {}
    for k, ra in a.items():
        rb = b.get(k)
        if rb is None:
            continue
        if ra["status"] != rb["status"]:
            changed.append(Change(k[0], k[1], ra["kind"], ra["status"], rb["status"], ra.get("measured", ""),
                                  rb.get("measured", "")))
        else:
            same[ra["kind"]] = same.get(ra["kind"], 0) + 1
    return Comparison(changed, [k for k in a if k not in b], [k for k in b if k not in a], same)


def _allowed(c: Change, allow) -> bool:
    return c.id in allow or f"{c.notebook}:{c.id}" in allow


def format_text(cmp: Comparison, name_a: str, name_b: str, markdown: bool = False, width: int = 160) -> str:
    n_same = sum(cmp.same.values())
    lines = [f"{n_same} claims with the same status in {name_a} and {name_b} ("
             + ", ".join(f"{k} {v}" for k, v in sorted(cmp.same.items())) + f"); {len(cmp.changed)} changed; "
             f"{len(cmp.only_a)} only in {name_a}; {len(cmp.only_b)} only in {name_b}"]
    if markdown and cmp.changed:
        lines += ["", f"| notebook | id | kind | {name_a} | {name_b} | measured in {name_a} | measured in {name_b} |",
                  "|---|---|---|---|---|---|---|"]
        lines += [f"| `{c.notebook}` | `{c.id}` | {c.kind} | {c.status_a} | {c.status_b} | {c.measured_a} | "
                  f"{c.measured_b} |" for c in cmp.changed]
    else:
        for c in cmp.changed:
            lines += [f"CHANGED {c.notebook}:{c.id} ({c.kind}): {c.status_a} -> {c.status_b}",
                      f"    {name_a}: {c.measured_a[:width]}", f"    {name_b}: {c.measured_b[:width]}"]
    lines += [f"ONLY IN {name_a}: {nb}:{i}" for nb, i in cmp.only_a]
    lines += [f"ONLY IN {name_b}: {nb}:{i}" for nb, i in cmp.only_b]
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m lsvi.pipeline.compare", description=__doc__.split("\n")[0])
    ap.add_argument("a", help="results directory (or claims.csv) of the first run")
    ap.add_argument("b", help="results directory (or claims.csv) of the second run")
    ap.add_argument("--allow", nargs="*", default=(), help="ids (or NOTEBOOK:ID) whose change is not an error")
    ap.add_argument("--markdown", action="store_true", help="changed claims as a Markdown table")
    args = ap.parse_args(argv)
    try:
        cmp = compare(read_claims(args.a), read_claims(args.b))
    except (FileNotFoundError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(format_text(cmp, args.a, args.b, markdown=args.markdown))
    return int(any(not _allowed(c, set(args.allow)) for c in cmp.changed))


if __name__ == "__main__":
    sys.exit(main())
