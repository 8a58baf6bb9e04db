"""Fingerprints of a notebook's inputs: is a committed report row still the result of the code?

A notebook's result depends on its **inputs**: the notebook's code cells, every library file it executes
(`lsvi.pipeline.config.notebook_dependencies`: the modules it imports, transitively, and their
packages' ``__init__.py``), its papermill parameters at the scale (``config/scales.yaml``), the lock
file of the environment, the data-set builder when it reads processed data, the committed
data files under ``data/`` that it can read (`committed_data`: ``data/posteriordb/`` for a notebook that executes
its reader, `DATA_READERS`; ``data/processed/`` is built from the pinned packages and the builder, both already
inputs; ``data/README.md`` is documentation), the notebook's own reference files under ``data/references/<stem>/`` (a reference computed
once by a committed script, as posteriordb's reference draws: an input of that notebook alone, so adding one
stales no other notebook), and the declarations (data sets, posteriors) that a
parameter names (``dataset=breast_cancer`` -> ``config/datasets/breast_cancer.yaml``,
`lsvi.pipeline.declarations.declaration_file`).

`inputs` maps each input to the sha256 of its bytes (parameters: of their canonical JSON; the notebook: of its code
cells in order without their comments, `notebook_code`, since its markdown and comments are narrative that no result
depends on, so a corrected sentence does not make a report stale);
`digest` hashes that map. The pipeline records a notebook's inputs *before* running it
(``results/<scale>/<stem>/fingerprint.json``, kept only when the run succeeds); the aggregate
copies them into ``results/<scale>/fingerprints.json``, which is committed with the report.
`stale` compares a recorded fingerprint with the working tree: a notebook whose inputs changed
since its run is **STALE**, and its rows are no longer the code's result. ``make check-report``
fails on a STALE notebook, and the site marks it.

``python -m lsvi.pipeline.fingerprint write results/<scale>/<stem>`` records one notebook's inputs;
``python -m lsvi.pipeline.fingerprint check results/<scale>`` lists the STALE notebooks of a report.
``python -m lsvi.pipeline.fingerprint backfill results/<scale> --commit C`` adds to a committed report's
fingerprints the inputs that a widened rule now counts (e.g. the modules imported by name), hashed as they were at
the commit C its notebooks were run from (`backfill`): the report stays current only where those files are
unchanged since C.
``python -m lsvi.pipeline.fingerprint rehash results/<scale>`` moved a report recorded before comments were left out
of the notebook hash to the current rule, notebook by notebook where the code cells are unchanged
(`rehash_notebooks_without_comments`).
``python -m lsvi.pipeline.fingerprint narrow results/<scale>`` moves a report recorded while every notebook counted
every file under ``data/`` to `committed_data`'s rule: a record loses the data files the rule no longer counts, and
nothing else (`narrow_data`).
"""
from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import sys
import tokenize
from pathlib import Path

from lsvi.pipeline.config import DEFAULT_CONFIG, Config, load_config, notebook_dependencies
from lsvi.pipeline.declarations import DIRECTORIES, declaration_file
from lsvi.pipeline.paths import DATA_DIR

FINGERPRINT = "fingerprint.json"  # per notebook: results/<scale>/<stem>/fingerprint.json
FINGERPRINTS = "fingerprints.json"  # per report: results/<scale>/fingerprints.json (committed)
LOCK_FILE = "requirements/lock.txt"
DATA_BUILDER = "src/lsvi/data/datasets.py"
REFERENCES_DIR = "data/references"  # data/references/<stem>/: committed reference files of notebook <stem> alone
# data/<folder>/ -> the library file that reads it: the folder's files are inputs of the notebooks executing that file
DATA_READERS = {"posteriordb": "src/lsvi/papers/rabvi/posteriordb.py"}


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _code_cells(raw: bytes) -> list[str]:
    """The sources of a notebook's code cells, in order (raises on a file that is not a notebook's JSON)."""
    return [c["source"] if isinstance(c["source"], str) else "".join(c["source"])
            for c in json.loads(raw)["cells"] if c.get("cell_type") == "code"]


