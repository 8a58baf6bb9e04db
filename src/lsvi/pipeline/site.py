"""The replication site: ``results/<scale>/site/index.html``, a static report to look at.

``python -m lsvi.pipeline.site results/<scale>`` (the pipeline's ``site`` rule, ``make report``)
reads what the pipeline already produced and writes a self-contained directory that works
opened as a file (no server, no internet)::

    results/<scale>/site/index.html              summary, provenance, every claim
    results/<scale>/site/notebooks/<stem>.html   the executed notebook (nbconvert, images inlined)
    results/<scale>/site/figures/<name>.png      copies of figures/<scale>/<name>.png

Inputs: the aggregated ``results/<scale>/claims.csv`` (the rows and their counts, FAILED /
MISSING notebooks included), the header of ``REPLICATION.md`` (when and on what the results
were produced), ``results/<scale>/<stem>/executed.ipynb``, the figures the config lists, and
``results/<s>/claims.csv`` of every other scale ``s`` that has a report, for the side-by-side
status columns (which results depend on the scale).

Claims are grouped per paper (`PAPERS`: notebook prefix -> paper), then per notebook
(its figures beside its claims rows, grouped by source). The headline and the per-paper counts
are of the rows of kind ``paper`` (the papers' statements); the other kinds are counted apart
(`lsvi.pipeline.claims.KINDS`). A notebook whose inputs changed since its run is marked STALE
(`lsvi.pipeline.fingerprint`). A what-if run (`lsvi.pipeline.whatif`: one notebook with other parameters,
``results/whatif/<NAME>/``) is marked as such at the top of the page, from the ``What-if`` line of its REPLICATION.md.
The HTML is rendered by Jinja2 templates (``templates/site_index.html.j2``, ``templates/notebook.html.j2``) and nbconvert's
``HTMLExporter``; nothing here writes HTML by string concatenation.
"""
from __future__ import annotations

import argparse
import datetime as _dt
import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

import jinja2

from lsvi.pipeline import fingerprint as fp
from lsvi.pipeline.captions import load_captions, render as render_caption, scale_params, supported
from lsvi.pipeline.claims import FAIL, KINDS, NOT_ASSESSABLE, PAPER, PASS, STATUSES, Claim, counts, read_claims
from lsvi.pipeline.config import DEFAULT_CONFIG, FIGURES_DIR, Config, ConfigError, load_config
from lsvi.pipeline.report import (OTHER_PAPER, PAPERS, SOURCE_KINDS, _natural_key, paper_of,  # noqa: F401
                                  source_kind)
from lsvi.pipeline.hardware import hardware_info

TEMPLATES = Path(__file__).with_name("templates")


# Library versions shown in the provenance block (those installed; others are skipped).
LIBRARIES = ("jax", "jaxlib", "numpy", "scipy", "blackjax", "optax", "pymc", "arviz", "particles",
             "gmmvi", "matplotlib", "pandas", "papermill", "nbconvert", "snakemake")

WHATIF_KEY = "What-if"  # REPLICATION.md's header line of a what-if run (lsvi.pipeline.whatif): marked on the page
MATHJAX_ENV = "LSVI_MATHJAX_URL"  # e.g. https://cdnjs.cloudflare.com/ajax/libs/mathjax/2.7.7/latest.js?config=TeX-AMS_CHTML-full,Safe

STATUS_CLASS = {PASS: "pass", FAIL: "fail", NOT_ASSESSABLE: "na"}


def read_provenance(md_path: Path) -> dict[str, str]:
    """The ``- **key**: value`` lines at the top of REPLICATION.md (scale, date, hardware)."""
    out: dict[str, str] = {}
    try:
        text = md_path.read_text()
    except OSError:
        return out
    for line in text.splitlines():
        if line.startswith("## "):
            break
        m = re.match(r"^- \*\*(.+?)\*\*: (.*)$", line)
        if m:
            out[m.group(1)] = m.group(2).replace("`", "")
    return out


