"""Aggregate the notebooks' claims into ``results/<scale>/claims.csv`` and ``REPLICATION.md``.

``python -m lsvi.pipeline.report results/<scale>`` (the pipeline's ``aggregate`` rule) reads
``results/<scale>/<stem>/claims.csv`` for every notebook listed in ``config/scales.yaml``
and writes

* ``results/<scale>/claims.csv``: all rows, notebooks in config order; a notebook that
  failed or never ran contributes one row ``<stem>:FAILED`` / ``<stem>:MISSING`` with
  status FAIL, so it cannot be silently omitted;
* ``results/<scale>/REPLICATION.md``: scale, date and hardware, a summary count, the
  status of every notebook, then the claims grouped by source (figures, tables,
  theorems, other) with paper vs measured vs criterion vs PASS / FAIL / NOT ASSESSABLE.

Claims are identified by ``(notebook, id)``: two notebooks may use the same id. A claims
file that cannot be read (bad columns, unknown status, a duplicate id, rows that name
another notebook) makes its notebook FAILED in the report; it never stops the report.

A notebook's status is ``OK`` (its claims.csv exists), ``FAILED`` (the pipeline kept
the partially executed notebook as ``failed.ipynb``) or ``MISSING`` (neither).

The headline counts the rows of kind ``paper`` (statements of the five papers) only; the other
kinds (``reading``, ``illustration``, ``beyond``, ``reference``; `lsvi.pipeline.claims`) are
counted apart, and every count is also given per paper (`PAPERS`).

Current by fingerprint. Each notebook's inputs are recorded before its run
(`lsvi.pipeline.fingerprint`); the aggregate writes them to ``results/<scale>/fingerprints.json``,
committed with the report. ``--check`` (``make check-report``) fails on a FAILED or MISSING
notebook and on a STALE one (its inputs changed since its run).

Carrying rows over. A notebook whose inputs are byte-identical to those of its committed run need
not be rerun: ``python -m lsvi.pipeline.report results/cpu --carry-over STEM ...`` rebuilds
``results/cpu/<stem>/claims.csv``, ``benchmark.tsv`` and ``fingerprint.json`` from the committed report
and refuses a notebook whose fingerprint differs from the working tree's. Where the rows come from is
generated, never typed (`rows_origin`): the commit of ``results/<scale>/claims.csv`` from which on
the notebook's rows are identical to the carried ones, found in the git history.
"""
from __future__ import annotations

import argparse
import datetime as _dt
import os
import re
import subprocess
import sys
import tempfile
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from pathlib import Path

import json

from lsvi.pipeline import fingerprint as fp
from lsvi.pipeline.hardware import hardware_info
from lsvi.pipeline.claims import (FAIL, KINDS, NOT_ASSESSABLE, PAPER, PASS, Claim, counts, duplicate_keys, read_claims,
                                  write_claims)
from lsvi.pipeline.config import DEFAULT_CONFIG, Config, ConfigError, load_config

OK, FAILED, MISSING = "OK", "FAILED", "MISSING"
CARRIED_OVER = "carried_over.txt"
SOURCE_KINDS = ("Figures", "Tables", "Theorems", "Other")

# Notebook-number prefix -> paper (the longest matching prefix wins): 0x-3x LSVI, 4x RABVI,
# 50-51 NGVI, 52-53 Alquier's slides. A notebook matching none goes under "Other".
PAPERS = (
    ("LSVI", "Least squares variational inference (Le Fay, Chopin, Barthelmé; NeurIPS 2025)", ("0", "1", "2", "3")),
    ("RABVI", "A framework for improving the reliability of black-box VI (Welandawe et al.)", ("4",)),
    ("NGVI", "Understanding stochastic natural gradient variational inference (Wu & Gardner)", ("50", "51")),
    ("Alquier", "Generalization bounds for variational inference (Alquier, EcoSta 2019 slides)", ("52", "53")),
)
OTHER_PAPER = ("Other", "Notebooks not attributed to a paper")


def paper_of(stem: str) -> tuple[str, str]:
    """``(short name, title)`` of the paper notebook ``stem`` replicates (`PAPERS`)."""
    best, n = OTHER_PAPER, 0
    for short, title, prefixes in PAPERS:
        for p in prefixes:
            if stem.startswith(p) and len(p) > n:
                best, n = (short, title), len(p)
    return best
