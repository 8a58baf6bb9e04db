"""Compute resources of each notebook per scale: ``config/resources.yaml``, validated.

The pipeline's notebook rules take their ``threads`` and ``resources`` (``mem_mb``,
``runtime`` in minutes, ``gpu``) from this file, so that a cluster executor (the SLURM
profile in ``profiles/slurm``) requests what a notebook needs. Shape::

    margin: 1.5                       # declared = margin x measured, rounded up
    notebooks:
      20_pima:
        smoke: {threads: 1, mem_mb: 2816, runtime: 3}
        cpu:   {threads: 1, mem_mb: 3328, runtime: 18}
        paper: {threads: 4, mem_mb: 6656, runtime: 180, gpu: 1}

Declarations are honest: at a scale with a committed report, ``results/<scale>/REPLICATION.md``
lists each notebook's wall time and peak RSS (Snakemake's ``benchmark.tsv``), and
`derive` turns them into ``mem_mb = margin x peak RSS`` (MiB, rounded up to 256) and
``runtime = margin x wall time`` (minutes, rounded up). ``python -m lsvi.pipeline.resources
--derive`` prints the entries derived from the committed reports; the test suite fails if a
declaration is missing or below the measured use. Scales without a report (paper) are
estimates, stated as such in the file.
"""
from __future__ import annotations

import argparse
import math
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

import yaml

from lsvi.pipeline.config import Config

DEFAULT_RESOURCES = "config/resources.yaml"
KEYS = {"threads", "mem_mb", "runtime", "gpu"}
REQUIRED = ("threads", "mem_mb", "runtime")
MEM_QUANTUM_MB = 256
MIN_MEM_MB, MIN_RUNTIME = 1024, 5  # floors: a cluster job also starts Python, JIT-compiles, reads data
# A scale without a report (paper) is an estimate from the cpu declaration: these factors.
ESTIMATE = {"runtime_factor": 20, "mem_factor": 2, "threads": 4, "max_runtime": 2880}


class ResourcesError(ValueError):
    """config/resources.yaml is invalid or incomplete; the message says what to add."""


@dataclass(frozen=True)
class Resources:
    margin: float
    notebooks: Mapping[str, Mapping[str, Mapping[str, int]]]  # stem -> scale -> {threads, mem_mb, runtime[, gpu]}

    def of(self, stem: str, scale: str) -> dict[str, int]:
        """``{threads, mem_mb, runtime, gpu}`` of notebook ``stem`` at ``scale`` (gpu 0 if absent)."""
        try:
            r = self.notebooks[stem][scale]
        except KeyError:
            raise ResourcesError(missing_message([(stem, scale)])) from None
        return {"gpu": 0, **r}


def derive(wall_min: float, rss_gib: float, margin: float = 1.5) -> dict[str, int]:
    """Declared ``mem_mb`` and ``runtime`` (minutes) from a measured wall time (min) and peak RSS (GiB)."""
    mem = math.ceil(margin * rss_gib * 1024 / MEM_QUANTUM_MB) * MEM_QUANTUM_MB
    return {"mem_mb": max(MIN_MEM_MB, int(mem)), "runtime": max(MIN_RUNTIME, math.ceil(margin * wall_min))}


def estimate(cpu: Mapping[str, int], gpu: int = 0) -> dict[str, int]:
    """A declaration for a scale with no measurement, from the cpu one (`ESTIMATE`)."""
    out = {"threads": ESTIMATE["threads"], "mem_mb": ESTIMATE["mem_factor"] * cpu["mem_mb"],
           "runtime": min(ESTIMATE["max_runtime"], ESTIMATE["runtime_factor"] * cpu["runtime"])}
    return {**out, "gpu": gpu} if gpu else out


def missing_message(missing: list[tuple[str, str]], margin: float = 1.5) -> str:
    """What to add to config/resources.yaml for the ``(stem, scale)`` pairs in ``missing``."""
    by_stem: dict[str, list[str]] = {}
    for stem, scale in missing:
        by_stem.setdefault(stem, []).append(scale)
    lines = [f"{DEFAULT_RESOURCES} lacks resource declarations for "
             + ", ".join(f"{s} ({', '.join(sc)})" for s, sc in by_stem.items())
             + ". Add under 'notebooks:' (mem_mb = {m} x peak RSS in MiB rounded up to {q}, runtime = {m} x wall "
               "minutes rounded up, from the notebook's row in results/<scale>/REPLICATION.md or its "
               "benchmark.tsv; `python -m lsvi.pipeline.resources --derive` prints them; gpu: 1 where the paper "
               "scale needs a GPU):".format(m=margin, q=MEM_QUANTUM_MB)]
    for stem, scales in by_stem.items():
        lines.append(f"  {stem}:")
        lines += [f"    {s}: {{threads: 1, mem_mb: <MiB>, runtime: <minutes>}}" for s in scales]
    return "\n".join(lines)