def git_commit(root: Path) -> str:
    """``HEAD``'s hash, with ``+dirty`` when tracked files differ from it; ``unknown`` without git."""
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, check=True)
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root,
                               capture_output=True, text=True, check=True)
        return head.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def library_versions(names=LIBRARIES) -> dict[str, str]:
    out = {}
    for n in names:
        try:
            out[n] = importlib.metadata.version(n)
        except importlib.metadata.PackageNotFoundError:
            pass
    return out


def scale_statuses(results_root: Path, scales) -> dict[str, dict[tuple[str, str], str]]:
    """``{scale: {(notebook, id): status}}`` for every scale with a ``results/<scale>/claims.csv``."""
    out = {}
    for s in scales:
        p = results_root / s / "claims.csv"
        if p.is_file():
            out[s] = {c.key: c.status for c in read_claims(p)}
    return out


def with_captions(nb, captions: dict[str, str]):
    """The notebook with a markdown cell "**Figure <name>.** <caption>" after each code cell that saves figure
    <name> (``run.save_figure(..., "<name>")``) or table <name> (``run.save_table(..., "<name>")``), for the names
    of ``captions`` (rendered at the notebook's scale); the executed notebook on disk is not changed."""
    from nbformat import v4

    cells = []
    for cell in nb.cells:
        cells.append(cell)
        if cell.cell_type != "code":
            continue
        src = cell.source if isinstance(cell.source, str) else "".join(cell.source)
        for name, text in captions.items():
            saves = {k for k in ("figure", "table") if f"save_{k}(" in src}
            if saves and re.search(rf"[\"']{re.escape(name)}[\"']", src):
                kind = "Figure" if "figure" in saves else "Table"
                cells.append(v4.new_markdown_cell(f"**{kind} `{name}`.** {text}"))
    nb.cells = cells
    return nb


def render_notebook(src: Path, dest: Path, mathjax_url: str = "", captions: dict[str, str] | None = None) -> None:
    """``src`` (an executed .ipynb) as standalone HTML: nbconvert's lab template with images and
    CSS inlined and no script from a CDN (``templates/notebook.html.j2``); LaTeX is then shown
    as source unless ``mathjax_url`` (a MathJax 2 script, local or online) is given. ``captions``
    ({name: text}) are shown under the cells that save those figures and tables (`with_captions`)."""
    import nbconvert
    import nbformat

    exporter = nbconvert.HTMLExporter(template_name="lab", template_file="notebook.html.j2",
                                      extra_template_paths=[str(TEMPLATES)], embed_images=True,
                                      mathjax_url=mathjax_url)
    nb = nbformat.read(src, as_version=4)
    body, _ = exporter.from_notebook_node(with_captions(nb, captions or {}))
    dest.write_text(body, encoding="utf-8")


@dataclass
class NotebookView:
    stem: str
    description: str
    link: str | None  # notebooks/<stem>.html, or None if the notebook has no executed copy
    figures: list[dict]  # {"name", "src" (relative) or None, "caption" or None, "rows": [(id, status, css class)]}
    tables: list[dict]  # {"name", "caption" or None, "rows"}
    groups: list[tuple[str, list[dict]]]  # (source, rows)
    counts: dict[str, int]  # of its `paper` rows
    n_other: int  # rows of the other kinds
    stale: list[str]  # inputs changed since its run (empty: current)


def _row(c: Claim, statuses: dict, other_scales: list[str]) -> dict:
    """One claims-table row; ``by_scale``: its status at each other scale with a report (None: absent
    there); ``differs``: some of those differ from this scale's status (the result depends on the scale)."""
    by_scale = [(s, statuses[s].get(c.key)) for s in other_scales]
    return {
        "id": c.id, "kind": c.kind, "source": c.source, "paper": c.paper, "measured": c.measured, "criterion": c.criterion,
        "status": c.status, "cls": STATUS_CLASS[c.status], "note": c.note, "notebook": c.notebook,
        "by_scale": by_scale, "differs": any(st is not None and st != c.status for _, st in by_scale),
    }