_PAPER = r"^\s*(?:[^,]*\)\s*,\s*)?"  # an optional "<authors> (<year or name>), " naming the paper first
_SOURCE_PATTERNS = (
    ("Figures", re.compile(_PAPER + r"(fig|figure)\b", re.I)),
    ("Tables", re.compile(_PAPER + r"(tab|table)\b", re.I)),
    ("Theorems", re.compile(_PAPER + r"(thm|theorem|prop|proposition|lem|lemma|cor|corollary|assumption|def|definition)\b",
                            re.I)),
)


@dataclass
class NotebookResult:
    """What one listed notebook left in ``results/<scale>/<stem>/``."""

    stem: str
    status: str
    claims: list[Claim] = field(default_factory=list)
    missing_figures: list[str] = field(default_factory=list)
    detail: str = ""
    wall_s: float | None = None
    max_rss_mb: float | None = None
    fingerprint: dict | None = None  # the inputs recorded before its run (`lsvi.pipeline.fingerprint`)

    @property
    def counts(self) -> dict[str, int]:
        return counts(self.claims)


def source_kind(source: str) -> str:
    """``"Fig. 3"`` -> Figures, ``"Table 2"`` -> Tables, ``"Thm 3.4"`` -> Theorems, else Other."""
    for kind, pat in _SOURCE_PATTERNS:
        if pat.match(source):
            return kind
    return "Other"


def _natural_key(s: str):
    return [int(t) if t.isdigit() else t.lower() for t in re.split(r"(\d+)", s)]


def collect(cfg: Config, results_dir: str | os.PathLike, scale: str | None = None) -> list[NotebookResult]:
    """The `NotebookResult` of every notebook listed in ``cfg``, in config order."""
    results_dir = Path(results_dir)
    scale = cfg.scale if scale is None else scale
    out = []
    for stem in cfg.notebooks:
        d = results_dir / stem
        claims_path, failed_path = d / "claims.csv", d / "failed.ipynb"
        figures = [f for f in cfg.outputs(stem, scale)["figures"] if not (cfg.root / f).is_file()]
        if failed_path.is_file() and (
            not claims_path.is_file() or failed_path.stat().st_mtime > claims_path.stat().st_mtime
        ):
            out.append(NotebookResult(stem, FAILED, missing_figures=figures,
                                      detail=f"failed or interrupted; partially executed: {failed_path}"))
        elif claims_path.is_file():
            try:
                claims = _read_notebook_claims(claims_path, stem, scale)
            except (ValueError, KeyError, OSError, TypeError) as e:
                out.append(NotebookResult(stem, FAILED, missing_figures=figures, detail=f"unreadable {claims_path}: {e}"))
                continue
            origin = d / CARRIED_OVER
            detail = f"carried over from the {origin.read_text().strip()}" if origin.is_file() else str(claims_path)
            out.append(NotebookResult(stem, OK, claims, figures, detail, *read_benchmark(d / "benchmark.tsv"),
                                      fingerprint=fp.read(d / fp.FINGERPRINT)))
        else:
            out.append(NotebookResult(stem, MISSING, missing_figures=figures, detail=f"no {claims_path}"))
    return out


def read_benchmark(path: Path) -> tuple[float | None, float | None]:
    """(wall time s, peak RSS MB) from the ``benchmark.tsv`` Snakemake writes for a rule
    (columns ``s`` and ``max_rss``), or (None, None)."""
    import csv

    try:
        with open(path, newline="") as fh:
            row = next(csv.DictReader(fh, delimiter="\t"))
        return float(row["s"]), (float(row["max_rss"]) if row.get("max_rss", "NA") not in ("NA", "-", "") else None)
    except (OSError, StopIteration, KeyError, ValueError):
        return None, None


def _read_notebook_claims(path: Path, stem: str, scale: str) -> list[Claim]:
    """The claims of notebook ``stem``, with its notebook and scale filled in; ValueError if
    the file names another notebook or repeats an id."""
    claims = [replace(c, notebook=c.notebook or stem, scale=c.scale or scale) for c in read_claims(path)]
    other = sorted({c.notebook for c in claims} - {stem})
    if other:
        raise ValueError(f"rows name other notebook(s) {other}")
    dup = duplicate_keys(claims)
    if dup:
        raise ValueError(f"duplicate claim ids {[i for _, i in dup]}")
    return claims