def without_comments(source: str) -> str:
    """``source`` with each comment (a ``COMMENT`` token of `tokenize`) and the blanks before it removed, every other
    character kept as it is; unchanged if it does not tokenize as Python (a cell magic, say)."""
    try:
        comments = [t for t in tokenize.generate_tokens(io.StringIO(source).readline) if t.type == tokenize.COMMENT]
    except (tokenize.TokenError, SyntaxError):
        return source
    lines = source.splitlines(keepends=True)
    for tok in comments:  # a comment runs to the end of its line: one per line at most
        (row, start), (_, end) = tok.start, tok.end
        lines[row - 1] = lines[row - 1][:start].rstrip(" \t") + lines[row - 1][end:]
    return "".join(lines)


def notebook_code(path: str | os.PathLike) -> bytes:
    """What of a notebook can change its results: its code cells, in order, without their comments, as JSON bytes
    (outputs, metadata, markdown cells and comments left out: a corrected sentence or comment changes no result).
    A file that is not a notebook's JSON gives its raw bytes."""
    raw = Path(path).read_bytes()
    try:
        return json.dumps([without_comments(s) for s in _code_cells(raw)]).encode()
    except (ValueError, KeyError, TypeError):
        return raw


def rehash_notebooks_without_comments(results_dir: str | os.PathLike) -> list[str]:
    """Migrate ``results_dir/fingerprints.json`` to `notebook_code`'s comment-free rule (2026-12-02): a notebook's
    recorded hash under the earlier rule (its code cells' sources, comments included) is replaced by the new
    rule's hash of the working tree's notebook **only if** that earlier hash equals the working tree's under the
    earlier rule, i.e. the code cells are byte-identical to those that ran. Any other record is left as it is
    (the notebook stays STALE). Returns the stems migrated."""
    path = Path(results_dir) / FINGERPRINTS
    recorded = json.loads(path.read_text())
    root = Path(results_dir).resolve().parents[1]
    done = []
    for stem, rec in recorded.items():
        rel = f"notebooks/{stem}.ipynb"
        nb = root / rel
        if read_record(rec) is None or rel not in rec["inputs"] or not nb.is_file():
            continue
        earlier = _sha256(json.dumps(_code_cells(nb.read_bytes())).encode())
        if rec["inputs"][rel] == earlier:
            rec["inputs"][rel] = _sha256(notebook_code(nb))
            rec["digest"] = digest(rec["inputs"])
            done.append(stem)
    path.write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n")
    return done


def _files_under(base: Path, skip=()) -> list[Path]:
    """The files under ``base`` (recursively), without its top-level folders named in ``skip``, sorted."""
    out = []
    for dirpath, dirnames, filenames in os.walk(base):
        if Path(dirpath) == base:
            dirnames[:] = [d for d in dirnames if d not in skip]
        out += [Path(dirpath) / f for f in filenames]
    return sorted(out)


def committed_data(root: Path, dependencies) -> list[Path]:
    """The files under ``data/`` that a notebook executing the library files ``dependencies`` can read, sorted: the
    files of each folder ``data/<f>/`` named in `DATA_READERS` when ``dependencies`` holds its reader, those of any
    other folder always (no reader declared: counted for every notebook); never a file directly under ``data/``
    (``data/README.md`` documents the data sets, no code reads it), the generated ``data/processed/`` or the
    per-notebook ``data/references/`` (`notebook_references`). So adding a posterior to ``data/posteriordb/`` stales
    the notebooks that read posteriordb, not the theorem checks."""
    base = Path(root) / "data"
    if not base.is_dir():
        return []
    skip = {Path(d).relative_to("data").parts[0] for d in (DATA_DIR, REFERENCES_DIR)}
    deps = {Path(p).resolve() for p in dependencies}
    out = []
    for sub in sorted(p for p in base.iterdir() if p.is_dir() and p.name not in skip):
        reader = DATA_READERS.get(sub.name)
        if reader is None or (Path(root) / reader).resolve() in deps:
            out += _files_under(sub)
    return sorted(out)