def _caption(caption, params: dict, mine: list[Claim]) -> dict:
    """A figure's caption rendered with its notebook's parameters at this scale, and the statuses of the rows it
    supports (`lsvi.pipeline.captions`); None when it has none."""
    if caption is None:
        return {"caption": None, "rows": []}
    status = {c.id: c.status for c in mine}
    return {"caption": render_caption(caption, params),
            "rows": [(i, status[i], STATUS_CLASS[status[i]]) for i in supported(caption, list(status))]}


def build_site(
    results_dir: str | os.PathLike,
    config: str | os.PathLike | Config = DEFAULT_CONFIG,
    scale: str | None = None,
    out_dir: str | os.PathLike | None = None,
    figures_root: str | os.PathLike | None = None,
    results_root: str | os.PathLike | None = None,
    root: str | os.PathLike | None = None,
    mathjax_url: str = "",
) -> dict[str, int]:
    """Write the site for ``results_dir`` (``results/<scale>``) into ``out_dir`` (default
    ``results_dir/site``); return the claim counts shown on its index.

    ``figures_root`` holds ``<scale>/<name>.png`` (default ``<root>/figures``); ``results_root``
    holds the other scales' ``<s>/claims.csv`` (default: the parent of ``results_dir``).
    The site is written to a temporary directory next to ``out_dir`` and swapped in; it loads
    nothing from the network unless ``mathjax_url`` is given (see `render_notebook`).
    """
    results_dir = Path(results_dir)
    scale = scale or results_dir.resolve().name
    cfg = config if isinstance(config, Config) else load_config(config, {"scale": scale}, check_notebooks=False)
    root = Path(root) if root is not None else cfg.root
    out_dir = Path(out_dir) if out_dir is not None else results_dir / "site"
    figures_root = Path(figures_root) if figures_root is not None else root / FIGURES_DIR
    results_root = Path(results_root) if results_root is not None else results_dir.parent

    rows = read_claims(results_dir / "claims.csv")
    captions = load_captions(root)
    stale = fp.stale(results_dir, cfg, scale)
    statuses = scale_statuses(results_root, [s for s in cfg.scales if s != scale])
    statuses[scale] = {c.key: c.status for c in rows}
    scales_with_report = [s for s in cfg.scales if s in statuses]

    tmp = out_dir.with_name(f".{out_dir.name}.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    (tmp / "notebooks").mkdir(parents=True)
    (tmp / "figures").mkdir()

    stems = list(cfg.notebooks) + [s for s in dict.fromkeys(c.notebook for c in rows) if s not in cfg.notebooks]
    by_paper: OrderedDict[tuple[str, str], list[NotebookView]] = OrderedDict((p[:2], []) for p in PAPERS)
    by_paper[OTHER_PAPER] = []
    source_summary: OrderedDict[tuple[str, str, str], list[Claim]] = OrderedDict()
    for stem in stems:
        spec = cfg.notebooks.get(stem)
        mine = [c for c in rows if c.notebook == stem]
        executed = results_dir / stem / "executed.ipynb"
        params = scale_params(cfg, stem, scale) if spec else {}
        link = None
        if executed.is_file():
            names = [*spec.figures, *spec.tables] if spec else []
            texts = {n: render_caption(captions[n], params) for n in names if n in captions}
            render_notebook(executed, tmp / "notebooks" / f"{stem}.html", mathjax_url, texts)
            link = f"notebooks/{stem}.html"
        figures, tables = [], []
        for name in (spec.figures if spec else ()):
            png = figures_root / scale / f"{name}.png"
            src = None
            if png.is_file():
                shutil.copyfile(png, tmp / "figures" / png.name)
                src = f"figures/{png.name}"
            figures.append({"name": name, "src": src, **_caption(captions.get(name), params, mine)})
        for name in (spec.tables if spec else ()):
            if spec and name in spec.figures:
                continue  # drawn as a figure too: captioned there
            tables.append({"name": name, **_caption(captions.get(name), params, mine)})
        groups: OrderedDict[str, list[dict]] = OrderedDict()
        for c in sorted(mine, key=lambda c: _natural_key(c.source)):
            groups.setdefault(c.source, []).append(_row(c, statuses, [s for s in scales_with_report if s != scale]))
            source_summary.setdefault((paper_of(stem)[0], source_kind(c.source), c.source), []).append(c)
        by_paper[paper_of(stem)].append(NotebookView(
            stem, spec.description if spec else "", link, figures, tables, list(groups.items()), counts(mine, PAPER),
            sum(c.kind != PAPER for c in mine), stale.get(stem, [])))

    papers = []
    for (short, title), nbs in by_paper.items():
        cs = [c for c in rows if paper_of(c.notebook)[0] == short]
        if not nbs and not cs:
            continue
        kinds = [(k, counts([c for c in cs if c.kind == k])) for k in KINDS if k != PAPER]
        papers.append({"short": short, "title": title, "notebooks": nbs, "counts": counts(cs, PAPER),
                       "n": sum(c.kind == PAPER for c in cs), "n_rows": len(cs),
                       "kinds": [(k, n) for k, n in kinds if sum(n.values())]})
    order = {short: i for i, (short, _) in enumerate(by_paper)}
    sources = [{"paper": p, "kind": k, "source": s, "counts": counts(cs), "n": len(cs)}
               for (p, k, s), cs in sorted(source_summary.items(),
                                           key=lambda kv: (order[kv[0][0]], SOURCE_KINDS.index(kv[0][1]), _natural_key(kv[0][2])))]

    total = counts(rows, PAPER)
    n_differs = sum(r["differs"] for p in papers for nb in p["notebooks"] for _, rs in nb.groups for r in rs)
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    run_provenance = read_provenance(results_dir / "REPLICATION.md")
    html = env.get_template("site_index.html.j2").render(
        whatif=run_provenance.get(WHATIF_KEY),  # a what-if run's notebook, scale, parameters (lsvi.pipeline.whatif)
        scale=scale, scale_description=cfg.scales.get(scale, ""), total=total, n_claims=sum(total.values()),
        n_rows=len(rows), n_differs=n_differs, stale=stale,
        statuses=STATUSES, status_class=STATUS_CLASS, papers=papers, sources=sources,
        scales_with_report=scales_with_report,
        run_provenance=run_provenance,
        build={"commit": git_commit(root),
               "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
               "machine": hardware_info().get("cpu", ""), "platform": hardware_info().get("platform", "")},
        versions=library_versions(),
    )
    (tmp / "index.html").write_text(html, encoding="utf-8")
    shutil.rmtree(out_dir, ignore_errors=True)
    os.replace(tmp, out_dir)
    return {"claims": len(rows), "paper_claims": sum(total.values()), "pass": total[PASS], "fail": total[FAIL],
            "not_assessable": total[NOT_ASSESSABLE], "stale": len(stale)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m lsvi.pipeline.site", description=__doc__.split("\n")[0])
    ap.add_argument("results_dir", help="results/<scale> (holding claims.csv from the aggregate rule)")
    ap.add_argument("--config", default=DEFAULT_CONFIG, help="config file (default: %(default)s)")
    ap.add_argument("--scale", default=None, help="scale (default: the name of results_dir)")
    ap.add_argument("--out", default=None, help="output directory (default: results_dir/site)")
    ap.add_argument("--mathjax-url", default=os.environ.get(MATHJAX_ENV, ""),
                    help=f"MathJax 2 script (local path or URL) that renders the notebooks' LaTeX (default: ${MATHJAX_ENV}, "
                         "else none: the site then loads nothing from the network and shows LaTeX as source)")
    args = ap.parse_args(argv)
    if not (Path(args.results_dir) / "claims.csv").is_file():
        print(f"no {Path(args.results_dir) / 'claims.csv'}: run the pipeline (make all) first", file=sys.stderr)
        return 1
    try:
        n = build_site(args.results_dir, args.config, args.scale, args.out, mathjax_url=args.mathjax_url)
    except ConfigError as e:
        print(f"ConfigError: {e}", file=sys.stderr)
        return 2
    out = Path(args.out or Path(args.results_dir) / "site") / "index.html"
    print(f"{out}: {n['claims']} rows; {n['paper_claims']} statements of the papers: {n['pass']} PASS, {n['fail']} FAIL, "
          f"{n['not_assessable']} NOT ASSESSABLE; {n['stale']} STALE notebook(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