def all_rows(results: list[NotebookResult], scale: str) -> list[Claim]:
    """All claims, plus one failing row per FAILED / MISSING notebook."""
    rows: list[Claim] = []
    for r in results:
        if r.status == OK:
            rows += r.claims
        else:
            rows.append(Claim(
                id=f"{r.stem}:{r.status}", source=f"notebook {r.stem}", paper="notebook runs",
                measured=r.status, criterion="notebook executes and writes claims.csv", status=FAIL,
                scale=scale, notebook=r.stem, note=r.detail,
            ))
    return rows


def _cell(v) -> str:
    return str(v).replace("|", "\\|").replace("\n", " ")


def render_markdown(
    results: list[NotebookResult],
    scale: str,
    scale_description: str = "",
    hardware: dict[str, str] | None = None,
    date: str | None = None,
) -> str:
    """The text of REPLICATION.md."""
    rows = [c for r in results if r.status == OK for c in r.claims]
    n = counts(rows, PAPER)
    n_status = {s: sum(r.status == s for r in results) for s in (OK, FAILED, MISSING)}
    date = date or _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    hardware = hardware if hardware is not None else hardware_info()

    L = [f"# Replication report — scale `{scale}`", ""]
    L.append(f"- **Scale**: `{scale}`" + (f" — {scale_description}" if scale_description else ""))
    L.append(f"- **Date**: {date}")
    for k, v in hardware.items():
        L.append(f"- **{k}**: {v}")
    L += ["", "## Summary", ""]
    L.append(f"**{sum(n.values())} statements of the papers: {n[PASS]} PASS, {n[FAIL]} FAIL, {n[NOT_ASSESSABLE]} "
             f"NOT ASSESSABLE at this scale.** Notebooks: {n_status[OK]} OK, {n_status[FAILED]} FAILED, "
             f"{n_status[MISSING]} MISSING (of {len(results)} listed).")
    L += ["", f"The headline counts the rows of kind `paper` (statements of the five papers). The {len(rows)} rows of "
          "the report by kind and by paper (`reading`: one row of an as-printed / corrected pair; `illustration`: of a "
          "result the papers cite; `beyond`: our own question; `reference`: a check of a reference or a tool):", "",
          "| paper | " + " | ".join(f"{k}: PASS / FAIL / N.A." for k in KINDS) + " | all rows |",
          "|---|" + "---:|" * (len(KINDS) + 1)]
    for short, _ in [p[:2] for p in PAPERS] + [OTHER_PAPER]:
        mine = [c for c in rows if paper_of(c.notebook)[0] == short]
        if mine:
            cells = [counts(mine, k) for k in KINDS]
            L.append(f"| {short} | " + " | ".join(f"{c[PASS]} / {c[FAIL]} / {c[NOT_ASSESSABLE]}" for c in cells)
                     + f" | {len(mine)} |")
    cells = [counts(rows, k) for k in KINDS]
    L.append("| **all** | " + " | ".join(f"**{c[PASS]} / {c[FAIL]} / {c[NOT_ASSESSABLE]}**" for c in cells)
             + f" | **{len(rows)}** |")
    bad = [r for r in results if r.status != OK]
    if bad:
        L += ["", "**Incomplete run** — notebooks without results: "
              + ", ".join(f"`{r.stem}` ({r.status})" for r in bad) + "."]
    carried = [r.stem for r in results if r.detail.startswith("carried over")]
    if carried:
        L += ["", f"**{len(carried)} of {len(results)} notebooks were not rerun for this report**: their inputs are "
              "byte-identical to those of an earlier run (same fingerprint), whose rows, wall times and peak memory are "
              "carried over (its origin is in each one's detail column): " + ", ".join(f"`{s}`" for s in carried) + "."]
    unprinted = [r.stem for r in results if r.status == OK and r.fingerprint is None]
    if unprinted:
        L += ["", "**No fingerprint** (inputs not recorded, so the rows cannot be shown current): "
              + ", ".join(f"`{s}`" for s in unprinted) + "."]
    L += ["", "Whether each notebook's rows are still the code's result: `make check-report SCALE=" + scale + "` "
          "compares the inputs recorded in `fingerprints.json` with the working tree and lists any STALE notebook."]
    for status, label in ((FAIL, "Failing claims"), (NOT_ASSESSABLE, "Not assessable at this scale")):
        sel = [c for c in rows if c.status == status]
        if sel:
            L += ["", f"{label}: " + ", ".join(f"`{c.notebook}:{c.id}`" for c in sel) + "."]

    L += ["", "## Notebooks", "",
          "| notebook | status | claims | pass | fail | not assessable | wall time | peak RSS | missing figures | detail "
          "| fingerprint |",
          "|---|---|---:|---:|---:|---:|---:|---:|---|---|---|"]
    for r in results:
        status = r.status if r.status == OK else f"**{r.status}**"
        k = r.counts
        wall = f"{r.wall_s / 60:.1f} min" if r.wall_s is not None else "-"
        rss = f"{r.max_rss_mb / 1024:.2f} GiB" if r.max_rss_mb is not None else "-"
        L.append(f"| `{r.stem}` | {status} | {len(r.claims)} | {k[PASS]} | {k[FAIL]} | {k[NOT_ASSESSABLE]} | "
                 f"{wall} | {rss} | {_cell(', '.join(r.missing_figures)) or '-'} | {_cell(r.detail)} | "
                 f"{r.fingerprint['digest'][:12] if r.fingerprint else '-'} |")
    walls = [r.wall_s for r in results if r.wall_s is not None]
    if walls:
        L += ["", f"Wall time and peak memory (process tree) of each notebook from Snakemake's `benchmark.tsv`; "
              f"they add up to {sum(walls) / 60:.1f} min (notebooks run in parallel as the cores allow, so the "
              "pipeline's elapsed time is shorter)."]

    by_kind: dict[str, OrderedDict[str, list[Claim]]] = {k: OrderedDict() for k in SOURCE_KINDS}
    for c in rows:
        by_kind[source_kind(c.source)].setdefault(c.source, []).append(c)
    for kind in SOURCE_KINDS:
        groups = by_kind[kind]
        if not groups:
            continue
        L += ["", f"## {kind}"]
        for source in sorted(groups, key=_natural_key):
            cs = groups[source]
            k = counts(cs)
            extra = f", {k[NOT_ASSESSABLE]} not assessable" if k[NOT_ASSESSABLE] else ""
            L += ["", f"### {source} ({k[PASS]}/{len(cs)} pass{extra})", "",
                  "| notebook | id | kind | paper | measured | criterion | result | note |",
                  "|---|---|---|---|---|---|---|---|"]
            for c in cs:
                res = {PASS: "PASS", FAIL: "**FAIL**", NOT_ASSESSABLE: "_NOT ASSESSABLE_"}[c.status]
                L.append(f"| {_cell(c.notebook)} | `{_cell(c.id)}` | {c.kind} | {_cell(c.paper)} | {_cell(c.measured)} | "
                         f"{_cell(c.criterion)} | {res} | {_cell(c.note)} |")
    if not rows:
        L += ["", "_No claims were produced._"]
    return "\n".join(L) + "\n"