def notebook_references(root: Path, stem: str) -> list[Path]:
    """The committed reference files of notebook ``stem``: the files under ``data/references/<stem>/``, sorted."""
    return _files_under(root / REFERENCES_DIR / stem)


def inputs(cfg: Config, stem: str, scale: str, root: str | os.PathLike | None = None) -> dict[str, str]:
    """``{input: sha256}`` of notebook ``stem`` at ``scale`` (paths relative to the repository root,
    and ``"params"`` for its papermill parameters). A missing file hashes as ``"missing"``."""
    root = Path(root) if root is not None else cfg.root
    nb = root / "notebooks" / f"{stem}.ipynb"
    deps = notebook_dependencies(nb, root / "src") if nb.is_file() else []
    files = {nb, root / LOCK_FILE, *deps}
    if cfg.notebooks[stem].data:
        files.add(root / DATA_BUILDER)
    files |= set(committed_data(root, deps)) | set(notebook_references(root, stem))
    params = cfg.params(stem, scale)
    files |= {f for v in _strings(params) for d in DIRECTORIES if (f := declaration_file(v, root, d)) is not None}
    out = {}
    for f in sorted(files):
        rel = os.path.relpath(f, root)
        if not f.is_file():
            out[rel] = "missing"
        else:
            out[rel] = _sha256(notebook_code(f) if f == nb else f.read_bytes())
    out["params"] = _sha256(json.dumps(params, sort_keys=True, default=str).encode())
    return out


def _strings(value):
    """Every string in a parameter value (lists and mappings searched)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _strings(v)


def digest(inp: dict[str, str]) -> str:
    """One sha256 over ``inputs``' sorted items."""
    return _sha256(json.dumps(sorted(inp.items())).encode())


def record(inp: dict[str, str]) -> dict:
    """The stored form: ``{"digest": ..., "inputs": {...}}``."""
    return {"digest": digest(inp), "inputs": inp}


def write(results_dir: str | os.PathLike, cfg: Config, stem: str, scale: str, name: str = FINGERPRINT) -> Path:
    """Record notebook ``stem``'s inputs as they are now in ``results_dir/name``."""
    path = Path(results_dir) / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record(inputs(cfg, stem, scale)), indent=1, sort_keys=True) + "\n")
    return path


def read_record(rec) -> dict | None:
    """``rec`` if it has the stored form (`record`), else None."""
    return rec if isinstance(rec, dict) and "digest" in rec and isinstance(rec.get("inputs"), dict) else None


def read(path: str | os.PathLike) -> dict | None:
    """A stored fingerprint, or None if absent or unreadable."""
    try:
        return read_record(json.loads(Path(path).read_text()))
    except (OSError, ValueError):
        return None


def changed(recorded: dict | None, current: dict[str, str]) -> list[str]:
    """The inputs that differ between a recorded fingerprint and ``current`` (added, removed or
    edited); ``["no fingerprint recorded"]`` when there is none. Empty: the row is current."""
    if recorded is None:
        return ["no fingerprint recorded"]
    old = recorded["inputs"]
    return sorted(k for k in set(old) | set(current) if old.get(k) != current.get(k))


