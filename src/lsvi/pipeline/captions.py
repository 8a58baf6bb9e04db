"""Captions of the figures and tables: ``config/captions/*.yaml``, rendered at a scale.

Every figure and table a notebook declares (``figures:`` / ``tables:`` in ``config/scales.yaml``) has one entry,
keyed by its name, in one of the caption files (one per paper)::

    rabvi_fig07_gaussian_targets:
      caption: >-
        √SKL(q̂, q*) against iterations on the {{ covariances|length }} Gaussian targets of Section 7.1,
        d = {{ d }}, seed 0 of {{ num_seeds }} ...
      rows: [fig7_rabvi_beats_*, fig7_adam_schedules_match_rabvi]

``caption`` is a Jinja2 template over the notebook's papermill parameters at the scale (the parameters cell's
defaults, then the scale's overrides: `lsvi.pipeline.config.Config.params`), so the N, T, repetitions and
dimensions it quotes are those of the run it describes; an undefined name is an error (`CaptionError`).
``rows`` are the claims rows the figure supports: ids of its notebook's rows, or prefixes ending in ``*``.

The captions are read by the site (`lsvi.pipeline.site`: under each figure, with the statuses of its rows) and
checked by ``python -m lsvi.pipeline.captions --check [--results results]`` (every declared figure and table has a
non-empty caption that renders at every scale; every entry names a declared figure or table; with the results,
every ``rows`` pattern matches a row of its notebook).
They are not inputs of the notebooks' fingerprints: a caption edit stales no result.
"""
from __future__ import annotations

import argparse
import fnmatch
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

import jinja2
import yaml

from lsvi.pipeline.config import DEFAULT_CONFIG, Config, ConfigError, load_config, notebook_parameters

CAPTIONS_DIR = "config/captions"
KEYS = {"caption", "rows"}


class CaptionError(ValueError):
    """A malformed caption file or a caption that does not render."""


@dataclass(frozen=True)
class Caption:
    """One figure's or table's caption: `text` a Jinja2 template, `rows` the claims ids (or ``prefix*``) it supports,
    `file` the caption file it comes from."""

    name: str
    text: str
    rows: tuple[str, ...] = ()
    file: str = ""


def load_captions(root: str | os.PathLike = ".") -> dict[str, Caption]:
    """Every entry of ``<root>/config/captions/*.yaml`` by name; `CaptionError` on a malformed entry or a name
    defined twice."""
    out: dict[str, Caption] = {}
    for path in sorted((Path(root) / CAPTIONS_DIR).glob("*.yaml")):
        try:
            raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        except yaml.YAMLError as e:
            raise CaptionError(f"{path}: not valid YAML: {e}") from None
        if not isinstance(raw, dict):
            raise CaptionError(f"{path}: expected a mapping name -> {{caption, rows}}")
        for name, entry in raw.items():
            where = f"{path.name}: {name}"
            if name in out:
                raise CaptionError(f"{where}: also defined in {out[name].file}")
            if not isinstance(entry, dict) or set(entry) - KEYS or "caption" not in entry:
                raise CaptionError(f"{where}: expected keys {sorted(KEYS)} ('caption' required), got {entry!r}")
            text, rows = entry["caption"], entry.get("rows") or []
            if not isinstance(text, str) or not text.strip():
                raise CaptionError(f"{where}: empty caption")
            if not isinstance(rows, list) or not all(isinstance(r, str) and r.strip() for r in rows):
                raise CaptionError(f"{where}: rows must be a list of claim ids or 'prefix*' patterns")
            out[name] = Caption(str(name), text.strip(), tuple(rows), path.name)
    return out


_ENV = jinja2.Environment(undefined=jinja2.StrictUndefined, autoescape=False, keep_trailing_newline=False)


def scale_params(cfg: Config, stem: str, scale: str) -> dict[str, Any]:
    """The papermill parameters notebook `stem` runs with at `scale`: its parameters cell's defaults updated with
    the scale's overrides."""
    params = notebook_parameters(cfg.root / "notebooks" / f"{stem}.ipynb")
    params.update(cfg.params(stem, scale))
    return params