def write_report(
    results_dir: str | os.PathLike,
    config: str | os.PathLike | Config = DEFAULT_CONFIG,
    scale: str | None = None,
    hardware: dict[str, str] | None = None,
) -> dict[str, int]:
    """Write ``results_dir/claims.csv`` and ``results_dir/REPLICATION.md``; return counts.

    ``scale`` defaults to the name of ``results_dir`` (``results/<scale>``).
    """
    results_dir = Path(results_dir)
    scale = scale or results_dir.resolve().name
    cfg = config if isinstance(config, Config) else load_config(config, {"scale": scale}, check_notebooks=False)
    results = collect(cfg, results_dir, scale)
    rows = all_rows(results, scale)
    results_dir.mkdir(parents=True, exist_ok=True)
    write_claims(results_dir / "claims.csv", rows, scale=scale)
    text = render_markdown(results, scale, cfg.scales.get(scale, ""), hardware)
    md = results_dir / "REPLICATION.md"
    tmp = md.with_name(".REPLICATION.md.tmp")
    tmp.write_text(text)
    os.replace(tmp, md)
    prints = {r.stem: r.fingerprint for r in results if r.status == OK and r.fingerprint is not None}
    tmp = results_dir / f".{fp.FINGERPRINTS}.tmp"
    tmp.write_text(json.dumps(prints, indent=1, sort_keys=True) + "\n")
    os.replace(tmp, results_dir / fp.FINGERPRINTS)
    k = counts([c for r in results for c in r.claims], PAPER)
    return {
        "claims": sum(len(r.claims) for r in results),
        "paper_claims": sum(k.values()),
        "pass": k[PASS],
        "fail": k[FAIL],
        "not_assessable": k[NOT_ASSESSABLE],
        **{s.lower(): sum(r.status == s for r in results) for s in (OK, FAILED, MISSING)},
    }