def parse_resources(raw) -> Resources:
    if not isinstance(raw, dict) or not isinstance(raw.get("notebooks"), dict):
        raise ResourcesError(f"{DEFAULT_RESOURCES} must be a mapping with 'margin' and 'notebooks'")
    margin = raw.get("margin", 1.5)
    if not isinstance(margin, (int, float)) or margin < 1:
        raise ResourcesError(f"margin must be a number >= 1, got {margin!r}")
    nbs = {}
    for stem, scales in raw["notebooks"].items():
        if not isinstance(scales, dict):
            raise ResourcesError(f"notebooks.{stem} must map scale -> {{threads, mem_mb, runtime[, gpu]}}")
        nbs[stem] = {}
        for scale, r in scales.items():
            where = f"notebooks.{stem}.{scale}"
            if not isinstance(r, dict):
                raise ResourcesError(f"{where} must be a mapping")
            unknown = set(r) - KEYS
            lacking = [k for k in REQUIRED if k not in r]
            if unknown or lacking:
                raise ResourcesError(f"{where}: unknown key(s) {sorted(unknown)}, missing {lacking}; "
                                     f"keys: {', '.join(REQUIRED)} (required), gpu (optional)")
            for k, v in r.items():
                if not isinstance(v, int) or isinstance(v, bool) or v < (0 if k == "gpu" else 1):
                    raise ResourcesError(f"{where}.{k} must be a positive integer, got {v!r}")
            nbs[stem][scale] = dict(r)
    return Resources(float(margin), nbs)


def load_resources(path: str | os.PathLike = DEFAULT_RESOURCES) -> Resources:
    try:
        raw = yaml.safe_load(Path(path).read_text())
    except FileNotFoundError:
        raise ResourcesError(f"{path} does not exist") from None
    return parse_resources(raw)


def check_complete(res: Resources, cfg: Config, scales=None) -> None:
    """Raise `ResourcesError` (saying what to add) unless every notebook of ``cfg`` has an
    entry for every scale in ``scales`` (default: all of ``cfg.scales``)."""
    scales = list(cfg.scales) if scales is None else list(scales)
    missing = [(stem, s) for stem in cfg.notebooks for s in scales if s not in res.notebooks.get(stem, {})]
    if missing:
        raise ResourcesError(missing_message(missing, res.margin))


def _describe(r: Mapping[str, int]) -> str:
    """"1 core, 1.5 GiB, 12 min[, 1 GPU]": one declaration as the README's table writes it."""
    gib = f"{r['mem_mb'] / 1024:.1f}".rstrip("0").rstrip(".")
    out = f"{r['threads']} core{'s' if r['threads'] > 1 else ''}, {gib} GiB, {r['runtime']} min"
    return out + (f", {r['gpu']} GPU" if r.get("gpu") else "")


def readme_table(res: Resources, scales=("smoke", "cpu", "paper")) -> str:
    """The README's resources table (one row per notebook; the paper column marked as an estimate), generated from
    ``res`` so the two cannot drift (tests/test_resources.py compares them)."""
    head = "| notebook | " + " | ".join(f"{s} (estimate)" if s == "paper" else s for s in scales) + " |"
    rows = [head, "|" + "---|" * (len(scales) + 1)]
    for stem, per in res.notebooks.items():
        rows.append(f"| `{stem}` | " + " | ".join(_describe(per[s]) for s in scales) + " |")
    return "\n".join(rows)


_ROW = re.compile(r"^\| `(?P<stem>[^`]+)` \|.*\| (?P<wall>[\d.]+) min \| (?P<rss>[\d.]+) GiB \|")


def measured_usage(md_path: str | os.PathLike) -> dict[str, tuple[float, float]]:
    """``{stem: (wall time min, peak RSS GiB)}`` from the notebooks table of a REPLICATION.md."""
    out = {}
    for line in Path(md_path).read_text().splitlines():
        m = _ROW.match(line)
        if m:
            out[m["stem"]] = (float(m["wall"]), float(m["rss"]))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m lsvi.pipeline.resources", description=__doc__.split("\n")[0])
    ap.add_argument("--resources", default=DEFAULT_RESOURCES)
    ap.add_argument("--config", default="config/scales.yaml")
    ap.add_argument("--derive", action="store_true",
                    help="print entries derived from results/<scale>/REPLICATION.md for the scales that have one")
    ap.add_argument("--margin", type=float, default=1.5)
    args = ap.parse_args(argv)
    from lsvi.pipeline.config import load_config

    cfg = load_config(args.config, check_notebooks=False)
    if args.derive:
        try:
            declared = load_resources(args.resources).notebooks
        except ResourcesError:
            declared = {}
        for stem in cfg.notebooks:
            print(f"  {stem}:")
            cpu = None
            for scale in cfg.scales:
                md = cfg.root / "results" / scale / "REPLICATION.md"
                use = measured_usage(md).get(stem) if md.is_file() else None
                if use:
                    d = {"threads": 1, **derive(*use, margin=args.margin)}
                    note = f"measured {use[0]} min, {use[1]} GiB"
                elif cpu is not None:
                    d = estimate(cpu, declared.get(stem, {}).get(scale, {}).get("gpu", 0))
                    note = "estimate: not measured"
                else:
                    continue
                cpu = d if scale == "cpu" else cpu
                print(f"    {scale}: {{{', '.join(f'{k}: {v}' for k, v in d.items())}}}  # {note}")
        return 0
    try:
        check_complete(load_resources(args.resources), cfg)
    except ResourcesError as e:
        print(f"ResourcesError: {e}", file=sys.stderr)
        return 2
    print(f"{args.resources}: every notebook has resources for every scale")
    return 0


if __name__ == "__main__":
    sys.exit(main())