def render(caption: Caption, params: dict[str, Any]) -> str:
    """The caption with the run's parameters filled in (`CaptionError` when it names an unknown parameter)."""
    try:
        return " ".join(_ENV.from_string(caption.text).render(**params).split())
    except jinja2.TemplateError as e:
        raise CaptionError(f"{caption.file}: {caption.name}: {e}") from None


def supported(caption: Caption, ids: Iterable[str]) -> list[str]:
    """The ids among `ids` that the caption's ``rows`` name (exactly, or by a ``prefix*`` pattern), in order."""
    pats = caption.rows
    return [i for i in ids if any(fnmatch.fnmatchcase(i, p) for p in pats)]


def declared(cfg: Config) -> dict[str, str]:
    """Every figure and table the config declares, mapped to its notebook."""
    out = {}
    for stem, nb in cfg.notebooks.items():
        for name in (*nb.figures, *nb.tables):
            out[name] = stem
    return out


def _claim_ids(results_root: Path, scale: str, stem: str) -> list[str] | None:
    """The ids of `stem`'s rows in the scale's aggregated report (``results/<scale>/claims.csv``, committed), else in
    the notebook's own ``claims.csv``; None when neither exists."""
    import csv

    for path, mine in ((results_root / scale / "claims.csv", lambda r: r.get("notebook") == stem),
                       (results_root / scale / stem / "claims.csv", lambda r: True)):
        if path.is_file():
            with path.open(newline="", encoding="utf-8") as f:
                return [r["id"] for r in csv.DictReader(f) if mine(r)]
    return None


def check(cfg: Config, captions: dict[str, Caption] | None = None,
          results_root: str | os.PathLike | None = None) -> list[str]:
    """Problems with the captions: a declared figure or table without one, an entry that names nothing declared,
    a caption that does not render at some scale; with `results_root` (``results``), a ``rows`` pattern that
    matches no row of its notebook in any scale's report."""
    captions = load_captions(cfg.root) if captions is None else captions
    owners = declared(cfg)
    problems = [f"{name} ({stem}): no caption in {CAPTIONS_DIR}/" for name, stem in owners.items() if name not in captions]
    problems += [f"{c.file}: {name}: not a figure or table of any notebook" for name, c in captions.items()
                 if name not in owners]
    for name, stem in owners.items():
        if name not in captions:
            continue
        for scale in cfg.scales:
            try:
                if not render(captions[name], scale_params(cfg, stem, scale)):
                    problems.append(f"{name}: renders empty at scale {scale}")
            except (CaptionError, ConfigError) as e:
                problems.append(f"{e} (scale {scale})")
        if results_root is not None:
            ids = [_claim_ids(Path(results_root), scale, stem) for scale in cfg.scales]
            ids = [i for got in ids if got is not None for i in got]
            if ids:
                problems += [f"{name}: rows pattern {p!r} matches no row of {stem}" for p in captions[name].rows
                             if not supported(Caption(name, "", (p,)), ids)]
    return problems


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m lsvi.pipeline.captions", description=__doc__.split("\n")[0])
    ap.add_argument("--config", default=DEFAULT_CONFIG)
    ap.add_argument("--check", action="store_true", help="report missing or broken captions; exit 1 if any")
    ap.add_argument("--scale", default=None, help="print every caption rendered at this scale")
    ap.add_argument("--results", default=None, help="results root (results): also check the rows patterns")
    args = ap.parse_args(argv)
    cfg = load_config(args.config, {"scale": args.scale} if args.scale else {}, check_notebooks=False)
    caps = load_captions(cfg.root)
    if args.scale:
        for name, stem in declared(cfg).items():
            if name in caps:
                print(f"## {name} ({stem})\n{render(caps[name], scale_params(cfg, stem, args.scale))}\n"
                      f"rows: {', '.join(caps[name].rows) or '-'}\n")
    if args.check:
        problems = check(cfg, caps, args.results)
        for p in problems:
            print(p, file=sys.stderr)
        print(f"{len(declared(cfg))} figures and tables declared, {len(caps)} captions, {len(problems)} problem(s)")
        return 1 if problems else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