def stale(results_dir: str | os.PathLike, config: str | os.PathLike | Config = DEFAULT_CONFIG,
          scale: str | None = None) -> dict[str, list[str]]:
    """``{stem: changed inputs}`` for every notebook of the report in ``results_dir`` whose inputs
    changed since its run (per ``results_dir/fingerprints.json``); empty when the report is current."""
    results_dir = Path(results_dir)
    scale = scale or results_dir.resolve().name
    cfg = config if isinstance(config, Config) else load_config(config, {"scale": scale}, check_notebooks=False)
    try:
        recorded = json.loads((results_dir / FINGERPRINTS).read_text())
    except (OSError, ValueError):
        recorded = {}
    out = {}
    for stem in cfg.notebooks:
        diff = changed(recorded.get(stem), inputs(cfg, stem, scale, cfg.root))
        if diff:
            out[stem] = diff
    return out


def backfill(results_dir: str | os.PathLike, commit: str, config: str | os.PathLike | Config = DEFAULT_CONFIG,
             scale: str | None = None) -> dict[str, list[str]]:
    """Record, in ``results_dir/fingerprints.json``, the inputs that `inputs` counts now but a notebook's
    recorded fingerprint lacks (the rules that find a notebook's inputs were widened after its run), each
    with the sha256 of its bytes **at** ``commit``, the commit the report was run from (``git show
    commit:path``; "missing" where it did not exist). Recorded inputs are never changed, and the digest is
    recomputed. An input that changed since ``commit`` therefore makes its notebook STALE, as it should:
    the run executed the file as it was at ``commit``. Returns {stem: the inputs added}."""
    import subprocess

    results_dir = Path(results_dir)
    scale = scale or results_dir.resolve().name
    cfg = config if isinstance(config, Config) else load_config(config, {"scale": scale}, check_notebooks=False)
    path = results_dir / FINGERPRINTS
    recorded = json.loads(path.read_text())

    def at_commit(rel: str) -> str:
        r = subprocess.run(["git", "show", f"{commit}:{rel}"], cwd=cfg.root, capture_output=True)
        return _sha256(r.stdout) if r.returncode == 0 else "missing"

    subprocess.run(["git", "rev-parse", "--verify", f"{commit}^{{commit}}"], cwd=cfg.root, check=True,
                   capture_output=True)
    added = {}
    for stem, rec in recorded.items():
        if stem not in cfg.notebooks or read_record(rec) is None:
            continue
        new = sorted(k for k in inputs(cfg, stem, scale, cfg.root) if k not in rec["inputs"] and k.startswith("src/"))
        if new:
            rec["inputs"].update({k: at_commit(k) for k in new})
            rec["digest"] = digest(rec["inputs"])
            added[stem] = new
    path.write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n")
    return added


def _narrowed(rec: dict, now: dict[str, str]) -> list[str]:
    """Drop from record ``rec`` (in place) the inputs under ``data/`` that ``now`` (`inputs` under the current rule)
    no longer counts, when ``rec`` records every input of ``now`` and the only extra ones are under ``data/``; the
    digest is recomputed. Returns the inputs dropped (empty: ``rec`` unchanged)."""
    extra = sorted(k for k in rec["inputs"] if k not in now)
    if not (extra and set(now) <= set(rec["inputs"]) and all(k.startswith("data/") for k in extra)):
        return []
    rec["inputs"] = {k: rec["inputs"][k] for k in sorted(now)}
    rec["digest"] = digest(rec["inputs"])
    return extra