def _row_key(rows) -> list:
    return sorted((c.id, c.kind, c.status, c.measured, c.note) for c in rows)


def rows_origin(results_dir: str | os.PathLike, stem: str, rows) -> str:
    """Where ``rows`` (the `Claim` rows of notebook ``stem``) come from, generated from git: walking the
    history of ``results_dir/claims.csv`` from the newest commit back, the oldest commit of the unbroken
    stretch in which the notebook's rows (id, kind, status, measured value, note) are identical to
    ``rows`` — the commit that first recorded the run that produced them. Returns e.g. "cpu run first
    committed in results/cpu/claims.csv at 9669ce5 (2026-11-28 14:02 UTC)", or a sentence saying the
    rows are not in the committed history (no git, an uncommitted report)."""
    results_dir = Path(results_dir).resolve()
    scale = results_dir.name
    path = results_dir / "claims.csv"
    want = _row_key(rows)
    try:
        root = Path(subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=results_dir, capture_output=True,
                                   text=True, check=True).stdout.strip())
        rel = path.relative_to(root).as_posix()
        log = subprocess.run(["git", "log", "--format=%H %ct", "--", rel], cwd=root, capture_output=True, text=True,
                             check=True).stdout.split("\n")
    except (OSError, ValueError, subprocess.CalledProcessError):
        return f"committed {scale} report (no git history of {path.name} to date its rows)"
    found = None
    with tempfile.TemporaryDirectory() as tmp:
        for line in filter(None, log):
            sha, when = line.split()
            text = subprocess.run(["git", "show", f"{sha}:{rel}"], cwd=root, capture_output=True, text=True).stdout
            (Path(tmp) / "c.csv").write_text(text)
            try:
                mine = [c for c in read_claims(Path(tmp) / "c.csv") if c.notebook == stem]
            except (ValueError, KeyError, TypeError):
                break
            if _row_key(mine) != want:
                break
            found = (sha, int(when))
    if found is None:
        return f"{scale} report in the working tree (these rows of {stem} are not in the committed history of {rel})"
    date = _dt.datetime.fromtimestamp(found[1], _dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return f"{scale} run first committed in {rel} at {found[0][:7]} ({date})"


def carry_over(results_dir: str | os.PathLike, stems,
               config: str | os.PathLike | Config = DEFAULT_CONFIG) -> dict[str, str]:
    """Rebuild ``results_dir/<stem>/claims.csv``, ``benchmark.tsv`` and ``fingerprint.json`` of each of
    ``stems`` from the report already in ``results_dir`` (its ``claims.csv``, ``fingerprints.json`` and the
    notebook table of ``REPLICATION.md``, wall time to 0.1 min and peak RSS to 0.01 GiB) and write
    ``carried_over.txt`` = their origin, generated by `rows_origin`. Returns {stem: origin}; ValueError if
    the report has no row, no table line or no fingerprint for a stem, or if its inputs changed since that
    run (STALE)."""
    results_dir = Path(results_dir)
    scale = results_dir.resolve().name
    cfg = config if isinstance(config, Config) else load_config(config, {"scale": scale}, check_notebooks=False)
    try:
        prints = json.loads((results_dir / fp.FINGERPRINTS).read_text())
    except (OSError, ValueError):
        prints = {}
    rows = read_claims(results_dir / "claims.csv")
    table = {}  # stem -> (wall s, peak RSS MiB) of the notebook table's OK lines ("-" where not measured)
    for line in (results_dir / "REPLICATION.md").read_text().splitlines():
        cells = [c.strip() for c in line.split("|")]
        if len(cells) > 9 and cells[2] == OK and cells[1].startswith("`"):
            wall, rss = (re.match(r"([\d.]+) (min|GiB)$", x) for x in cells[7:9])
            table[cells[1].strip("`")] = (float(wall[1]) * 60 if wall else None, float(rss[1]) * 1024 if rss else None)
    out = {}
    for stem in stems:
        mine = [c for c in rows if c.notebook == stem]
        if not mine or stem not in table:
            raise ValueError(f"{results_dir} has no rows or no notebook-table line for {stem!r}: cannot carry it over")
        diff = fp.changed(prints.get(stem), fp.inputs(cfg, stem, scale))
        if diff:
            raise ValueError(f"{stem!r} is STALE (inputs changed since its run: {', '.join(diff[:5])}): rerun it")
        d = results_dir / stem
        d.mkdir(parents=True, exist_ok=True)
        write_claims(d / "claims.csv", mine, scale=mine[0].scale, notebook=stem)
        wall, rss = table[stem]
        if wall is not None:
            (d / "benchmark.tsv").write_text(f"s\th:m:s\tmax_rss\n{wall:.1f}\t-\t{'NA' if rss is None else f'{rss:.1f}'}\n")
        (d / fp.FINGERPRINT).write_text(json.dumps(prints[stem], indent=1, sort_keys=True) + "\n")
        out[stem] = rows_origin(results_dir, stem, mine)
        (d / CARRIED_OVER).write_text(out[stem] + "\n")
    return out


def check_report(results_dir: str | os.PathLike, config: str | os.PathLike | Config = DEFAULT_CONFIG,
                 scale: str | None = None) -> list[str]:
    """Problems of a written report: a missing REPLICATION.md / claims.csv, any FAILED or MISSING
    notebook in it, or a STALE notebook (inputs changed since its run, `lsvi.pipeline.fingerprint`).
    An empty list means the report is complete and current."""
    results_dir = Path(results_dir)
    md, csv_path = results_dir / "REPLICATION.md", results_dir / "claims.csv"
    missing = [str(p) for p in (md, csv_path) if not p.is_file()]
    if missing:
        return [f"{p} does not exist (run the pipeline first)" for p in missing]
    incomplete = [c.notebook + ": " + c.measured for c in read_claims(csv_path)
                  if c.id.endswith((f":{FAILED}", f":{MISSING}"))]
    out = [f"notebook {x}" for x in incomplete]
    for stem, diff in fp.stale(results_dir, config, scale).items():
        out.append(f"notebook {stem}: STALE (inputs changed since its run: {', '.join(diff[:6])}"
                   f"{' ...' if len(diff) > 6 else ''})")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m lsvi.pipeline.report", description=__doc__.split("\n")[0])
    ap.add_argument("results_dir", help="results/<scale>")
    ap.add_argument("--config", default=DEFAULT_CONFIG, help="config file (default: %(default)s)")
    ap.add_argument("--scale", default=None, help="scale (default: the name of results_dir)")
    ap.add_argument("--check", action="store_true",
                    help="do not write: exit 1 unless the report exists, lists no FAILED / MISSING notebook, "
                         "and no notebook is STALE")
    ap.add_argument("--carry-over", nargs="+", metavar="STEM", default=None,
                    help="rebuild these notebooks' results from the report in results_dir, then write the report")
    args = ap.parse_args(argv)
    if args.carry_over:
        for stem, origin in carry_over(args.results_dir, args.carry_over, args.config).items():
            print(f"{stem}: rows carried over from the {origin}")
    if args.check:
        problems = check_report(args.results_dir, args.config, args.scale)
        for p in problems:
            print(f"report check: {p}", file=sys.stderr)
        if not problems:
            print(f"report check: {Path(args.results_dir) / 'REPLICATION.md'} is complete and current "
                  "(no FAILED, MISSING or STALE notebook)")
        return 1 if problems else 0
    try:
        n = write_report(args.results_dir, args.config, args.scale)
    except ConfigError as e:
        print(f"ConfigError: {e}", file=sys.stderr)
        return 2
    print(f"{args.results_dir}: {n['claims']} rows; {n['paper_claims']} statements of the papers: {n['pass']} PASS, "
          f"{n['fail']} FAIL, {n['not_assessable']} NOT ASSESSABLE; "
          f"notebooks {n['ok']} OK, {n['failed']} FAILED, {n['missing']} MISSING "
          f"-> {Path(args.results_dir) / 'REPLICATION.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