def narrow_data(results_dir: str | os.PathLike, config: str | os.PathLike | Config = DEFAULT_CONFIG,
                scale: str | None = None) -> dict[str, list[str]]:
    """Migrate ``results_dir/fingerprints.json`` and each ``results_dir/<stem>/fingerprint.json`` to `committed_data`'s
    rule (2026-12-03; before it, every file under ``data/`` but ``processed/`` and ``references/`` was an input of
    every notebook): a record that holds every input the rule counts now loses those it recorded under ``data/`` that
    the rule no longer counts; its other inputs and their recorded hashes stay as they are (`_narrowed`). A record
    missing an input the rule counts is left as it is (STALE, as before). Returns {stem: the inputs dropped from the
    report's record}."""
    results_dir = Path(results_dir)
    scale = scale or results_dir.resolve().name
    cfg = config if isinstance(config, Config) else load_config(config, {"scale": scale}, check_notebooks=False)
    path = results_dir / FINGERPRINTS
    recorded = json.loads(path.read_text()) if path.is_file() else {}
    paths = {stem: results_dir / stem / FINGERPRINT for stem in cfg.notebooks}  # the records the report aggregates
    ones = {stem: (f, rec) for stem, f in paths.items() if (rec := read(f)) is not None}
    now = {stem: inputs(cfg, stem, scale, cfg.root) for stem in cfg.notebooks if stem in recorded or stem in ones}
    dropped = {}
    for stem, rec in recorded.items():
        if stem in now and read_record(rec) is not None and (extra := _narrowed(rec, now[stem])):
            dropped[stem] = extra
    if path.is_file():
        path.write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n")
    for stem, (one, rec) in ones.items():
        if _narrowed(rec, now[stem]):
            one.write_text(json.dumps(rec, indent=1, sort_keys=True) + "\n")
    return dropped


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m lsvi.pipeline.fingerprint", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    w = sub.add_parser("write", help="record results/<scale>/<stem>'s inputs as they are now")
    w.add_argument("notebook_dir", help="results/<scale>/<stem>")
    w.add_argument("--name", default=FINGERPRINT, help="file name (default: %(default)s)")
    c = sub.add_parser("check", help="list the STALE notebooks of results/<scale>")
    c.add_argument("results_dir", help="results/<scale>")
    b = sub.add_parser("backfill", help="add the inputs a widened rule now counts to results/<scale>/fingerprints.json, "
                                        "hashed as they were at the commit the report was run from")
    b.add_argument("results_dir", help="results/<scale>")
    b.add_argument("--commit", required=True, help="the commit the report's notebooks were run from")
    r = sub.add_parser("rehash", help="migrate results/<scale>/fingerprints.json to the comment-free notebook hash "
                                      "(only notebooks whose code cells are unchanged)")
    r.add_argument("results_dir", help="results/<scale>")
    n = sub.add_parser("narrow", help="migrate results/<scale>/fingerprints.json to the rule that counts only the "
                                      "data files a notebook can read (drops data files, nothing else)")
    n.add_argument("results_dir", help="results/<scale>")
    for p in (w, c, b, n):
        p.add_argument("--config", default=DEFAULT_CONFIG, help="config file (default: %(default)s)")
    args = ap.parse_args(argv)
    if args.cmd == "narrow":
        out = narrow_data(args.results_dir, args.config)
        for stem, extra in out.items():
            print(f"{stem}: {len(extra)} data file(s) no longer counted")
        print(f"{len(out)} notebook(s) narrowed")
        return 0
    if args.cmd == "rehash":
        done = rehash_notebooks_without_comments(args.results_dir)
        print(f"{len(done)} notebook(s) re-recorded under the comment-free rule: {', '.join(done)}")
        return 0
    if args.cmd == "backfill":
        for stem, new in backfill(args.results_dir, args.commit, args.config).items():
            print(f"{stem}: {len(new)} input(s) added as at {args.commit}: {', '.join(new)}")
        return 0
    if args.cmd == "write":
        d = Path(args.notebook_dir)
        scale, stem = d.resolve().parent.name, d.resolve().name
        cfg = load_config(args.config, {"scale": scale}, check_notebooks=False)
        print(f"{write(d, cfg, stem, scale, args.name)}")
        return 0
    out = stale(args.results_dir, args.config)
    for stem, diff in out.items():
        print(f"STALE {stem}: {', '.join(diff[:6])}{' ...' if len(diff) > 6 else ''}")
    print(f"{len(out)} STALE notebook(s) in {args.results_dir}")
    return 1 if out else 0


if __name__ == "__main__":
    sys.exit(main())
